/**
 * The `ai-sdk-ui` dialect on streams the `ai` package writes itself: `streamText` over its mock model,
 * `toUIMessageStreamResponse()`, and the response body read through this library's whole pipeline.
 * What the completion must hold is what the mock model was given, written out here. On Node 22 or
 * later each stream is also written by the package's current major (ai 7, `ai-current`, ES modules
 * only: in a child process, see spec/support/aiCurrentServer.mjs, over its `MockLanguageModelV4`)
 * and held to the same expectations.
 */
import { jsonSchema, simulateReadableStream, streamText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { lastValueFrom } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { aiSdkUi } from '../../src/dialects/ai-sdk-ui/aiSdkUi';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { fromResponse } from '../../src/io/fromResponse';
import { sseFrames } from '../../src/frames/sseFrames';
import { aiJudges, aiSdk, runAiCurrent } from '../support/aiSdk';
import { DONE, frame, readDialect } from '../support/frames';

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** The response `toUIMessageStreamResponse()` gives for a model that streams `parts`. */
function aiSdkResponse(parts: LanguageModelV3StreamPart[]): Response {
  const model = new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }) });
  const result = streamText({
    model,
    prompt: 'hi',
    onError: () => undefined,
    tools: {
      get_weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }) }),
      get_time: tool({ inputSchema: jsonSchema<{ tz: string }>({ type: 'object', properties: { tz: { type: 'string' } } }) }),
    },
  });
  return result.toUIMessageStreamResponse({
    sendReasoning: true,
    generateMessageId: () => 'msg-1',
    onError: (error) => (error instanceof Error ? error.message : 'failed'),
  });
}

/** The streams ai 7 wrote in its child process, by case, once per run (Node 22 or later only). */
let currentResponses: Readonly<Record<string, { headers: Record<string, string>; body: string }>> = {};

/** The model's parts as JSON for the child process: an error part's error as its message. */
const partsAsJson = (parts: LanguageModelV3StreamPart[]) =>
  parts.map((part) => (part.type === 'error' ? { type: 'error', error: { message: (part.error as Error).message } } : part));

/** The response of every judge of this run for a model that streams `parts`: ai 6 here, ai 7's for the same case from its child process. */
function responses(name: string, parts: LanguageModelV3StreamPart[]): Array<readonly [judge: string, response: Response]> {
  const judges: Array<readonly [string, Response]> = [[`ai ${aiSdk.version}`, aiSdkResponse(parts)]];
  if (aiSdk.current !== undefined) {
    const current = currentResponses[name];
    if (current === undefined) throw new Error(`ai ${aiSdk.current} wrote no case named ${name}`);
    judges.push([`ai ${aiSdk.current}`, new Response(current.body, { headers: current.headers })]);
  }
  return judges;
}

const read = (response: Response) =>
  lastValueFrom(
    fromResponse(response).pipe(
      decodeUtf8(),
      sseFrames(),
      assembleChunks({ dialect: 'ai-sdk-ui' }),
      groupToolCallsByIndex(),
      finalizeCompletion(),
    ),
  );

const CASES: Readonly<Record<string, LanguageModelV3StreamPart[]>> = {
  'reasoning-text': [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'resp-1', modelId: 'mock' },
    { type: 'reasoning-start', id: 'r1' },
    { type: 'reasoning-delta', id: 'r1', delta: 'Think ' },
    { type: 'reasoning-delta', id: 'r1', delta: 'first.' },
    { type: 'reasoning-end', id: 'r1' },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Grüß ' },
    { type: 'text-delta', id: 't1', delta: 'dich ☕' },
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
  ],
  'parallel-calls': [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Checking.' },
    { type: 'text-end', id: 't1' },
    { type: 'tool-input-start', id: 'call-a', toolName: 'get_weather' },
    { type: 'tool-input-start', id: 'call-b', toolName: 'get_time' },
    { type: 'tool-input-delta', id: 'call-a', delta: '{"city":' },
    { type: 'tool-input-delta', id: 'call-b', delta: '{"tz":"Asia/Tokyo"}' },
    { type: 'tool-input-delta', id: 'call-a', delta: '"Zürich"}' },
    { type: 'tool-input-end', id: 'call-a' },
    { type: 'tool-input-end', id: 'call-b' },
    { type: 'tool-call', toolCallId: 'call-a', toolName: 'get_weather', input: '{"city":"Zürich"}' },
    { type: 'tool-call', toolCallId: 'call-b', toolName: 'get_time', input: '{"tz":"Asia/Tokyo"}' },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
  ],
  'whole-call': [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'call-w', toolName: 'get_weather', input: '{"city":"Oslo"}' },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: USAGE },
  ],
  'model-error': [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Partial' },
    { type: 'error', error: new Error('upstream overloaded') },
  ],
  // ai 7's reason for a model stream that ended without its completion signal (ai 6 passes it on as given).
  interrupted: [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Hal' },
    { type: 'finish', finishReason: { unified: 'interrupted' as 'other', raw: undefined }, usage: USAGE },
  ],
};

