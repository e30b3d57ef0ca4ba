// Reads UI message streams with the `ai` package's current major (7, installed as the alias
// `ai-current`), as its chat transport does: `parseJsonEventStream` with the strict
// `uiMessageChunkSchema` (a chunk the schema refuses fails the stream), then `readUIMessageStream`.
// ai 7 ships only ES modules and needs Node 22, which the specs' CommonJS runtime cannot load, so a
// spec runs this script as a child process on Node 22 or later:
//
//   node spec/support/aiCurrentClient.mjs < {"<case>": "<SSE text>", ...}
//
// and reads one JSON line from its stdout: { version, results: { "<case>": { chunks, message, errors } } }
// where `errors` are the messages `readUIMessageStream` reported, in order.
import { readFileSync } from 'node:fs';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from 'ai-current';

const { version } = JSON.parse(readFileSync(new URL('../../node_modules/ai-current/package.json', import.meta.url), 'utf8'));

async function read(sse) {
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(sse));
      controller.close();
    },
  });
  const chunks = [];
  const stream = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(part, controller) {
        if (!part.success) throw part.error;
        chunks.push(part.value);
        controller.enqueue(part.value);
      },
    }),
  );
  const errors = [];
  let message = null;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(error?.message ?? String(error)) })) {
    message = snapshot;
  }
  return { chunks, message, errors };
}

let input = '';
for await (const piece of process.stdin) input += piece;
const results = {};
for (const [name, sse] of Object.entries(JSON.parse(input))) results[name] = await read(sse);
console.log(JSON.stringify({ version, results }));
