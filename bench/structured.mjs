// Structured output as it streams: JSON answers of 12.5 KB to 1 MB in token-sized content deltas
// (1 to 7 characters, as OpenAI sends them), previewed after every delta and checked by a zod schema
// at the end, three ways, over the same bytes:
//
// - this library: decodeUtf8, sseFrames, assembleChunks, scanStructuredOutput({ schema }) (each
//   character read once; the schema checks the result once);
// - the `openai` SDK: `chat.completions.stream()` with `response_format: zodResponseFormat(...)`,
//   whose `content.delta` events carry `parsed`, the SDK's `partialParse` of the whole content so far
//   (its fetch is given the same body; nothing leaves the process);
// - the `ai` package's loop behind `streamObject`: `parsePartialJson` of the whole text so far after
//   every delta, `isDeepEqualData` against the last value, the schema at the end.
//
// The floors, measured in the same run: one `JSON.parse` of the whole answer, and the library's
// pipeline to a `Completion` with no preview (what reading the stream costs at all). The peers re-read
// the text so far at every delta, so their cost grows with the square of the length: each size is run
// in full while the run fits BUDGET_MS (default 30 s); past it, the time is extrapolated from the
// largest size measured, by the exponent measured between the two largest (marked "≈").
// Build first: `npm run build && node bench/structured.mjs`. Not a test: nothing asserts on time.
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { isDeepEqualData, parsePartialJson } from 'ai';
import { from } from 'rxjs';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import { assembleChunks, decodeUtf8, finalizeCompletion, scanStructuredOutput, sseFrames } from '../dist/esm/index.js';

// The installed version, from the package's own file (neither package exports its package.json).
const versionOf = (name) => JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;

const BUDGET_MS = Number(process.env.BUDGET_MS ?? 30_000);
const Item = z.object({ id: z.number(), name: z.string(), price: z.number(), tags: z.array(z.string()), ok: z.boolean(), note: z.null() });
const Answer = z.object({ title: z.string(), items: z.array(Item) });

/** About `size` characters of JSON answer: records with strings, escapes, numbers, literals. */
function answerText(size) {
  const items = [];
  let length = 40;
  for (let i = 0; length < size; i++) {
    const item = { id: i, name: `item ${i}: caf\u00e9 "special"`, price: i * 1.25, tags: ['alpha', 'beta'], ok: i % 2 === 0, note: null };
    length += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify({ title: 'A long structured answer', items });
}

/** The text cut into 1-7 character deltas, the same way every run. */
function deltasOf(text) {
  const deltas = [];
  let state = 7;
  for (let start = 0; start < text.length;) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 7);
    deltas.push(text.slice(start, start + size));
    start += size;
  }
  return deltas;
}

/** An OpenAI Chat Completions SSE body with those deltas as content, in 16 KiB chunks. */
function bodyOf(deltas) {
  const envelope = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test' };
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const text =
    chunk({ role: 'assistant', content: '' }) +
    deltas.map((content) => chunk({ content })).join('') +
    chunk({}, 'stop') +
    'data: [DONE]\n\n';
  const bytes = new TextEncoder().encode(text);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 16384) chunks.push(bytes.subarray(i, i + 16384));
  return chunks;
}

async function library(chunks) {
  let previews = 0;
  let last;
  await new Promise((resolve, reject) =>
    from(chunks)
      .pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanStructuredOutput({ schema: Answer }))
      .subscribe({ next: (snapshot) => ((last = snapshot), previews++), error: reject, complete: resolve }),
  );
  return { previews, items: last.value.items.length };
}

async function openaiSdk(chunks) {
  const client = new OpenAI({
    apiKey: 'bench',
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: async () =>
      new Response(new ReadableStream({ start: (c) => (chunks.forEach((x) => c.enqueue(x)), c.close()) }), {
        headers: { 'content-type': 'text/event-stream' },
      }),
  });
  const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [], response_format: zodResponseFormat(Answer, 'answer') });
  let previews = 0;
  stream.on('content.delta', ({ parsed }) => {
    if (parsed !== null && parsed !== undefined) previews++;
  });
  // A prefix of the answer (a budgeted run) is not JSON at its end: the SDK's final parse refuses it.
  stream.on('error', () => {});
  const final = await stream.finalChatCompletion().catch(() => undefined);
  return { previews, items: final?.choices[0].message.parsed?.items.length };
}

