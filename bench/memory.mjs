// Memory per open stream, layer by layer: what each of the README's five operators holds for a reply
// that is open mid-way (a role chunk and two words read, the stream not ended), over the built
// package. Each row is a fresh process, so that one layer's warm code does not count in another's.
// Run with `npm run bench:memory`. Not a test: nothing here asserts.
//
// How: STREAMS replies are opened after 2,000 to warm up, each a `Subject` of bytes piped through the
// first k operators; the heap after two full GCs, less the heap before them, over STREAMS. The first
// row is the `Subject` and its subscriber alone: the floor every row includes. Each later row's
// "layer" is what that operator adds to the row before it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const STREAMS = Number(process.env['STREAMS'] ?? 20_000);
const LAYERS = ['source alone', 'decodeUtf8', 'sseFrames', 'assembleChunks', 'groupToolCallsByIndex', 'finalizeCompletion'];

if (process.argv[2] === 'measure') {
  const layers = Number(process.argv[3]);
  const { Subject } = await import('rxjs');
  const lib = await import('../dist/esm/index.js');
  const operators = [lib.decodeUtf8, lib.sseFrames, lib.assembleChunks, lib.groupToolCallsByIndex, lib.finalizeCompletion].slice(0, layers);
  const encoder = new TextEncoder();
  const chunk = (delta) =>
    encoder.encode(
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":' +
        `[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":null}],"obfuscation":"x1"}\n\n`,
    );
  const first = chunk({ role: 'assistant', content: '' });
  const word = chunk({ content: ' word' });
  // On the global object: a local the code no longer reads may be collected before the heap is read.
  const open = (globalThis.open = []);
  const openStreams = (count) => {
    for (let i = 0; i < count; i++) {
      const bytes = new Subject();
      const subscription = operators.reduce((stream, operator) => stream.pipe(operator()), bytes).subscribe({ error: console.error });
      bytes.next(first);
      bytes.next(word);
      bytes.next(word);
      open.push(bytes, subscription);
    }
  };
  const heap = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  openStreams(2_000);
  const before = heap();
  openStreams(STREAMS);
  console.log(JSON.stringify({ perStream: (heap() - before) / STREAMS }));
} else {
  const script = fileURLToPath(import.meta.url);
  console.log(`Heap per open stream, ${STREAMS.toLocaleString('en')} streams mid-reply (Node ${process.version})\n`);
  console.log('| operators | heap / stream | the layer adds |');
  console.log('|---|---|---|');
  let previous;
  for (let k = 0; k < LAYERS.length; k++) {
    const out = execFileSync(process.execPath, ['--expose-gc', script, 'measure', String(k)], { encoding: 'utf8' });
    const { perStream } = JSON.parse(out.trim().split('\n').pop());
    const adds = previous === undefined ? '—' : `${Math.round(perStream - previous).toLocaleString('en')} B`;
    console.log(`| ${k === 0 ? LAYERS[0] : `+ ${LAYERS[k]}`} | ${Math.round(perStream).toLocaleString('en')} B | ${adds} |`);
    previous = perStream;
  }
}
