// `npm run bench:scale`: many replies open at once in one process, each trickling a few events a
// second, as a gateway holds them: memory per open stream, CPU per event and the latency the reader
// adds, for this library, the openai SDK's ChatCompletionStream and the AI SDK's streamText, side by
// side in one run, next to the transport alone (the floor every reader pays).
//
// A fake upstream (bench/scaleUpstream.mjs) runs in a process of its own on 127.0.0.1; each
// measurement (bench/scaleClient.mjs) in a fresh process, one contender at one number of streams.
// Writes BENCHMARKS-scale.md at the repository root and prints it. Settings (environment):
//   SCALE_STREAMS     comma-separated numbers of concurrent streams (default 100,1000,10000,100000); a
//                     number over what the open-file limit allows is run at the largest count it allows
//   SCALE_CONTENDERS  comma-separated subset of: transport, library, openai, ai-sdk, relay
//   SCALE_PEER_MAX    the most streams the two SDKs are run with (default 10000: the AI SDK does not
//                     open 10,000 within the ramp's limit, and each row takes a minute or more)
//   SCALE_RELAY_MAX   the most streams the relay is run with (default 1000: the relay's process holds
//                     two sockets a stream, and its clients run in a third process on the same cores)
//   SCALE_RATE        events per second per stream (default 2)
//   SCALE_EVENTS_MAX  the most events per second of a run of more than 10,000 streams (default 10000):
//                     above it, the rate per stream is lowered to this over the streams, since 2 cores
//                     that also run the upstream cannot read more while they open the streams (the
//                     report says the rate of each row); runs of up to 10,000 streams keep SCALE_RATE
//   SCALE_WARMUP      seconds between the last stream opened and the window (default 3)
//   SCALE_WINDOW      seconds measured (default 5)
//   SCALE_OUT         the report's path (default BENCHMARKS-scale.md)
//   SCALE_CPU_PROFILE a directory: one more run of the library, at SCALE_CPU_PROFILE_STREAMS (default
//                     10000), its window profiled (bench/cpuProfileSummary.mjs sums the profile's self
//                     time by kind and file, and the report gets that table); not a row of the table
//   SCALE_HEAP_SNAPSHOT a directory: every measurement also writes a heap snapshot of its client,
//                     every stream open, as <contender>-<streams>.heapsnapshot (compare two at one
//                     count by constructor to see what a reader holds per stream); the snapshot is
//                     taken after the memory figures, so the row is as without it (not in the profiled run)
//
// Open files: each stream is a socket in the client and one in the upstream. Both processes are
// started by a shell that raises its soft limit (`ulimit -n`) to what the largest run needs, up to
// the hard limit, which only a process with CAP_SYS_RESOURCE can raise (the bench tries, and says in
// the report what it got). So the hard limit bounds the streams of one process: a count above it is
// run at the largest count it allows. Ephemeral ports: one client address reaches one server port
// from at most the ports of /proc/sys/net/ipv4/ip_local_port_range, so the upstream listens on one
// port of 127.0.0.1 per 20,000 streams.
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { summarizeProfile, formatSummary } from './cpuProfileSummary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const list = (value, fallback) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : fallback;
const requestedCounts = list(env.SCALE_STREAMS, ['100', '1000', '10000', '100000']).map(Number);
const contenders = list(env.SCALE_CONTENDERS, ['transport', 'library', 'openai', 'ai-sdk', 'relay']);
const peerMax = Number(env.SCALE_PEER_MAX ?? 10000);
const relayMax = Number(env.SCALE_RELAY_MAX ?? 1000);
const rate = Number(env.SCALE_RATE ?? 2);
const eventsMax = Number(env.SCALE_EVENTS_MAX ?? 10000);
const warmUp = Number(env.SCALE_WARMUP ?? 3);
const windowSeconds = Number(env.SCALE_WINDOW ?? 5);
const outPath = env.SCALE_OUT ?? `${root}BENCHMARKS-scale.md`;
const profileDir = env.SCALE_CPU_PROFILE;
const snapshotDir = env.SCALE_HEAP_SNAPSHOT;
if (snapshotDir) mkdirSync(snapshotDir, { recursive: true });
const log = (...args) => console.error(...args);
const started = Date.now();
const loadAtStart = os.loadavg();

