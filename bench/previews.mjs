// The cost of live argument previews: 1 MB of tool-call arguments in 10-byte fragments through
// groupToolCallsByIndex() with previews off and on, over the built package; and, for contrast, the
// naive preview that closes the open brackets and JSON.parses the whole text so far on every
// fragment (quadratic, so on a smaller input, the same input timed with previews on beside it).
// Build first: `npm run build && node bench/previews.mjs`. Prints the median of RUNS runs (default 7).
// Not a test: nothing here asserts on time.
import { from, map } from 'rxjs';
import { groupToolCallsByIndex, toolCallPreviews } from '../dist/esm/index.js';

/** About `size` characters of arguments: records with strings, escapes, numbers, literals, nesting. */
function argumentsText(size) {
  const items = [];
  let length = 12;
  for (let i = 0; length < size; i++) {
    const item = {
      id: i,
      name: `item ${i}: caf\u00e9 "special"\n`,
      price: i * 1.25,
      tags: ['alpha', 'beta'],
      ok: i % 2 === 0,
      note: null,
      at: { x: i, y: -i },
    };
    length += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify({ items });
}

/** The events of one call whose arguments arrive in `size`-character fragments, then its finish. */
function events(text, size) {
  const list = [];
  for (let i = 0; i < text.length; i += size) {
    list.push({
      type: 'tool-call-delta',
      choice: 0,
      index: 0,
      ...(i === 0 ? { id: 'call_1', name: 'save' } : {}),
      arguments: text.slice(i, i + size),
    });
  }
  list.push({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' });
  return list;
}

/**
 * What peers do: scan the whole text so far for open strings and brackets, close them, JSON.parse.
 * A text that still does not parse (it ends after a key, a colon, a comma, inside a number or
 * literal) keeps the previous preview.
 */
function naivePreview(text, previous) {
  const closers = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') closers.push('}');
    else if (c === '[') closers.push(']');
    else if (c === '}' || c === ']') closers.pop();
  }
  let closed = text;
  if (inString) closed += escaped ? '\\"' : '"';
  closed = closed.replace(/[,:\s]+$/, '');
  try {
    return JSON.parse(closed + closers.reverse().join(''));
  } catch {
    return previous;
  }
}

function naive() {
  let previous;
  return map((event) => {
    if (event.type !== 'tool-call-delta') return event;
    previous = naivePreview(event.call.arguments, previous);
    return { ...event, call: { ...event.call, preview: previous } };
  });
}

/** Runs a synchronous pipeline to its end; returns the last preview and the parsed arguments. */
function drain(list, ...operators) {
  let preview;
  let args;
  let failure;
  from(list)
    .pipe(...operators)
    .subscribe({
      next: (event) => {
        if (event.type === 'tool-call-delta') preview = event.call.preview;
        else if (event.type === 'tool-call') args = event.call.args;
      },
      error: (error) => (failure = error),
    });
  if (failure !== undefined) throw failure;
  return { preview, args };
}

function time(fn, runs) {
  const samples = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    result = fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], result };
}

const runs = Number(process.env.RUNS ?? 7);
const FRAGMENT = 10;
const rows = [];

function measure(label, text, runsHere, ...operators) {
  const list = events(text, FRAGMENT);
  const { ms, result } = time(() => drain(list, ...operators), runsHere);
  rows.push({
    workload: label,
    chars: text.length,
    fragments: list.length - 1,
    'median ms': +ms.toFixed(1),
    'MB/s': +(text.length / 1e3 / ms).toFixed(3),
  });
  return { ms, result };
}

const big = argumentsText(1_000_000);
const off = measure('1 MB, previews off', big, runs, groupToolCallsByIndex());
const on = measure('1 MB, previews on', big, runs, groupToolCallsByIndex({ previews: toolCallPreviews() }));
if (off.result.preview !== undefined) throw new Error('a preview appeared with previews off');
if (JSON.stringify(on.result.preview) !== JSON.stringify(JSON.parse(big))) throw new Error('the last preview is not the parsed arguments');

const small = argumentsText(Number(process.env.NAIVE_SIZE ?? 100_000));
const smallOn = measure(`${small.length / 1e3} kB, previews on`, small, runs, groupToolCallsByIndex({ previews: toolCallPreviews() }));
const smallNaive = measure(`${small.length / 1e3} kB, naive re-parse`, small, Math.min(runs, 3), groupToolCallsByIndex(), naive());
if (JSON.stringify(smallNaive.result.preview) !== JSON.stringify(smallOn.result.preview))
  throw new Error('the naive preview ends elsewhere');

console.log(`node ${process.version}, ${FRAGMENT}-character fragments, median of ${runs} runs (naive: ${Math.min(runs, 3)})`);
console.table(rows);
console.log(`previews on / off (1 MB): ${(on.ms / off.ms).toFixed(2)}x`);
console.log(`naive / incremental (${small.length / 1e3} kB): ${(smallNaive.ms / smallOn.ms).toFixed(1)}x`);
const scale = (big.length / small.length) ** 2;
console.log(`naive at 1 MB, extrapolated (quadratic, x${scale.toFixed(0)}): about ${((smallNaive.ms * scale) / 1e3).toFixed(0)} s`);
