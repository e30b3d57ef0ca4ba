// Measures one workload at one scale, at each of the chunk sizes it is given, for the contenders it
// is given (compare.mjs: one), in a worker thread of its own (a fresh heap, so that no contender
// pays for another's garbage or shares its hidden classes; the parent can stop it if a synchronous
// contender overruns its budget).
//
// For each chunk size: cut the bytes into the chunk array; warm the contender up once on a small
// input of the same shape (1/20 of the x1 size) at the same chunk size, then on the real input
// until the runs add up to warmMs (or warmRuns runs); open one more stream of it,
// fed most of the small input, and leave it open (`hold`); then the timed runs, each after a
// young-generation GC (not timed); then, in the cells compare.mjs names (`cold`), the cold runs: a
// full GC, the process idle for a while, then one timed run, the floor and the library in turn, as a
// serving process meets the first reply after a quiet spell; then the memory runs. Every result is checked against the
// workload's expected text and argument lengths; a contender that disagrees or throws is reported
// as an error.
import { parentPort, workerData } from 'node:worker_threads';
import v8 from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { WORKLOADS, chunk } from './workloads.mjs';
import { CONTENDERS, MEMORY_CONTENDERS, BudgetExceeded } from './contenders.mjs';

const { workload, scale, sizeScale, chunkSizes, exclude, overBudgetAtX1, params, only, memory: memoryRuns, cold } = workerData;
// The contenders this worker measures (compare.mjs gives each one a worker of its own).
const MINE = CONTENDERS.filter((c) => only === undefined || only.includes(c.name));
const { runs, minMs, maxRuns, budgetMs, capMs, maxChunks, fullGc, warmMs, warmRuns } = params;
const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');

const post = (message) => parentPort.postMessage(message);
const heapUsed = () => process.memoryUsage().heapUsed;
/** heapUsed without V8's new space (the nursery of small young objects, mostly garbage between scavenges). */
const heapOutsideNewSpace = () => {
  let used = 0;
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name !== 'new_space') used += space.space_used_size;
  return used;
};

const spec = WORKLOADS[workload];
const data = spec.make(scale * sizeScale);
const warmData = spec.make(sizeScale / 20);
// Only the long line is over sseFrames' default 16 MiB event cap (at x4): the cap is raised for the
// whole workload, at both scales, so that x1 and x4 run the same configuration.
const ctxBase = { sseOptions: workload === 'long-line' ? { maxEventSize: 1024 * 1024 * 1024 } : undefined };
post({ type: 'info', bytes: data.bytes.length, events: data.events, expected: data.expected, maxEventChars: data.maxEventChars });

function check(name, result, expected, events) {
  // The decode floor parses nothing: it counts the events it found.
  if (result.events !== undefined) {
    if (result.events !== events) throw new Error(`result differs: ${name} found ${result.events} events, expected ${events}`);
    return;
  }
  const text = result.text;
  const args = result.args;
  if (text !== expected.text || args.length !== expected.args.length || args.some((a, i) => a !== expected.args[i])) {
    const got = JSON.stringify({ text, args: args.length > 4 ? [...args.slice(0, 4), `… ${args.length} calls`] : args });
    const want = JSON.stringify({
      text: expected.text,
      args: expected.args.length > 4 ? [...expected.args.slice(0, 4), `… ${expected.args.length} calls`] : expected.args,
    });
    throw new Error(`result differs: ${name} assembled ${got}, expected ${want}`);
  }
}

