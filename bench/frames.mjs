// Throughput of the byte and frame layers (decodeUtf8 + sseFrames), and of the whole pipeline to a
// Completion, over the built package.
// Run with `npm run bench:frames`. Prints MB/s and the ratio to a floor measured in the same run:
// one streaming TextDecoder plus a split on blank lines (what any SSE client must at least do).
// Not a test: nothing here asserts on time.
import { from } from 'rxjs';
import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from '../dist/esm/index.js';

const encoder = new TextEncoder();

/** About `megabytes` MB of OpenAI chat chunks with multi-byte text, generated deterministically. */
function openAiStream(megabytes) {
  const words = ['hello', 'café', 'naïve', '中文', 'straße', '😀', 'token', 'stream', 'ünïcödé', 'der'];
  const parts = [];
  let size = 0;
  for (let i = 0; size < megabytes * 1e6; i++) {
    const text = `${words[i % words.length]} ${words[(i * 7) % words.length]} `;
    const line =
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":' +
      `[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
    parts.push(line);
    size += line.length;
  }
  parts.push(
    'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":' +
      '[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n',
  );
  parts.push('data: [DONE]\n\n');
  return encoder.encode(parts.join(''));
}

/** One `data` line of `megabytes` MB. */
function singleLine(megabytes) {
  return encoder.encode(`data: ${'x'.repeat(megabytes * 1e6)}\n\n`);
}

function chunk(bytes, size) {
  const pieces = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

function floor(pieces) {
  const decoder = new TextDecoder();
  let pending = '';
  let events = 0;
  for (const piece of pieces) {
    const text = pending + decoder.decode(piece, { stream: true });
    const blocks = text.split('\n\n');
    pending = blocks.pop();
    events += blocks.length;
  }
  return events;
}

/** The floor for a whole pipeline: decode, split, and JSON.parse every payload once. */
function parseFloor(pieces) {
  const decoder = new TextDecoder();
  let pending = '';
  let chars = 0;
  for (const piece of pieces) {
    const text = pending + decoder.decode(piece, { stream: true });
    const blocks = text.split('\n\n');
    pending = blocks.pop();
    for (const block of blocks) {
      const data = block.slice(6);
      if (data !== '[DONE]') chars += JSON.parse(data).choices[0].delta.content.length;
    }
  }
  return chars;
}

/** Runs a synchronous pipeline; rethrows its error here rather than as an unhandled one later. */
function drain(observable, onValue) {
  let failure;
  observable.subscribe({ next: onValue, error: (error) => (failure = error) });
  if (failure !== undefined) throw failure;
}

function completion(pieces) {
  let chars = 0;
  drain(from(pieces).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()), (c) => (chars = c.content.length));
  return chars;
}

function library(pieces) {
  let events = 0;
  drain(from(pieces).pipe(decodeUtf8(), sseFrames()), () => events++);
  return events;
}

function time(fn, pieces, runs) {
  const samples = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    result = fn(pieces);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], result };
}

const runs = Number(process.env.RUNS ?? 5);
const rows = [];
function measure(name, bytes, chunkSize, withFloor = true, fn = library, floorFn = floor) {
  const pieces = chunk(bytes, chunkSize);
  const lib = time(fn, pieces, runs);
  const row = {
    workload: name,
    chunk: chunkSize,
    MB: +(bytes.length / 1e6).toFixed(1),
    'lib MB/s': +(bytes.length / 1e3 / lib.ms).toFixed(1),
    'lib ms': +lib.ms.toFixed(1),
    result: lib.result,
  };
  if (withFloor) {
    const base = time(floorFn, pieces, runs);
    if (base.result !== lib.result) throw new Error(`results differ: floor ${base.result}, library ${lib.result}`);
    row['floor ms'] = +base.ms.toFixed(1);
    row['ratio to floor'] = +(lib.ms / base.ms).toFixed(2);
  }
  rows.push(row);
}

const stream = openAiStream(20);
measure('20 MB OpenAI chunks', stream, 16 * 1024);
measure('20 MB OpenAI chunks', stream, 7);
// The whole pipeline to one Completion, next to decode + split + JSON.parse of every payload.
measure('20 MB -> Completion', stream, 16 * 1024, true, completion, parseFloor);
measure('20 MB -> Completion', stream, 7, true, completion, parseFloor);
// The floor's `pending + text` rescans a pending line on every piece, so it is quadratic on one long
// line: there, only the library is timed, and linearity shows as 10 MB costing about 10x 1 MB.
measure('1 MB single data line', singleLine(1), 7, false);
measure('10 MB single data line', singleLine(10), 7, false);
console.log(`node ${process.version}, ${runs} runs each, median`);
console.table(rows);
const [one, ten] = rows.slice(-2);
console.log(`10 MB line / 1 MB line time: ${(ten['lib ms'] / one['lib ms']).toFixed(2)}x (linear is about 10x)`);
