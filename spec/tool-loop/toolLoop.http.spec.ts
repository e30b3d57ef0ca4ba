import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { from, lastValueFrom, switchMap, throwError, toArray } from 'rxjs';
import { z } from 'zod';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import { ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import type { ProviderFormat } from '../../src/dialects/writing/wire';
import { fromResponse } from '../../src/io/fromResponse';
import { providerStream } from '../../src/testing/writeProviderStream';
import {
  anthropicLoop,
  bedrockConverseLoop,
  bedrockInvokeLoop,
  geminiLoop,
  ollamaLoop,
  openaiChatLoop,
  openaiResponsesLoop,
} from '../../src/tool-loop/loopFormats';
import { toolLoop, type ToolLoopRequestContext } from '../../src/tool-loop/toolLoop';
import { isToolLoopPartial, type ToolLoopEvent } from '../../src/tool-loop/ToolLoopEvent';
import type { ToolLoopFormat } from '../../src/tool-loop/ToolLoopFormat';

// The loop end to end: `fetch` to a node:http server on 127.0.0.1 that plays the provider, answering
// each step from the conversation it receives (calls first; once the results are in, a text made of
// them), its replies written by the test kit in the provider's format, cut at random places.

type Json = { readonly [key: string]: unknown };

/** The fake provider of one format: whether the conversation holds results yet, and what they say. */
interface FakeProvider {
  readonly format: ProviderFormat;
  /** The results of the last step as `city: output` lines, or undefined when the last message holds none. */
  readonly results: (messages: readonly Json[]) => string[] | undefined;
}

/** The outputs the conversation's results carry (`4 C`, ...), in the order they are in, once there are results. */
function outputsInOrder(messages: readonly Json[]): string[] | undefined {
  if (messages.length <= 1) return undefined;
  return [...JSON.stringify(messages.slice(1)).matchAll(/\d+ C/g)].map((match) => match[0]);
}

type Name = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini' | 'ollama' | 'bedrock-converse' | 'bedrock-invoke';

const PROVIDERS: Record<Name, FakeProvider> = {
  'openai-responses': { format: 'openai-responses', results: outputsInOrder },
  gemini: { format: 'gemini', results: outputsInOrder },
  ollama: { format: 'ollama', results: outputsInOrder },
  'bedrock-converse': { format: 'bedrock-converse', results: outputsInOrder },
  'bedrock-invoke': { format: 'bedrock-invoke', results: outputsInOrder },
  'openai-chat': {
    format: 'openai-chat',
    results: (messages) => {
      const tools = [];
      for (let i = messages.length - 1; i >= 0 && messages[i]!['role'] === 'tool'; i--) tools.unshift(messages[i]!);
      return tools.length === 0 ? undefined : tools.map((message) => `${String(message['tool_call_id'])}=${String(message['content'])}`);
    },
  },
  anthropic: {
    format: 'anthropic',
    results: (messages) => {
      const last = messages.at(-1)!;
      const blocks = Array.isArray(last['content']) ? (last['content'] as Json[]) : [];
      const results = blocks.filter((block) => block['type'] === 'tool_result');
      return results.length === 0 ? undefined : results.map((block) => `${String(block['tool_use_id'])}=${String(block['content'])}`);
    },
  },
};

/** The provider's first reply: two weather calls; then a text of the results it received. */
function replyTo(provider: FakeProvider, messages: readonly Json[]): TestReply {
  const results = provider.results(messages);
  if (results === undefined) {
    return {
      choices: [
        {
          text: 'Let me look.',
          toolCalls: [
            { id: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
          ],
        },
      ],
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
    };
  }
  return { choices: [{ text: results.join('; ') }], usage: { promptTokens: 40, completionTokens: 12, totalTokens: 52 } };
}

async function readBody(request: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
}

let server: Server;
let url: string;
const received: Json[] = [];
/** Set by a test that wants the server to hold its reply open after the first chunk. */
let holdOpen: ((response: ServerResponse) => void) | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((body) => {
      received.push(body);
      const provider = PROVIDERS[body['provider'] as keyof typeof PROVIDERS];
      // Cut at random places; held open after its first event when a test asks for that.
      const chunking = holdOpen === undefined ? { random: received.length } : ('events' as const);
      const stream = providerStream(replyTo(provider, body['messages'] as Json[]), provider.format, { chunking });
      response.writeHead(200, { 'content-type': stream.contentType });
      if (holdOpen !== undefined) {
        response.write(stream.chunks[0]!);
        return holdOpen(response);
      }
      for (const chunk of stream.chunks) response.write(chunk);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  holdOpen = undefined;
});

/** The request of every step: the conversation posted with `fetch`, its body read by `fromResponse`. */
function post(provider: string) {
  return (messages: readonly unknown[], { signal }: ToolLoopRequestContext) =>
    from(fetch(url, { method: 'POST', body: JSON.stringify({ provider, stream: true, messages }), signal })).pipe(
      switchMap((response) => fromResponse(response)),
    );
}

const TEMPERATURES: Record<string, number> = { Oslo: 4, Paris: 17 };
/** Oslo answers last, so that results finish out of call order. */
const tools = {
  get_weather: {
    schema: z.object({ city: z.string() }),
    execute: ({ city }: { city: string }) =>
      new Promise<string>((resolve) => setTimeout(() => resolve(`${TEMPERATURES[city]} C`), city === 'Oslo' ? 40 : 1)),
  },
};

describe.each([
  // The last text (made by the server of what it received: with the call ids where it reads them), and
  // the conversation at the end by role (or item type): per provider, the turn and the results as its API wants them.
  ['openai-chat', openaiChatLoop, 'call_oslo=4 C; call_paris=17 C', ['user', 'assistant', 'tool', 'tool', 'assistant']],
  ['anthropic', anthropicLoop, 'call_oslo=4 C; call_paris=17 C', ['user', 'assistant', 'user', 'assistant']],
  ['bedrock-invoke', bedrockInvokeLoop, '4 C; 17 C', ['user', 'assistant', 'user', 'assistant']],
  ['bedrock-converse', bedrockConverseLoop, '4 C; 17 C', ['user', 'assistant', 'user', 'assistant']],
  ['gemini', geminiLoop, '4 C; 17 C', ['user', 'model', 'user', 'model']],
  ['ollama', ollamaLoop, '4 C; 17 C', ['user', 'assistant', 'tool', 'tool', 'assistant']],
  [
    'openai-responses',
    openaiResponsesLoop,
    '4 C; 17 C',
    ['user', 'assistant', 'function_call', 'function_call', 'function_call_output', 'function_call_output', 'assistant'],
  ],
] as const satisfies ReadonlyArray<readonly [Name, ToolLoopFormat<unknown>, string, readonly string[]]>)(
  'toolLoop over HTTP, %s',
  (name, loopFormat, text, roles) => {
    const format = loopFormat as ToolLoopFormat<unknown>;
    const question = { role: 'user', content: 'Weather in Oslo and Paris?' };
    it('runs the calls, sends the turn and the results in call order, and ends with the text made of them', async () => {
      const events: ToolLoopEvent<unknown>[] = await lastValueFrom(
        toolLoop({ format, request: post(name), conversation: [question], tools }).pipe(toArray()),
      );
      const finish = events.at(-1)!;
      if (finish.type !== 'loop-finish') throw new Error(`the loop ended with ${finish.type}`);
      // The server's second reply is made of the results it received, in the order it received them.
      expect(finish.completion.content).toBe(text);
      expect(finish.steps.map((step) => [step.step, step.usage?.totalTokens, step.toolCalls])).toEqual([
        [1, 30, 2],
        [2, 52, 0],
      ]);
      expect(received).toHaveLength(2);
      const texts = events.flatMap((event) => (event.type === 'event' && event.event.type === 'content' ? [event.step] : []));
      expect(new Set(texts)).toEqual(new Set([1, 2]));
      // The assistant's turn went back with the calls' ids (Gemini's wire has none: the library names them).
      if (name !== 'gemini') expect(JSON.stringify(received[1]!['messages'])).toContain('call_paris');
      expect(finish.conversation.map((message) => (message as Json)['role'] ?? (message as Json)['type'])).toEqual(roles);
    });

    it('aborts the request in flight when the subscriber leaves: the server sees its connection close', async () => {
      const closed = new Promise<void>((resolve) => {
        holdOpen = (response) => response.on('close', () => resolve());
      });
      const subscription = toolLoop({ format, request: post(name), conversation: [question], tools }).subscribe((event) => {
        if (event.type === 'event') subscription.unsubscribe();
      });
      await closed;
      expect(received).toHaveLength(1);
    });
  },
);

describe('toolLoop, a request that fails before any answer', () => {
  const question = { role: 'user', content: 'Weather in Oslo and Paris?' };
  const format = openaiChatLoop as ToolLoopFormat<unknown>;

  it("ends in a StreamClosedEarlyError (transport) whose cause is fetch's own error, with the conversation so far", async () => {
    // A port nothing listens on any more: fetch rejects before any response.
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1/chat`;
    await new Promise((resolve) => dead.close(resolve));
    const request = (messages: readonly unknown[], context: ToolLoopRequestContext) =>
      context.step === 1
        ? post('openai-chat')(messages, context)
        : from(fetch(deadUrl, { method: 'POST', body: '{}', signal: context.signal })).pipe(
            switchMap((response) => fromResponse(response)),
          );
    const error = await lastValueFrom(toolLoop({ format, request, conversation: [question], tools })).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect(error).toMatchObject({ reason: 'transport' });
    const cause = (error as StreamClosedEarlyError).cause as { name?: string; message?: string };
    expect(cause.name).toBe('TypeError');
    expect((error as Error).message).toContain(cause.message!);
    const partial = (error as StreamClosedEarlyError).partial;
    if (!isToolLoopPartial(partial)) throw new Error("the partial is not the loop's");
    // Step 1 whole: the question, the assistant's turn with its two calls, their two results.
    expect(partial.conversation.map((message) => (message as Json)['role'])).toEqual(['user', 'assistant', 'tool', 'tool']);
    // Each step's usage: step 1's as its reply said, none of step 2, whose request failed.
    expect(partial.steps.map((step) => [step.step, step.usage?.totalTokens ?? null])).toEqual([
      [1, 30],
      [2, null],
    ]);
  });

  it('ends in a ProviderError with the status when the transport raised the answer as an error (an HttpErrorResponse)', async () => {
    // The shape Angular's HttpClient errors with: the status, and the parsed body under `error`.
    const answer = { name: 'HttpErrorResponse', status: 429, error: { error: { message: 'Rate limit reached', type: 'requests' } } };
    const error = await lastValueFrom(toolLoop({ format, request: () => throwError(() => answer), conversation: [question], tools })).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, reason: 'http-status', type: 'requests', cause: answer });
    expect((error as Error).message).toContain('Rate limit reached');
  });
});