// Open files. The hard limit is raised if this process may (root with CAP_SYS_RESOURCE); a shell is
// asked, since Node cannot set a limit, and what it answered goes in the report.
const SPARE_FILES = 200; // modules, stdio, the listening sockets, the relay's IPC channel
const largestRequested = Math.max(...requestedCounts);
// A reader holds a socket a stream; the relay two (the upstream's and its client's).
const wantedFiles = Math.max(largestRequested, contenders.includes('relay') ? 2 * Math.min(relayMax, largestRequested) : 0) + SPARE_FILES;
const shell = (script) => spawnSync('sh', ['-c', script], { encoding: 'utf8' });
const readLimits = () =>
  shell('ulimit -n; ulimit -Hn')
    .stdout.trim()
    .split('\n')
    .map((n) => (n === 'unlimited' ? Infinity : Number(n)));
const [softLimit, hardLimitBefore] = readLimits();
let hardLimit = hardLimitBefore;
let raiseHard = '';
let hardRaiseError;
if (hardLimitBefore < wantedFiles) {
  const attempt = shell(`ulimit -Hn ${wantedFiles}`);
  if (attempt.status === 0) {
    raiseHard = `ulimit -Hn ${wantedFiles}; `;
    hardLimit = wantedFiles;
  } else hardRaiseError = (attempt.stderr.trim().split('\n').pop() ?? '').replace(/^.*ulimit: /, '');
}
/** The most streams one process can hold at `socketsPerStream` open files each, in hundreds. */
const capacity = (socketsPerStream) => Math.floor((hardLimit - SPARE_FILES) / socketsPerStream / 100) * 100;
const readerCap = capacity(1);
const relayCap = capacity(2);
/** The counts run: each requested one, or the largest the open-file limit allows. */
const streamCounts = [...new Set(requestedCounts.map((n) => Math.min(n, readerCap)))].sort((a, b) => a - b);
const runs = (contender, streams) =>
  contender === 'relay'
    ? streams <= Math.min(relayMax, relayCap)
    : contender === 'openai' || contender === 'ai-sdk'
      ? streams <= peerMax
      : true;
/** The rate per stream of a run: SCALE_RATE, lowered above 10,000 streams to keep to SCALE_EVENTS_MAX in all. */
const rateAt = (streams) => (streams <= 10000 ? rate : Math.min(rate, eventsMax / streams));
const raisedLimit = Math.min(
  Math.max(...streamCounts.map((n) => (contenders.includes('relay') && runs('relay', n) ? 2 * n : n))) + SPARE_FILES,
  hardLimit,
);
const portRange = (() => {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return { low, high, size: high - low + 1 };
  } catch {
    return undefined;
  }
})();
const STREAMS_PER_PORT = 20000;
const upstreamPorts = Math.max(1, Math.ceil(Math.max(...streamCounts) / STREAMS_PER_PORT));
// A heap limit above V8's default (a quarter of the memory, at most 4 GiB) for the largest runs.
const heapLimitMb = Math.floor((os.totalmem() / 2 ** 20) * 0.6);
const RAMP_LIMIT_S = 40;
/** Seconds a reader may take to open its streams: 40, and 4 more per 1,000 streams above 10,000. */
const rampLimit = (streams) => RAMP_LIMIT_S + Math.max(0, (streams - 10000) / 250);

/** Starts `node args…` under a shell that raises the limits of open files first. */
function node(args, options = {}) {
  const raise = softLimit < raisedLimit ? `${raiseHard}ulimit -n ${raisedLimit} 2>/dev/null; ` : '';
  return spawn('sh', ['-c', `${raise}exec "$0" "$@"`, process.execPath, ...args], { cwd: root, ...options });
}

