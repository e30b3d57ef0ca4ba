// `npm run bench:scale`: many replies open at once in one process, each trickling a few events a
// second, as a gateway holds them: memory per open stream, CPU per event and the latency the reader
// adds, for this library, the openai SDK's ChatCompletionStream and the AI SDK's streamText, side by
// side in one run, next to the transport alone (the floor every reader pays).
//
// A fake upstream (bench/scaleUpstream.mjs) runs in a process of its own on 127.0.0.1; each
// measurement (bench/scaleClient.mjs) in a fresh process, one contender at one number of streams.
// Writes BENCHMARKS-scale.md at the repository root and prints it. Settings (environment):
//   SCALE_STREAMS     comma-separated numbers of concurrent streams (default 100,1000,10000)
//   SCALE_CONTENDERS  comma-separated subset of: transport, library, openai, ai-sdk, relay
//   SCALE_RELAY_MAX   the most streams the relay is run with (default 1000: the relay's process holds
//                     two sockets a stream, and its clients run in a third process on the same cores)
//   SCALE_RATE        events per second per stream (default 2)
//   SCALE_WARMUP      seconds between the last stream opened and the window (default 3)
//   SCALE_WINDOW      seconds measured (default 5)
//   SCALE_OUT         the report's path (default BENCHMARKS-scale.md)
//
// Open files: each stream is a socket in the client and one in the upstream. Both processes are
// started by a shell that raises its soft limit (`ulimit -n`) to what the largest run needs, up to
// the hard limit; a run that cannot open its sockets reports them as failures (see `opened`).
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const list = (value, fallback) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : fallback;
const streamCounts = list(env.SCALE_STREAMS, ['100', '1000', '10000']).map(Number);
const contenders = list(env.SCALE_CONTENDERS, ['transport', 'library', 'openai', 'ai-sdk', 'relay']);
const relayMax = Number(env.SCALE_RELAY_MAX ?? 1000);
const runs = (contender, streams) => contender !== 'relay' || streams <= relayMax;
const rate = Number(env.SCALE_RATE ?? 2);
const warmUp = Number(env.SCALE_WARMUP ?? 3);
const windowSeconds = Number(env.SCALE_WINDOW ?? 5);
const outPath = env.SCALE_OUT ?? `${root}BENCHMARKS-scale.md`;
const log = (...args) => console.error(...args);
const started = Date.now();
const loadAtStart = os.loadavg();

// The open files each process may need: its streams, and some to spare.
const neededFiles = Math.max(...streamCounts.map((n) => (contenders.includes('relay') && runs('relay', n) ? 2 * n : n))) + 1024;
const limits = execFileSync('sh', ['-c', 'ulimit -n; ulimit -Hn'], { encoding: 'utf8' }).trim().split('\n');
const [softLimit, hardLimit] = limits.map((n) => (n === 'unlimited' ? Infinity : Number(n)));
const raisedLimit = Math.min(neededFiles, hardLimit);

/** Starts `node args…` under a shell that raises the soft limit of open files first. */
function node(args, options = {}) {
  const raise = softLimit < raisedLimit ? `ulimit -n ${raisedLimit} 2>/dev/null; ` : '';
  return spawn('sh', ['-c', `${raise}exec "$0" "$@"`, process.execPath, ...args], { cwd: root, ...options });
}