/** One run of `contender` over `chunks`: { ms } or { budget: true }; throws on a wrong result. */
async function runOnce(contender, chunks, expected, events, phase, chunkSize) {
  // A collection of the young generation before each timed run, so that no run pays for the young
  // garbage of the one before; not before warm-ups. Not a full GC (BENCH_GC=full brings it back): a
  // full GC drops the hidden classes that only dead objects had, and the code optimized for them,
  // and changes allocation sites' tenuring, so the run after it is slower than any run between two
  // of V8's own collections (BENCHMARKS.md, "How it is measured"). What a contender leaves in the old
  // generation is its own (a worker measures one), collected when V8 decides, as in a process.
  if (phase === 'timed') gc(fullGc ? undefined : { type: 'minor' });
  post({ type: 'run', phase, contender: contender.name, chunkSize });
  const start = performance.now();
  const ctx = { ...ctxBase, deadline: start + budgetMs };
  let result;
  try {
    result = await contender.run(chunks, ctx);
  } catch (error) {
    if (error instanceof BudgetExceeded) {
      post({ type: 'ran' });
      return { budget: true };
    }
    post({ type: 'ran' });
    throw error;
  }
  const ms = performance.now() - start;
  post({ type: 'ran' });
  check(contender.name, contender.measure(result), expected, events);
  return ms > budgetMs ? { budget: true } : { ms };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The bytes a string takes in V8's heap: one per character if all are Latin-1, else two. */
const BEYOND_LATIN1 = /[^\x00-\xff]/; // eslint-disable-line no-control-regex -- the range starts at NUL by definition
const stringBytes = (s) => (s ? s.length * (BEYOND_LATIN1.test(s) ? 2 : 1) : 0);

function memoryRun(name, chunks, chunkSize) {
  const start = MEMORY_CONTENDERS[name];
  const every = Math.max(1, Math.floor(chunks.length / 1000));
  gc();
  gc();
  const baseline = heapUsed();
  const baselineOld = heapOutsideNewSpace();
  post({ type: 'run', phase: 'memory', contender: name, chunkSize });
  let peak = baseline;
  let peakOld = baselineOld;
  const sample = () => {
    const used = heapUsed();
    if (used > peak) peak = used;
    const old = heapOutsideNewSpace();
    if (old > peakOld) peakOld = old;
  };
  const driver = start({ ...ctxBase });
  for (let i = 0; i < chunks.length; i++) {
    driver.push(chunks[i]);
    if (i % every === 0) sample();
  }
  const result = driver.end();
  sample();
  post({ type: 'ran' });
  gc();
  gc();
  const retained = heapUsed() - baseline;
  // The completion's text and arguments as stored (read after the GC, so `result` is still
  // referenced when `retained` is measured). The floor keeps only counts.
  const payload = name === 'floor' ? 0 : stringBytes(result.content) + result.toolCalls.reduce((n, c) => n + stringBytes(c.arguments), 0);
  return { peak: peak - baseline, peakOld: peakOld - baselineOld, retained, payload };
}

for (const chunkSize of chunkSizes) {
  const count = chunkSize === 'event' ? data.events : Math.ceil(data.bytes.length / chunkSize);
  if (count > maxChunks) {
    post({ type: 'cell', chunkSize, skipped: `${count} chunks, over the cap of ${maxChunks} (BENCH_MAX_CHUNKS)` });
    continue;
  }
  const chunks = chunk(data, chunkSize);
  const warmChunks = chunk(warmData, chunkSize);
  const results = {};
  const active = [];
  for (const contender of MINE) {
    const r = (results[contender.name] = { status: 'ok', samples: [] });
    if (exclude[chunkSize]?.includes(contender.name)) r.status = 'budget';
    else if (overBudgetAtX1[chunkSize]?.includes(contender.name)) r.status = 'budget-x1';
    else active.push(contender);
  }
  // Warm-up: once each, on the small input. Over the budget there means over it on the real input,
  // which is at least 20 times larger.
  for (const contender of [...active]) {
    try {
      const warm = await runOnce(contender, warmChunks, warmData.expected, warmData.events, 'warmup', chunkSize);
      if (warm.budget) {
        results[contender.name].status = 'budget-warmup';
        active.splice(active.indexOf(contender), 1);
      }
    } catch (error) {
      results[contender.name] = { status: 'error', samples: [], error: String(error?.stack ?? error) };
      active.splice(active.indexOf(contender), 1);
    }
  }
  // Then on the real input, untimed, until the runs add up to warmMs or warmRuns runs: V8 settles
  // (tiers up, sizes its young generation) over several runs, and a few runs on a small input leave
  // the first dozen timed ones of a fast contender up to half as slow again as the rest.
  for (const contender of [...active]) {
    let spent = 0;
    for (let n = 0; n < warmRuns && spent < warmMs; n++) {
      try {
        const warm = await runOnce(contender, chunks, data.expected, data.events, 'warmup', chunkSize);
        if (warm.budget) {
          results[contender.name].status = 'budget';
          active.splice(active.indexOf(contender), 1);
          break;
        }
        spent += warm.ms;
      } catch (error) {
        results[contender.name] = { status: 'error', samples: [], error: String(error?.stack ?? error) };
        active.splice(active.indexOf(contender), 1);
        break;
      }
    }
  }
  // One stream of each contender stays open through the timed runs (see `hold` in contenders.mjs),
  // fed all of the warm-up input but its last chunk.
  let held = [];
  for (const contender of active) held.push(await contender.hold(warmChunks.slice(0, -1), { ...ctxBase }));
  // What the warm-ups and the chunk arrays left behind, collected once before the timed rounds.
  gc();
  // Timed rounds: each active contender once per round, the order rotating.
  for (let round = 0; active.length > 0; round++) {
    const order = active.map((_, i) => active[(i + round) % active.length]);
    for (const contender of order) {
      const r = results[contender.name];
      try {
        const run = await runOnce(contender, chunks, data.expected, data.events, 'timed', chunkSize);
        if (run.budget) r.status = 'budget';
        else r.samples.push(run.ms);
      } catch (error) {
        r.status = 'error';
        r.error = String(error?.stack ?? error);
      }
      const sum = r.samples.reduce((a, b) => a + b, 0);
      const enough = (r.samples.length >= runs && sum >= minMs) || r.samples.length >= maxRuns || sum >= capMs;
      if (r.status !== 'ok' || enough) active.splice(active.indexOf(contender), 1);
    }
  }
  // The cold start: the first reply after a full GC in a process that was quiet in between. A full GC
  // drops the hidden classes only dead objects had and the optimized code that depends on them, so
  // this run pays for what a warm one finds ready. The contenders named in `cold.contenders` that ran
  // without fault, in turn (the order alternating), `cold.rounds` times each.
  const coldSamples = {};
  if (cold?.sizes.includes(chunkSize)) {
    const coldOnes = MINE.filter((c) => cold.contenders.includes(c.name) && results[c.name].status === 'ok');
    for (let round = 0; round < cold.rounds && coldOnes.length; round++) {
      for (const contender of round % 2 ? [...coldOnes].reverse() : coldOnes) {
        gc();
        await sleep(cold.idleMs);
        try {
          const run = await runOnce(contender, chunks, data.expected, data.events, 'cold', chunkSize);
          if (!run.budget) (coldSamples[contender.name] ??= []).push(run.ms);
        } catch (error) {
          results[contender.name].status = 'error';
          results[contender.name].error = `cold run: ${String(error?.stack ?? error)}`;
        }
      }
    }
  }
  // Dropped here, so that the memory runs below do not count the streams held open for the timings.
  held = []; // eslint-disable-line no-useless-assignment
  for (const r of Object.values(results)) if (r.status === 'ok') r.median = median(r.samples);
  const memory = {};
  // The memory runs are taken once per cell (a repeated worker only adds timings).
  for (const name of memoryRuns ? Object.keys(MEMORY_CONTENDERS) : []) {
    if (results[name]?.status !== 'ok') continue;
    try {
      // Twice, keeping the run that retained less (see "How it is measured" in BENCHMARKS.md).
      const first = memoryRun(name, chunks, chunkSize);
      const second = memoryRun(name, chunks, chunkSize);
      memory[name] = second.retained < first.retained ? second : first;
    } catch (error) {
      memory[name] = { error: String(error?.stack ?? error) };
    }
  }
  post({ type: 'cell', chunkSize, chunks: chunks.length, results, memory, cold: coldSamples });
}
post({ type: 'end' });