const upstream = node([`${root}bench/scaleUpstream.mjs`, String(rate), String(upstreamPorts)], { stdio: ['pipe', 'pipe', 'inherit'] });
const ports = await new Promise((resolve, reject) => {
  let text = '';
  upstream.stdout.on('data', (chunk) => {
    text += chunk;
    if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]).ports);
  });
  upstream.on('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
});
const stopUpstream = () => upstream.kill('SIGTERM');
process.on('exit', stopUpstream);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** One measurement in a fresh process: its JSON line (with the rate it ran at), or { error }. */
function measure(contender, streams, profilePath) {
  return new Promise((resolve) => {
    const streamRate = rateAt(streams);
    const args = [
      '--expose-gc',
      ...(streams > STREAMS_PER_PORT ? [`--max-old-space-size=${heapLimitMb}`] : []),
      `${root}bench/scaleClient.mjs`,
      contender,
      String(streams),
      ports.join(','),
      String(streamRate),
      String(warmUp),
      String(windowSeconds),
    ];
    const childEnv = { ...env, SCALE_RAMP_LIMIT: String(rampLimit(streams)) };
    if (profilePath) childEnv.SCALE_CPU_PROFILE = profilePath;
    else delete childEnv.SCALE_CPU_PROFILE;
    if (snapshotDir && !profilePath) childEnv.SCALE_HEAP_SNAPSHOT = `${snapshotDir}/${contender}-${streams}.heapsnapshot`;
    else delete childEnv.SCALE_HEAP_SNAPSHOT;
    const child = node(args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    // The ramp, the warm-up and the window, the memory and the close, with room to spare.
    const limitSeconds = warmUp + windowSeconds + rampLimit(streams) + 120 + streams / 100;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitSeconds * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      const why = killed ? `no result within ${limitSeconds} s (stopped)` : `exit ${code}: ${err.split('\n').slice(0, 4).join(' ')}`;
      resolve(line ? { ...JSON.parse(line), rate: streamRate } : { contender, streams, rate: streamRate, error: why });
    });
  });
}

const results = [];
for (const streams of streamCounts) {
  for (const contender of contenders) {
    if (!runs(contender, streams)) continue;
    const r = await measure(contender, streams);
    results.push(r);
    log(
      `[${((Date.now() - started) / 1000).toFixed(0)} s] ${contender} × ${streams}: ` +
        (r.error ??
          `heap ${kb(r.heapPerStream)}/stream, rss ${kb(r.rssPerStream)}/stream, ` +
            `${fmt(r.cpuMicrosPerEvent)} µs/event, p99 ${fmt(r.p99)} ms`),
    );
  }
}
// The CPU by kind: one more run of the library, its window profiled (not a row of the table: the
// profiler's own cost is in its CPU figures).
let profileSummary;
if (profileDir) {
  const streams = Math.min(Number(env.SCALE_CPU_PROFILE_STREAMS ?? 10000), readerCap);
  mkdirSync(profileDir, { recursive: true });
  const profilePath = `${profileDir}/library-${streams}.cpuprofile`;
  const r = await measure('library', streams, profilePath);
  if (r.error) log(`profiled library × ${streams}: ${r.error}`);
  else {
    profileSummary = { streams, path: profilePath, run: r, summary: summarizeProfile(JSON.parse(readFileSync(profilePath, 'utf8'))) };
    log(`profiled library × ${streams}: ${profilePath}`);
  }
}
const elapsed = (Date.now() - started) / 1000;
stopUpstream();

function kb(bytes) {
  return bytes === undefined || bytes === null ? '—' : `${(bytes / 1024).toFixed(1)} kB`;
}
function fmt(x, digits = 1) {
  if (x === undefined || x === null) return '—';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(x >= 1 ? digits : 3);
}
const versionOf = (pkg) => {
  try {
    return JSON.parse(readFileSync(`${root}node_modules/${pkg}/package.json`, 'utf8')).version;
  } catch {
    return '?';
  }
};
let commit = '?';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
} catch {
  // not a git checkout
}

