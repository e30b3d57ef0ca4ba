import { execFileSync } from 'child_process';
import { join } from 'path';
import { pathToFileURL } from 'url';

/** bench/cpuProfileSummary.mjs is an ES module of the benchmarks: it runs in a child Node, as the bench runs it. */
const summarizer = pathToFileURL(join(__dirname, '..', '..', 'bench', 'cpuProfileSummary.mjs')).href;

function summarize(
  profile: unknown,
): { kinds: { kind: string; micros: number }[]; files: { file: string; micros: number }[] } & Record<string, number> {
  const code = `import { summarizeProfile } from ${JSON.stringify(summarizer)};
process.stdout.write(JSON.stringify(summarizeProfile(JSON.parse(process.argv[1]))));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(profile)], { encoding: 'utf8' }));
}

const frame = (id: number, functionName: string, url: string) => ({
  id,
  callFrame: { functionName, scriptId: '0', url, lineNumber: 0, columnNumber: 0 },
});

// Eight samples; each lasts until the next one, the last until the profile's end (12,800 µs later).
const profile = {
  nodes: [
    frame(1, '(root)', ''),
    frame(2, 'next', 'file:///repo/dist/esm/frames/sseFrames.js'),
    frame(3, 'Subscriber.next', 'file:///repo/node_modules/rxjs/dist/cjs/internal/Subscriber.js'),
    frame(4, '(idle)', ''),
    frame(5, '(garbage collector)', ''),
    frame(6, 'socketOnData', 'node:_http_client'),
    frame(7, 'emit', 'node:events'),
    frame(8, 'next', 'file:///repo/node_modules/.cache/rxjs-llm-stream-bench/123/esm/reply/foldCompletion.js'),
  ],
  startTime: 1000,
  samples: [2, 3, 4, 5, 2, 6, 7, 8],
  timeDeltas: [10, 100, 200, 400, 800, 1600, 3200, 6400],
  endTime: 1000 + 12710 + 12800,
};

describe('bench/cpuProfileSummary.mjs', () => {
  it('sums self time by kind, each sample lasting until the next, idle apart from the busy time', () => {
    const summary = summarize(profile);
    expect(summary.totalMicros).toBe(25500);
    expect(summary.idleMicros).toBe(400);
    expect(summary.busyMicros).toBe(25100);
    expect(Object.fromEntries(summary.kinds.map((k) => [k.kind, k.micros]))).toEqual({
      'this library': 100 + 1600 + 12800,
      rxjs: 200,
      'V8: garbage collector': 800,
      'node: the transport (http, net, streams)': 3200,
      'node: other internals (events, timers, queues…)': 6400,
    });
  });

  it("counts the library by file, its bench snapshot's files as its own", () => {
    const files = Object.fromEntries(summarize(profile).files.map((f) => [f.file, f.micros]));
    expect(files['frames/sseFrames.js']).toBe(1700);
    expect(files['reply/foldCompletion.js']).toBe(12800);
    expect(files['rxjs: internal/Subscriber.js']).toBe(200);
  });

  it('names a sample of a node the profile does not list', () => {
    expect(() => summarize({ ...profile, samples: [2, 99], timeDeltas: [1, 1] })).toThrow(/sample of node 99/);
  });
});
