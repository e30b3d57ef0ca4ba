// Writes UI message streams with the `ai` package's current major (7, installed as the alias
// `ai-current`): `streamText` over its mock language model, which streams the parts it is given,
// then `toUIMessageStreamResponse()`, as an AI SDK backend answers `useChat`. ai 7 ships only ES
// modules and needs Node 22, which the specs' CommonJS runtime cannot load, so a spec runs this
// script as a child process on Node 22 or later:
//
//   node spec/support/aiCurrentServer.mjs < {"<case>": [<language model stream part>, ...], ...}
//
// (an `error` part's `error` is written as { message } and thrown as an Error) and reads one JSON
// line from its stdout: { version, results: { "<case>": { headers, body } } }, the response's
// headers and its whole body text.
import { readFileSync } from 'node:fs';
import { jsonSchema, simulateReadableStream, streamText, tool } from 'ai-current';
import { MockLanguageModelV4 } from 'ai-current/test';

const { version } = JSON.parse(readFileSync(new URL('../../node_modules/ai-current/package.json', import.meta.url), 'utf8'));

async function respond(parts) {
  const chunks = parts.map((part) => (part.type === 'error' ? { ...part, error: new Error(part.error.message) } : part));
  const model = new MockLanguageModelV4({ doStream: async () => ({ stream: simulateReadableStream({ chunks }) }) });
  const result = streamText({
    model,
    prompt: 'hi',
    onError: () => undefined,
    tools: {
      get_weather: tool({ inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }) }),
      get_time: tool({ inputSchema: jsonSchema({ type: 'object', properties: { tz: { type: 'string' } } }) }),
    },
  });
  const response = result.toUIMessageStreamResponse({
    sendReasoning: true,
    generateMessageId: () => 'msg-1',
    onError: (error) => (error instanceof Error ? error.message : 'failed'),
  });
  return { headers: Object.fromEntries(response.headers), body: await response.text() };
}

let input = '';
for await (const piece of process.stdin) input += piece;
const results = {};
for (const [name, parts] of Object.entries(JSON.parse(input))) results[name] = await respond(parts);
console.log(JSON.stringify({ version, results }));