const lines = [];
const out = (s = '') => lines.push(s);
out('# Benchmarks: a hundred thousand streams');
out();
out('`npm run bench:scale` (= `npm run build && node bench/scale.mjs`): concurrent replies held open in one process,');
out('each trickling a few events a second, read by this library and by the two SDKs, next to the transport alone.');
out('Generated by `bench/scale.mjs`; do not edit by hand. The throughput benchmark is [BENCHMARKS.md](BENCHMARKS.md).');
out();
out(
  `- Machine: ${os.cpus()[0].model}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; ${os.type()} ${os.release()}`,
);
out(
  `- Node ${process.version}; rxjs ${versionOf('rxjs')}, openai ${versionOf('openai')}, ai ${versionOf('ai')}, ` +
    `@ai-sdk/openai ${versionOf('@ai-sdk/openai')}`,
);
out(`- Date: ${new Date(started).toISOString()}; HEAD ${commit}; the whole run took ${elapsed.toFixed(0)} s`);
out(
  `- Load average at the start ${loadAtStart.map((x) => x.toFixed(2)).join(', ')}, at the end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')} (the upstream and other work share the 2 cores)`,
);
out(
  `- Settings: ${rate} events per second per stream; above 10,000 streams at most ${eventsMax.toLocaleString('en')} a second in all ` +
    `(the rate per stream lowered: the *rate* column), ${warmUp} s of warm-up after the last stream opened, ${windowSeconds} s measured; ` +
    `open files: soft limit ${softLimit}, hard ${hardLimitBefore}` +
    (hardLimit > hardLimitBefore
      ? `, hard raised to ${hardLimit}`
      : hardRaiseError
        ? ` (raising it to ${wantedFiles.toLocaleString('en')} failed: ${hardRaiseError})`
        : '') +
    `, soft raised to ${raisedLimit} for the client and the upstream; ` +
    `the upstream on ${ports.length} port${ports.length > 1 ? 's' : ''} of 127.0.0.1` +
    (portRange ? ` (ephemeral ports ${portRange.low}-${portRange.high})` : ''),
);
out();
out('## How it is measured');
out();
out('- The upstream (bench/scaleUpstream.mjs, a process of its own, on 127.0.0.1) answers each request with an OpenAI');
out('  Chat Completions stream in the current envelope (`obfuscation` of random length) that does not end while measured:');
out('  the role chunk, then a one-word content chunk every 1/rate seconds, each written on its own with Nagle off; the');
out('  streams are spread evenly over the period, so the load is steady.');
out('- Each measurement is a fresh client process (bench/scaleClient.mjs): it opens the streams (500 at a time), waits');
out('  for the warm-up, then measures for the window, then takes the memory with every stream still open, mid-reply. A');
out('  reader still opening its streams after 40 s (4 s more per 1,000 streams above 10,000) is measured with those it');
out('  has (*open*; per-stream figures are per open stream). Above 20,000 streams the client gets a heap limit of 60% of');
out(`  the memory (--max-old-space-size=${heapLimitMb}), and the streams are spread over several ports of the upstream.`);
out('- Transport: `node:http` requests on one agent. A `data` listener added before the reader notes when each chunk');
out('  arrives and which events its blank lines complete. The library reads the `IncomingMessage` (`fromReadableStream`');
out("  takes a Node stream) through the README's pipeline; the SDKs are given a `fetch` that returns a `Response` over a");
out('  web stream of the same chunks, as `fetch` would (openai: `client.chat.completions.stream()`, its `content`');
out('  events; ai-sdk: `streamText` with `@ai-sdk/openai`, `fullStream` text deltas). `transport` reads the chunks and');
out('  drops them: the floor of memory and CPU that every reader pays.');
out("- Relay: the README's layers read the upstream by demand inside a `StreamRelay` (rxjs-llm-stream/relay, its in-memory");
out('  store), which keeps each event and writes it as SSE to a client of its own over 127.0.0.1; the clients run in a');
out("  third process (bench/scaleRelayClients.mjs) that reads as fast as the bytes come. Memory and CPU are the relay's");
out("  process: the upstream socket, the pipeline, the stored events and the client's socket. An event is handed out when");
out("  its frame is written to the client's socket. Run up to SCALE_RELAY_MAX streams (default 1,000).");
out('- *heap*, *RSS*: `process.memoryUsage()` after two full GCs, above the level before the first connection (modules');
out('  loaded), divided by the streams. *beyond transport*: the same less the transport floor of the same number of');
out('  streams, what the reader itself holds per stream. *text*: the characters the streams had received (one byte each).');
out('- *CPU per event*: user + system CPU of the client process during the window over the content events read in it,');
out('  transport included (the transport row is its share). *kept up*: events read in the window over those the upstream');
out('  sent in it. *latency*: from the arrival of the chunk that completed an event to the reader handing out that event,');
out('  every event of the window (p50, p99, max, in ms); it includes the time the event waits while the process is busy');
out('  with other streams.');
out();
out('## Results');
out();
out(
  '| streams | reader | rate | open | heap / stream | beyond transport | RSS / stream | text / stream | CPU / event | ' +
    'CPU share | kept up | ' +
    'p50 | p99 | max |',
);
out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const streams of streamCounts) {
  const floor = results.find((r) => r.streams === streams && r.contender === 'transport' && !r.error);
  for (const r of results.filter((x) => x.streams === streams)) {
    if (r.error) {
      out(`| ${streams.toLocaleString('en')} | ${r.contender} | ${fmt(r.rate, 2)}/s | ERROR: ${r.error} |||||||||||`);
      continue;
    }
    const beyond = floor && r !== floor ? kb(r.heapPerStream - floor.heapPerStream) : '—';
    const open =
      `${r.opened.toLocaleString('en')}${r.opened < streams ? ` of ${streams.toLocaleString('en')} (${rampLimit(streams)} s)` : ''}` +
      `${r.failures ? ` (${r.failures} failed: ${r.firstFailure})` : ''}`;
    const kept = r.expectedEvents ? `${((100 * r.events) / r.expectedEvents).toFixed(0)}%` : '—';
    const latency = r.contender === 'transport' ? ['—', '—', '—'] : [fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.max, 1)];
    out(
      `| ${streams.toLocaleString('en')} | ${r.contender} | ${fmt(r.rate, 2)}/s | ${open} | ` +
        `${kb(r.heapPerStream)} | ${beyond} | ${kb(r.rssPerStream)} | ` +
        `${r.textPerStream.toFixed(0)} B | ${fmt(r.cpuMicrosPerEvent)} µs | ${(100 * r.cpuShare).toFixed(1)}% | ${kept} | ` +
        `${latency.join(' | ')} |`,
    );
  }
}
out();
out('## Goals');
out();
out("Issue 34's goals, each with its figure, the same-run floor it is measured against, and whether it is met.");
out();
const verdict = (ok) => (ok ? 'met' : '**not met**');
const row = (contender, streams) => results.find((r) => r.streams === streams && r.contender === contender && !r.error);
const counted = (streams) => `${streams.toLocaleString('en')} streams`;
const missing = (what) => `${what}: not measured in this run.`;
{
  // Memory: the library's state per open stream beyond the transport's, at 1,000 and 10,000 streams.
  for (const streams of streamCounts) {
    const mine = row('library', streams);
    const floor = row('transport', streams);
    const goal = streams === 1000 || streams === 10000;
    if (!mine || !floor) {
      if (goal) out(`- ${missing(`Memory at most 4 kB per stream beyond the transport at ${counted(streams)}`)}`);
      continue;
    }
    const beyond = (x) => x.heapPerStream - floor.heapPerStream;
    const peers = ['openai', 'ai-sdk'].map((n) => row(n, streams)).filter(Boolean);
    const text = peers.map((p) => `${p.contender} ${kb(beyond(p))} (${(beyond(p) / beyond(mine)).toFixed(1)}×)`).join(', ');
    const figure =
      `${kb(beyond(mine))} (the library's ${kb(mine.heapPerStream)} less the transport's ${kb(floor.heapPerStream)}, same run); ` +
      `peers: ${text || 'none measured'}`;
    out(
      goal
        ? `- Memory at most 4 kB per stream beyond the transport at ${counted(streams)}: ${figure}: ${verdict(beyond(mine) <= 4096)}.`
        : `- Memory per stream beyond the transport at ${counted(streams)} (no goal at this count): ${figure}.`,
    );
  }
  // The relay: at most 8 kB beyond the transport, at every count it ran.
  let relayRows = 0;
  for (const streams of streamCounts) {
    const relay = row('relay', streams);
    const floor = row('transport', streams);
    if (!relay) continue;
    relayRows++;
    const beyond = floor ? relay.heapPerStream - floor.heapPerStream : undefined;
    out(
      `- The relay at most 8 kB per stream beyond the transport at ${counted(streams)}: ` +
        (beyond === undefined
          ? 'no transport row to measure against: not measured.'
          : `${kb(beyond)} (the relay's ${kb(relay.heapPerStream)} less the transport's ${kb(floor.heapPerStream)}): ` +
            `${verdict(beyond <= 8192)}. `) +
        `${relay.opened.toLocaleString('en')} clients open, ${relay.failures} failed; ` +
        `p99 ${fmt(relay.p99, 2)} ms from the upstream bytes ` +
        `to the write to the client; the clients had read ${relay.clientEvents.toLocaleString('en')} of the ` +
        `${relay.handedOut.toLocaleString('en')} content events written to them when the window closed.`,
    );
  }
  if (!relayRows) out(`- ${missing('The relay at most 8 kB per stream beyond the transport')}`);
  // CPU: the library's own cost per event at 10,000 streams, and its ratio to the transport's at 100.
  {
    const mine = row('library', 10000);
    const floor = row('transport', 10000);
    if (mine && floor && mine.cpuMicrosPerEvent !== null && floor.cpuMicrosPerEvent !== null) {
      const own = mine.cpuMicrosPerEvent - floor.cpuMicrosPerEvent;
      out(
        `- CPU: the library's own cost per content event at most 6 µs at 10,000 streams: ${fmt(own)} µs ` +
          `(its ${fmt(mine.cpuMicrosPerEvent)} µs less the transport's ${fmt(floor.cpuMicrosPerEvent)} µs, same run): ` +
          `${verdict(own <= 6)}.`,
      );
    } else out(`- ${missing("CPU: the library's own cost per content event at most 6 µs at 10,000 streams")}`);
  }
  {
    const mine = row('library', 100);
    const floor = row('transport', 100);
    if (mine && floor && mine.cpuMicrosPerEvent && floor.cpuMicrosPerEvent) {
      const ratio = mine.cpuMicrosPerEvent / floor.cpuMicrosPerEvent;
      out(
        `- CPU at 100 streams at most 3× the transport's per event: ${ratio.toFixed(2)}× ` +
          `(the library's ${fmt(mine.cpuMicrosPerEvent)} µs over the transport's ${fmt(floor.cpuMicrosPerEvent)} µs): ` +
          `${verdict(ratio <= 3)}.`,
      );
    } else out(`- ${missing("CPU at 100 streams at most 3× the transport's per event")}`);
  }
  // 100,000 streams in one process, or the largest count this machine allows.
  {
    const target = 100000;
    const largest = Math.max(...streamCounts);
    const mine = row('library', largest);
    const floor = row('transport', largest);
    const bound = largest < largestRequested ? `, the largest the open-file limit allows here (see "The largest count")` : '';
    if (mine) {
      const beyond = floor ? `, ${kb(mine.heapPerStream - floor.heapPerStream)} beyond the transport's ${kb(floor.heapPerStream)}` : '';
      const own =
        floor && mine.cpuMicrosPerEvent !== null && floor.cpuMicrosPerEvent !== null
          ? ` (${fmt(mine.cpuMicrosPerEvent - floor.cpuMicrosPerEvent)} µs beyond the transport's ${fmt(floor.cpuMicrosPerEvent)})`
          : '';
      out(
        `- ${target.toLocaleString('en')} streams in one process: run at ${counted(largest)}${bound}, ` +
          `${fmt(mine.rate, 2)} events/s each: ` +
          `${mine.opened.toLocaleString('en')} open, ${mine.failures} failed; heap ${kb(mine.heapPerStream)} per stream${beyond}; ` +
          `CPU ${fmt(mine.cpuMicrosPerEvent)} µs per event${own}, ${(100 * mine.cpuShare).toFixed(0)}% of a core; ` +
          `p99 ${fmt(mine.p99, 2)} ms: ` +
          `${verdict(largest >= target && mine.opened >= target && mine.failures === 0)}.`,
      );
    } else out(`- ${missing(`${target.toLocaleString('en')} streams in one process`)}`);
  }
  // Latency: p99 under 1 ms at 10,000 streams (and the line at 1,000 kept for comparison with earlier runs).
  for (const streams of [10000, 1000]) {
    const mine = row('library', streams);
    const goal = streams === 10000 ? 'p99 added latency under 1 ms' : 'p99 added latency under 1 ms (no goal at this count)';
    if (mine) out(`- ${goal} at ${counted(streams)}: ${fmt(mine.p99, 2)} ms: ${verdict(mine.p99 !== null && mine.p99 < 1)}.`);
    else if (streams === 10000) out(`- ${missing(`${goal} at ${counted(streams)}`)}`);
  }
}
out();
out('## The largest count');
out();
{
  const largest = Math.max(...streamCounts);
  const mine = row('library', largest) ?? row('transport', largest);
  out(
    `- Asked for ${largestRequested.toLocaleString('en')} streams; run at ${largest.toLocaleString('en')}` +
      (largest < largestRequested ? ' (the rows above at that count).' : '.'),
  );
  out(
    `- Open files: every stream is a socket in the client process and one in the upstream's; the hard limit was ` +
      `${hardLimitBefore === Infinity ? 'unlimited' : hardLimitBefore.toLocaleString('en')}` +
      (hardLimit > hardLimitBefore
        ? `, raised to ${hardLimit.toLocaleString('en')}.`
        : hardRaiseError
          ? `, and raising it to ${wantedFiles.toLocaleString('en')} failed ("${hardRaiseError}": raising a hard limit needs ` +
            'CAP_SYS_RESOURCE, which this process lacks). ' +
            `With ${SPARE_FILES} files kept for the process itself that allows ${readerCap.toLocaleString('en')} streams to a reader and ` +
            `${relayCap.toLocaleString('en')} to the relay (two sockets a stream).`
          : '.'),
  );
  if (portRange)
    out(
      `- Ephemeral ports: ${portRange.size.toLocaleString('en')} (${portRange.low}-${portRange.high}), so one server port takes at most ` +
        `that many connections from 127.0.0.1; the upstream listened on ${ports.length} port${ports.length > 1 ? 's' : ''} ` +
        `(one per ${STREAMS_PER_PORT.toLocaleString('en')} streams), which does not bound the count.`,
    );
  if (mine) {
    // What the next bounds would be, from the per-stream figures of the largest run.
    const atTarget = (perStream) => ((perStream * 100000) / 2 ** 30).toFixed(1);
    const cores = (mine.cpuMicrosPerEvent * 100000 * rate) / 1e6;
    out(
      `- Memory: the ${mine.contender} at ${largest.toLocaleString('en')} streams held ${kb(mine.heapPerStream)} of heap and ` +
        `${kb(mine.rssPerStream)} of RSS per stream: at 100,000 streams that is ${atTarget(mine.heapPerStream)} GiB of heap and ` +
        `${atTarget(mine.rssPerStream)} GiB of RSS, against ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB of memory ` +
        `and a ${(heapLimitMb / 1024).toFixed(1)} GiB ` +
        `heap limit: ${
          mine.heapPerStream * 100000 < heapLimitMb * 2 ** 20 && mine.rssPerStream * 100000 < os.totalmem()
            ? 'memory would not bound it'
            : '**memory would bound it**'
        }.`,
    );
    if (mine.cpuMicrosPerEvent !== null)
      out(
        `- CPU: at ${fmt(mine.cpuMicrosPerEvent)} µs per event, 100,000 streams at ${rate} events/s each would need ${cores.toFixed(1)} ` +
          `cores for the reader alone (the machine has ${os.cpus().length}, shared with the upstream): at 100,000 streams the rate per ` +
          `stream would be lowered to ${fmt(rateAt(100000), 2)}/s (SCALE_EVENTS_MAX).`,
      );
  }
}
out();
if (profileSummary) {
  const { streams, run, summary } = profileSummary;
  out(`## CPU by kind (the library at ${counted(streams)}, its window profiled)`);
  out();
  out(
    `One more run of the library at ${counted(streams)} (${fmt(run.rate, 2)} events/s each), its ${windowSeconds} s window profiled ` +
      `through the inspector every 200 µs (bench/cpuProfileSummary.mjs sums the self time by kind and file); ` +
      `${fmt(run.cpuMicrosPerEvent)} µs per event in that run, the profiler's cost included. Shares of the busy samples (idle left out).`,
  );
  out();
  for (const line of formatSummary(summary)) out(line);
  out();
}

const report = lines.join('\n');
writeFileSync(outPath, report);
console.log(report);
log(`wrote ${outPath} (${elapsed.toFixed(0)} s)`);
process.exit(0);