/** The case `name` as each judge wrote it. */
const judged = (name: string) => {
  const parts = CASES[name];
  if (parts === undefined) throw new Error(`no case named ${name}`);
  return responses(name, parts);
};

describe(`ai-sdk-ui: streams written by ${aiJudges}`, () => {
  beforeAll(async () => {
    if (aiSdk.current === undefined) return;
    const input = Object.fromEntries(Object.entries(CASES).map(([name, parts]) => [name, partsAsJson(parts)]));
    const report = await runAiCurrent<(typeof currentResponses)[string]>('aiCurrentServer.mjs', input);
    expect(report.version).toBe(aiSdk.current);
    currentResponses = report.results;
  });

  it('reasoning then text come back whole', async () => {
    for (const [judge, response] of judged('reasoning-text')) {
      expect({ judge, header: response.headers.get('x-vercel-ai-ui-message-stream') }).toEqual({ judge, header: 'v1' });
      const completion = await read(response);
      expect({ judge, ...completion }).toMatchObject({
        judge,
        id: 'msg-1',
        content: 'Grüß dich ☕',
        reasoning: 'Think first.',
        toolCalls: [],
        finishReason: 'stop',
        rawFinishReason: 'stop',
      });
    }
  });

  it('two parallel streamed calls come back with their ids, names and parsed inputs', async () => {
    for (const [judge, response] of judged('parallel-calls')) {
      expect({ judge, ...(await read(response)) }).toMatchObject({
        judge,
        content: 'Checking.',
        toolCalls: [
          { index: 0, id: 'call-a', name: 'get_weather', arguments: '{"city":"Zürich"}', args: { city: 'Zürich' } },
          { index: 1, id: 'call-b', name: 'get_time', arguments: '{"tz":"Asia/Tokyo"}', args: { tz: 'Asia/Tokyo' } },
        ],
        finishReason: 'tool_calls',
        rawFinishReason: 'tool-calls',
      });
    }
  });

  it('a call the model gave whole (no input deltas) comes back from tool-input-available', async () => {
    for (const [judge, response] of judged('whole-call')) {
      const completion = await read(response);
      expect({ judge, toolCalls: completion.toolCalls, content: completion.content }).toEqual({
        judge,
        toolCalls: [{ index: 0, id: 'call-w', name: 'get_weather', arguments: '{"city":"Oslo"}', args: { city: 'Oslo' } }],
        content: null,
      });
    }
  });

  it("the model's error arrives as a ProviderError with the error text, the text before it as partial", async () => {
    for (const [judge, response] of judged('model-error')) {
      const error = await read(response).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect({ judge, isProviderError: error instanceof ProviderError }).toEqual({ judge, isProviderError: true });
      expect({ judge, body: (error as ProviderError).body }).toEqual({ judge, body: { type: 'error', errorText: 'upstream overloaded' } });
      expect((error as ProviderError).message).toMatch(/: upstream overloaded$/);
      expect((error as ProviderError).partial).toMatchObject({ content: 'Partial' });
    }
  });
  it('a finish the server calls interrupted is a StreamClosedEarlyError, the text before it as partial, not a completion', async () => {
    for (const [judge, response] of judged('interrupted')) {
      const body = await response.clone().text();
      expect({ judge, finish: body.includes('{"type":"finish","finishReason":"interrupted"}') }).toEqual({ judge, finish: true });
      const error = await read(response).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect({ judge, closedEarly: error instanceof StreamClosedEarlyError }).toEqual({ judge, closedEarly: true });
      expect((error as StreamClosedEarlyError).reason).toBe('unfinished');
      expect((error as StreamClosedEarlyError).message).toMatch(/the finish chunk says the model's stream was interrupted$/);
      expect((error as StreamClosedEarlyError).partial).toMatchObject({ content: 'Hal' });
    }
  });
});

describe('ai-sdk-ui: the format, frame by frame', () => {
  const start = frame({ type: 'start', messageId: 'm1' });
  const finish = frame({ type: 'finish', finishReason: 'stop' });

  it('maps deltas to events and ends at [DONE]', () => {
    const { events, error } = readDialect(aiSdkUi, [
      start,
      frame({ type: 'start-step' }),
      frame({ type: 'text-start', id: 't' }),
      frame({ type: 'text-delta', id: 't', delta: 'a' }),
      frame({ type: 'reasoning-delta', id: 'r', delta: 'b' }),
      frame({ type: 'tool-input-start', toolCallId: 'c', toolName: 'f' }),
      frame({ type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{}' }),
      frame({ type: 'tool-input-available', toolCallId: 'c', toolName: 'f', input: {} }),
      frame({ type: 'finish-step' }),
      frame({ type: 'finish' }),
      DONE,
    ]);
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'start', id: 'm1', model: null },
      { type: 'content', choice: 0, text: 'a' },
      { type: 'reasoning', choice: 0, text: 'b' },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'c', name: 'f', arguments: '' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
      { type: 'tool-call-end', choice: 0, index: 0 },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' },
      { type: 'done' },
    ]);
  });

  it('an error chunk is a ProviderError with its errorText', () => {
    const { error } = readDialect(aiSdkUi, [start, frame({ type: 'error', errorText: 'quota exceeded' })]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe('the server reported an error at frame 2: quota exceeded');
  });

  it('an abort chunk is a ProviderError', () => {
    const { error } = readDialect(aiSdkUi, [start, frame({ type: 'abort', reason: 'user' })]);
    expect((error as Error).message).toBe('the server reported an error at frame 2: the server aborted the stream (user)');
  });

  it('a stream without [DONE], or [DONE] without a finish or with a call open, is a StreamClosedEarlyError', () => {
    expect(readDialect(aiSdkUi, [start, finish]).error).toBeInstanceOf(StreamClosedEarlyError);
    const noFinish = readDialect(aiSdkUi, [start, DONE]).error;
    expect(noFinish).toBeInstanceOf(StreamClosedEarlyError);
    expect((noFinish as Error).message).toBe('frame 2: [DONE] arrived with no finish chunk');
    const open = readDialect(aiSdkUi, [start, frame({ type: 'tool-input-start', toolCallId: 'c', toolName: 'f' }), finish, DONE]).error;
    expect((open as Error).message).toBe('frame 4: [DONE] arrived with 1 tool call whose input never became available');
  });

  it('a delta for a call never started, or a second start, is a ProtocolError', () => {
    expect(readDialect(aiSdkUi, [frame({ type: 'tool-input-delta', toolCallId: 'x', inputTextDelta: '{' })]).error).toBeInstanceOf(
      ProtocolError,
    );
    const twice = frame({ type: 'tool-input-start', toolCallId: 'c', toolName: 'f' });
    expect(readDialect(aiSdkUi, [twice, twice]).error).toBeInstanceOf(ProtocolError);
  });

  it('calls the provider ran itself are no calls of the program: provider tool calls; hyphenated reasons normalize', () => {
    const { events } = readDialect(aiSdkUi, [
      frame({ type: 'tool-input-start', toolCallId: 'p', toolName: 'web_search', providerExecuted: true }),
      frame({ type: 'tool-input-delta', toolCallId: 'p', inputTextDelta: '{}' }),
      frame({ type: 'tool-input-available', toolCallId: 'p', toolName: 'web_search', input: {}, providerExecuted: true }),
      frame({ type: 'finish', finishReason: 'content-filter' }),
      DONE,
    ]);
    expect(events).toEqual([
      { type: 'provider-tool-call', choice: 0, call: { id: 'p', name: 'web_search', type: 'tool-web_search', input: {} } },
      { type: 'finish', choice: 0, reason: 'content_filter', raw: 'content-filter' },
      { type: 'done' },
    ]);
  });
});