const upstream = node([`${root}bench/scaleUpstream.mjs`, String(rate)], { stdio: ['pipe', 'pipe', 'inherit'] });
const port = await new Promise((resolve, reject) => {
  let text = '';
  upstream.stdout.on('data', (chunk) => {
    text += chunk;
    if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]).port);
  });
  upstream.on('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
});
const stopUpstream = () => upstream.kill('SIGTERM');
process.on('exit', stopUpstream);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** One measurement in a fresh process: its JSON line, or { error }. */
function measure(contender, streams) {
  return new Promise((resolve) => {
    const args = [
      '--expose-gc',
      `${root}bench/scaleClient.mjs`,
      contender,
      String(streams),
      String(port),
      String(rate),
      String(warmUp),
      String(windowSeconds),
    ];
    const child = node(args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    // The ramp (at most 40 s), the warm-up and the window, the memory and the close, with room to spare.
    const limitSeconds = warmUp + windowSeconds + 40 + 120 + streams / 100;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitSeconds * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      const why = killed ? `no result within ${limitSeconds} s (stopped)` : `exit ${code}: ${err.split('\n').slice(0, 4).join(' ')}`;
      resolve(line ? JSON.parse(line) : { contender, streams, error: why });
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
out('# Benchmarks: ten thousand streams');
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
  `- Settings: ${rate} events per second per stream, ${warmUp} s of warm-up after the last stream opened, ${windowSeconds} s measured; ` +
    `open files: soft limit ${softLimit}, hard ${hardLimit}, raised to ${raisedLimit} for both processes`,
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
out('  reader still opening its streams after 40 s is measured with those it has (*open*; per-stream figures are per');
out('  open stream).');
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
  '| streams | reader | open | heap / stream | beyond transport | RSS / stream | text / stream | CPU / event | CPU share | kept up | ' +
    'p50 | p99 | max |',
);
out('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const streams of streamCounts) {
  const floor = results.find((r) => r.streams === streams && r.contender === 'transport' && !r.error);
  for (const r of results.filter((x) => x.streams === streams)) {
    if (r.error) {
      out(`| ${streams.toLocaleString('en')} | ${r.contender} | ERROR: ${r.error} |||||||||||`);
      continue;
    }
    const beyond = floor && r !== floor ? kb(r.heapPerStream - floor.heapPerStream) : '—';
    const open =
      `${r.opened.toLocaleString('en')}${r.opened < streams ? ` of ${streams.toLocaleString('en')} (40 s)` : ''}` +
      `${r.failures ? ` (${r.failures} failed: ${r.firstFailure})` : ''}`;
    const kept = r.expectedEvents ? `${((100 * r.events) / r.expectedEvents).toFixed(0)}%` : '—';
    const latency = r.contender === 'transport' ? ['—', '—', '—'] : [fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.max, 1)];
    out(
      `| ${streams.toLocaleString('en')} | ${r.contender} | ${open} | ${kb(r.heapPerStream)} | ${beyond} | ${kb(r.rssPerStream)} | ` +
        `${r.textPerStream.toFixed(0)} B | ${fmt(r.cpuMicrosPerEvent)} µs | ${(100 * r.cpuShare).toFixed(1)}% | ${kept} | ` +
        `${latency.join(' | ')} |`,
    );
  }
}
out();
out('## Goals');
out();
const lib = (streams) => results.find((r) => r.streams === streams && r.contender === 'library' && !r.error);
const verdict = (ok) => (ok ? 'met' : '**not met**');
const largest = Math.max(...streamCounts);
{
  const r = lib(largest);
  if (r)
    out(
      `- ${largest.toLocaleString('en')} concurrent streams in one process: ${r.opened.toLocaleString('en')} open, ` +
        `${r.failures} failed: ${verdict(r.opened === largest && r.failures === 0)}.`,
    );
  const thousand = lib(1000);
  if (thousand)
    out(
      `- p99 added latency under 1 ms at 1,000 streams: ${fmt(thousand.p99, 2)} ms: ${verdict(thousand.p99 !== null && thousand.p99 < 1)}.`,
    );
  for (const streams of streamCounts) {
    const mine = lib(streams);
    const floor = results.find((x) => x.streams === streams && x.contender === 'transport' && !x.error);
    if (!mine || !floor) continue;
    const peers = results.filter((x) => x.streams === streams && (x.contender === 'openai' || x.contender === 'ai-sdk') && !x.error);
    const beyond = (x) => x.heapPerStream - floor.heapPerStream;
    const text = peers.map((p) => `${p.contender} ${kb(beyond(p))} (${(beyond(p) / beyond(mine)).toFixed(1)}×)`).join(', ');
    out(
      `- Memory per stream beyond the transport at ${streams.toLocaleString('en')} streams: ` +
        `the library ${kb(beyond(mine))}; ${text || 'no peer measured'}.`,
    );
  }
  for (const streams of streamCounts) {
    const relay = results.find((r) => r.streams === streams && r.contender === 'relay' && !r.error);
    const floor = results.find((x) => x.streams === streams && x.contender === 'transport' && !x.error);
    if (!relay) continue;
    const beyond = floor ? `${kb(relay.heapPerStream - floor.heapPerStream)} beyond the transport, ` : '';
    out(
      `- ${streams.toLocaleString('en')} clients served through the relay: ${relay.opened.toLocaleString('en')} open, ` +
        `${relay.failures} failed; ${beyond}p99 ${fmt(relay.p99, 2)} ms from the upstream bytes to the write to the client; ` +
        `the clients had read ${relay.clientEvents.toLocaleString('en')} of the ${relay.handedOut.toLocaleString('en')} ` +
        'content events written to them when the window closed.',
    );
  }
}
out();

const report = lines.join('\n');
writeFileSync(outPath, report);
console.log(report);
log(`wrote ${outPath} (${elapsed.toFixed(0)} s)`);
process.exit(0);
