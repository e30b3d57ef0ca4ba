// Sums the self time of a V8 CPU profile (a .cpuprofile: `node --cpu-prof`, or the inspector's
// Profiler.stop, as `SCALE_CPU_PROFILE` of `npm run bench:scale` takes it) by kind and by file: this
// library by file, rxjs, other packages, the transport (Node's HTTP, socket and stream modules),
// Node's other internals, the bench's own harness, V8's (garbage collector) and (program), and idle.
// So a note can say what the CPU per event consists of.
//
//   node bench/cpuProfileSummary.mjs <file.cpuprofile>   prints the tables (Markdown)
//
// `summarizeProfile(profile)` and `formatSummary(summary)` are pure functions over the JSON.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Node's modules that carry the bytes of an HTTP response: the transport every reader pays. */
const TRANSPORT = /^node:(?:_http_\w+|https?|net|stream|internal\/(?:stream_base_commons|streams\/\w+|http|net|js_stream_socket))$/;

/**
 * The kind and the file one call frame's self time is counted under.
 *
 * @example
 * classify({ functionName: 'push', url: 'file:///repo/dist/esm/frames/sseFrames.js' });
 * // => { kind: 'this library', file: 'frames/sseFrames.js' }
 */
export function classify({ functionName, url }) {
  if (!url) {
    if (functionName === '(idle)') return { kind: 'idle', file: '(idle)' };
    if (functionName === '(garbage collector)') return { kind: 'V8: garbage collector', file: '(garbage collector)' };
    if (functionName === '(program)') return { kind: 'V8: (program), native code outside any function', file: '(program)' };
    if (functionName === '(root)') return { kind: 'V8: (program), native code outside any function', file: '(root)' };
    return { kind: 'V8: builtins and native functions', file: functionName || '(anonymous native)' };
  }
  const library = /\/dist\/(?:esm|cjs)\/(.+)$/.exec(url);
  if (library && !url.includes('/node_modules/rxjs-llm-stream/') && !/\/node_modules\/(?!\.cache\/)/.test(url))
    return { kind: 'this library', file: library[1] };
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (pkg) {
    if (pkg[1] === '.cache') {
      // The bench's snapshot of dist/esm (node_modules/.cache/rxjs-llm-stream-bench/<pid>/esm/…).
      const snap = /\/esm\/(.+)$/.exec(pkg[2]);
      return { kind: 'this library', file: snap ? snap[1] : pkg[2] };
    }
    return { kind: pkg[1] === 'rxjs' ? 'rxjs' : `package ${pkg[1]}`, file: `${pkg[1]}: ${pkg[2].replace(/^dist\/(?:esm5?|cjs)\//, '')}` };
  }
  if (url.startsWith('node:')) {
    return TRANSPORT.test(url)
      ? { kind: 'node: the transport (http, net, streams)', file: url }
      : { kind: 'node: other internals (events, timers, queues…)', file: url };
  }
  const bench = /\/bench\/([^/]+)$/.exec(url);
  if (bench) return { kind: 'the bench harness', file: `bench/${bench[1]}` };
  return { kind: 'other scripts', file: url };
}

/**
 * The self time of every sample of `profile`, summed by kind and by file (in µs), with each one's
 * share of the busy time (all but idle). A sample lasts until the next one; the last, until the
 * profile's end.
 *
 * @example
 * const summary = summarizeProfile(JSON.parse(readFileSync('library-10000.cpuprofile', 'utf8')));
 * summary.kinds[0]; // => { kind: 'this library', micros: 1234567, share: 0.31 }
 */
export function summarizeProfile(profile) {
  const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const selfById = new Map();
  const { samples, timeDeltas } = profile;
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i];
    const next = i + 1 < samples.length ? at + timeDeltas[i + 1] : profile.endTime;
    const lasted = Math.max(0, next - at);
    selfById.set(samples[i], (selfById.get(samples[i]) ?? 0) + lasted);
  }
  const byKind = new Map();
  const byFile = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of selfById) {
    const frame = frameOf.get(id);
    if (frame === undefined) throw new Error(`cpuProfileSummary: sample of node ${id}, which the profile does not list`);
    const { kind, file } = classify(frame);
    total += micros;
    if (kind === 'idle') {
      idle += micros;
      continue;
    }
    byKind.set(kind, (byKind.get(kind) ?? 0) + micros);
    const key = `${kind}\u0000${file}`;
    byFile.set(key, (byFile.get(key) ?? 0) + micros);
  }
  const busy = total - idle;
  const share = (micros) => (busy > 0 ? micros / busy : 0);
  const kinds = [...byKind].map(([kind, micros]) => ({ kind, micros, share: share(micros) })).sort((a, b) => b.micros - a.micros);
  const files = [...byFile]
    .map(([key, micros]) => {
      const [kind, file] = key.split('\u0000');
      return { kind, file, micros, share: share(micros) };
    })
    .sort((a, b) => b.micros - a.micros);
  return { totalMicros: total, idleMicros: idle, busyMicros: busy, samples: samples.length, kinds, files };
}

/**
 * The summary as Markdown lines: a table by kind, then the files of at least `minShare` of the busy time.
 *
 * @example
 * for (const line of formatSummary(summarizeProfile(profile))) console.log(line);
 */
export function formatSummary(summary, { minShare = 0.005 } = {}) {
  const ms = (micros) => (micros / 1000).toFixed(0);
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `${summary.samples.toLocaleString('en')} samples, ${ms(summary.totalMicros)} ms, of which ${ms(summary.idleMicros)} ms idle.`,
    '',
    '| kind | self time | share of busy |',
    '|---|---|---|',
    ...summary.kinds.map((k) => `| ${k.kind} | ${ms(k.micros)} ms | ${pct(k.share)} |`),
    '',
    `| file (at least ${pct(minShare)}) | kind | self time | share of busy |`,
    '|---|---|---|---|',
    ...summary.files.filter((f) => f.share >= minShare).map((f) => `| ${f.file} | ${f.kind} | ${ms(f.micros)} ms | ${pct(f.share)} |`),
  ];
  return lines;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: node bench/cpuProfileSummary.mjs <file.cpuprofile>');
    process.exit(2);
  }
  for (const line of formatSummary(summarizeProfile(JSON.parse(readFileSync(path, 'utf8'))))) console.log(line);
}