async function aiSdk(deltas) {
  let text = '';
  let last;
  let previews = 0;
  for (const delta of deltas) {
    text += delta;
    const { value } = await parsePartialJson(text);
    if (value !== undefined && !isDeepEqualData(last, value)) {
      last = value;
      previews++;
    }
  }
  // As streamObject ends: the whole text parsed and checked (a budgeted prefix is not JSON: no result).
  const whole = await parsePartialJson(text);
  const checked = whole.state === 'successful-parse' ? Answer.safeParse(whole.value) : undefined;
  return { previews, items: checked?.success ? checked.data.items.length : undefined };
}

/** The same bytes to a `Completion` with no preview at all: what reading the stream costs before any structured output. */
async function plain(chunks) {
  await new Promise((resolve, reject) =>
    from(chunks).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()).subscribe({ error: reject, complete: resolve }),
  );
}

function floor(text) {
  return JSON.parse(text).items.length;
}

async function time(run) {
  const start = process.hrtime.bigint();
  const result = await run();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
// How each cost grows: every contender on answers of 12.5, 25, 50 and 100 KB, and 1 MB, measured in
// full while a run stays within the budget; past it, the time is extrapolated from the largest size
// measured, by the exponent measured between the two largest (marked "≈").
const SIZES = [12.5, 25, 50, 100, 1024].map((kb) => Math.round(kb * 1024));
const inputs = SIZES.map((size) => {
  const text = answerText(size);
  const deltas = deltasOf(text);
  return { size, text, deltas, chunks: bodyOf(deltas) };
});
await library(inputs[0].chunks); // warm up
// The library's rows: the best of three runs.
const best = async (run) => [await time(run), await time(run), await time(run)].sort((a, b) => a.ms - b.ms)[0];
const contenders = [
  { name: 'floor: one JSON.parse of the whole answer', run: async (input) => floor(input.text), repeat: true },
  { name: 'rxjs-llm-stream to a Completion, no previews', run: (input) => plain(input.chunks), repeat: true },
  { name: 'rxjs-llm-stream scanStructuredOutput', run: (input) => library(input.chunks), repeat: true },
  { name: `openai ${versionOf('openai')} stream + zodResponseFormat`, run: (input) => openaiSdk(input.chunks) },
  { name: `ai ${versionOf('ai')} parsePartialJson per delta`, run: (input) => aiSdk(input.deltas) },
];
const table = [];
for (const contender of contenders) {
  const row = [];
  for (const input of inputs) {
    const measured = row.filter((cell) => !cell.estimated);
    const last = measured[measured.length - 1];
    if (last !== undefined && !contender.repeat && last.ms * (input.size / last.size) ** 2 > BUDGET_MS) {
      // Past the budget: extrapolate by the growth measured between the two largest sizes run.
      const before = measured[measured.length - 2] ?? last;
      const exponent = before === last ? 2 : Math.log(last.ms / before.ms) / Math.log(last.size / before.size);
      row.push({ size: input.size, ms: last.ms * (input.size / last.size) ** exponent, estimated: true });
      continue;
    }
    const { ms } = contender.repeat ? await best(() => contender.run(input)) : await time(() => contender.run(input));
    row.push({ size: input.size, ms });
  }
  table.push({ name: contender.name, row });
}
const kb = (size) => (size >= 1024 * 1024 ? `${size / 1024 / 1024} MB` : `${(size / 1024).toFixed(1)} KB`);
console.log(`answers in 1-7 character deltas (${inputs.map((input) => `${kb(input.size)}: ${input.deltas.length}`).join(', ')} deltas)\n`);
console.log(`${''.padEnd(46)}${inputs.map((input) => kb(input.size).padStart(14)).join('')}   growth (two largest measured)`);
for (const { name, row } of table) {
  const cells = row.map((cell) => ((cell.estimated ? '≈ ' : '') + fmt(cell.ms)).padStart(14)).join('');
  const measured = row.filter((cell) => !cell.estimated);
  const [before, last] = measured.slice(-2);
  const growth = Math.log(last.ms / before.ms) / Math.log(last.size / before.size);
  console.log(`${name.padEnd(46)}${cells}   n^${growth.toFixed(2)} (${kb(before.size)} → ${kb(last.size)})`);
}
const ours = table[2].row;
console.log(
  `\nat 1 MB, against scanStructuredOutput: ${table
    .slice(3)
    .map(({ name, row }) => `${name}: ${(row[4].ms / ours[4].ms).toFixed(0)}×`)
    .join('; ')}`,
);
console.log('≈: extrapolated from the largest size measured within the budget, by the exponent measured below it.');
