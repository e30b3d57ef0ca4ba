import { OperatorFunction, pipe } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { ProtocolError } from '../../src/errors/errors';
import { ChatEvent, Completion, JsonValue, TokenLogprob } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../../src/frames/sseFrames';
import { validateToolCalls } from '../../src/reply/validateToolCalls';
import { chunksOf, utf8 } from '../support/chunking';
import { runSync } from '../support/collect';
import { Assembled, assembleAtEverySize, CHUNK_SIZES, assembleText, dataEvents } from '../support/dialect';

/**
 * The parts of a Chat reply beside its text: calls that share an id, custom calls, calls cut by the
 * token limit, log probabilities, sources, audio, and payloads the dialect does not know. Every
 * stream is SSE text, each payload written out as the object the server sends and serialized as
 * compact JSON, read through the real pipeline, in one piece and in pieces.
 */

/** Reads `text` whole and at every chunk size: each reading must be the whole one. */
const atEverySize = (text: string, options: Parameters<typeof assembleText>[2] = {}): Assembled =>
  assembleAtEverySize(text, openaiChat, options);

/** The README's pipeline over the bytes of `text` in pieces of `size`, ending in `last`. */
function throughOperators(text: string, size: number, last: OperatorFunction<ChatEvent, Completion>) {
  return runSync(chunksOf(utf8(text), size), pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'openai-chat' }), last));
}

/** SSE text of `payloads`: a `data:` event each, its JSON compact as servers write it; `'[DONE]'` as it is. */
const sse = dataEvents;
/** A Chat chunk with these choices, in the envelope OpenAI writes around them. */
const chunkOf = (list: object[], model: string): string =>
  sse({ id: 'chatcmpl-Rp3Kx8Vb2Nq6Tz1Lm4Hd9Wc7Fs5Ga0Yj', object: 'chat.completion.chunk', created: 1767225600, model, choices: list });
/** A Chat chunk of one choice. */
const chunk = (choice: object, model = 'gpt-4.1-mini-2025-04-14'): string => chunkOf([choice], model);
/** A Chat chunk of several choices. */
const choices = (...list: object[]): string => chunkOf(list, 'gpt-4.1-mini-2025-04-14');
const DONE = sse('[DONE]');

describe('openai-chat dialect: reply parts', () => {
  describe('tool calls that share an id', () => {
    // The index names a call in OpenAI's format ("tool_calls[].index", and openai-node's
    // ChatCompletionStream keys its calls by it: src/lib/ChatCompletionStream.ts); two calls at
    // indices 0 and 1 with one id (a proxy that derives ids, a server whose ids collide) are two calls.
    // https://platform.openai.com/docs/guides/function-calling#streaming
    const stream =
      chunk({
        index: 0,
        delta: {
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: 'call_same', type: 'function', function: { name: 'get_weather', arguments: '' } }],
        },
        finish_reason: null,
      }) +
      chunk({ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, finish_reason: null }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 1, id: 'call_same', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 1, id: 'call_same', function: { arguments: '{"city":' } }] },
        finish_reason: null,
      }) +
      chunk({ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '"Tokyo"}' } }] }, finish_reason: null }) +
      chunk({ index: 0, delta: {}, finish_reason: 'tool_calls' }) +
      DONE;

    it('are two calls: an unseen index starts a call, a known one (with the same id repeated) continues it', () => {
      expect(atEverySize(stream).completion?.toolCalls).toEqual([
        { index: 0, id: 'call_same', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } },
        { index: 1, id: 'call_same', name: 'get_weather', arguments: '{"city":"Tokyo"}', args: { city: 'Tokyo' } },
      ]);
    });

    it('numbers the fragments by their index, not by their id', () => {
      const indices = assembleText(stream, openaiChat).events.flatMap((e) => (e.type === 'tool-call-delta' ? [e.index] : []));
      expect(indices).toEqual([0, 0, 1, 1, 1]);
    });
  });

  describe('custom (free-form) tool calls', () => {
    // `tool_calls[]` entries of `type: "custom"` with `custom: {name, input}`, the input streamed in
    // pieces (openai-node's `ChatCompletionChunk.Choice.Delta.ToolCall.Custom`);
    // https://platform.openai.com/docs/guides/function-calling#custom-tools
    const SQL = 'SELECT name FROM users WHERE id = 7;';
    const GPT5 = 'gpt-5-mini-2025-08-07';
    const stream =
      chunk({ index: 0, delta: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: null }, GPT5) +
      chunk(
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_Qm7Xc2Lp9Rt4', type: 'custom', custom: { name: 'run_sql', input: '' } }] },
          logprobs: null,
          finish_reason: null,
        },
        GPT5,
      ) +
      chunk(
        { index: 0, delta: { tool_calls: [{ index: 0, custom: { input: 'SELECT name' } }] }, logprobs: null, finish_reason: null },
        GPT5,
      ) +
      chunk(
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, custom: { input: ' FROM users WHERE id = 7;' } }] },
          logprobs: null,
          finish_reason: null,
        },
        GPT5,
      ) +
      chunk(
        {
          index: 0,
          delta: { tool_calls: [{ index: 1, id: 'call_Hd3Wb8Ns1Kv6', type: 'custom', custom: { name: 'note', input: '{"a":1}' } }] },
          logprobs: null,
          finish_reason: null,
        },
        GPT5,
      ) +
      chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }, GPT5) +
      DONE;

    it('emit fragments with kind custom, the name from custom.name and the text from custom.input', () => {
      const deltas = assembleText(stream, openaiChat).events.filter((e) => e.type === 'tool-call-delta');
      expect(deltas).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_Qm7Xc2Lp9Rt4', name: 'run_sql', arguments: '', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'SELECT name', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: ' FROM users WHERE id = 7;', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_Hd3Wb8Ns1Kv6', name: 'note', arguments: '{"a":1}', kind: 'custom' },
      ]);
    });

    it('assemble to custom calls whose args are the raw text, never parsed (JSON-looking text included)', () => {
      expect(atEverySize(stream).completion?.toolCalls).toEqual([
        { kind: 'custom', index: 0, id: 'call_Qm7Xc2Lp9Rt4', name: 'run_sql', arguments: SQL, args: SQL },
        { kind: 'custom', index: 1, id: 'call_Hd3Wb8Ns1Kv6', name: 'note', arguments: '{"a":1}', args: '{"a":1}' },
      ]);
    });

    it("reach validateToolCalls with the raw string as the tool's input", () => {
      const seen: JsonValue[] = [];
      const tools = {
        run_sql: (input: JsonValue) => {
          seen.push(input);
          return typeof input === 'string' && input.startsWith('SELECT ');
        },
        note: (input: JsonValue) => typeof input === 'string',
      };
      const { values, error } = runSync(
        chunksOf(utf8(stream), 7),
        pipe(
          decodeUtf8(),
          sseFrames(),
          assembleChunks({ dialect: 'openai-chat' }),
          groupToolCallsByIndex(),
          validateToolCalls(tools),
          finalizeCompletion(),
        ),
      );
      expect(error).toBeUndefined();
      expect(seen).toEqual([SQL]);
      expect(values[0]?.toolCalls.map((call) => call.args)).toEqual([SQL, '{"a":1}']);
    });

    it('take a fragment that says type custom for a custom one, though it has no custom body yet', () => {
      const text =
        chunk({ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_c', type: 'custom' }] }, finish_reason: null }) +
        chunk({ index: 0, delta: { tool_calls: [{ index: 0, custom: { name: 'run_sql', input: 'SELECT 1' } }] }, finish_reason: null }) +
        chunk({ index: 0, delta: {}, finish_reason: 'tool_calls' }) +
        DONE;
      const { events, completion } = atEverySize(text);
      expect(events.filter((e) => e.type === 'tool-call-delta')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_c', arguments: '', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, name: 'run_sql', arguments: 'SELECT 1', kind: 'custom' },
      ]);
      expect(completion?.toolCalls).toEqual([
        { kind: 'custom', index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT 1', args: 'SELECT 1' },
      ]);
    });

    it('is a ProtocolError for custom.input that is not text', () => {
      const bad =
        chunk({
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'c', type: 'custom', custom: { name: 'n', input: { a: 1 } } }] },
          finish_reason: 'stop',
        }) + DONE;
      expect((assembleText(bad, openaiChat).error as ProtocolError).message).toBe(
        'frame 1: choices[0].delta.tool_calls[0].custom.input is an object',
      );
    });
  });

  describe('a call cut by the token limit, in a stream that ended properly', () => {
    // finish_reason "length" (max_tokens reached) with the last call's arguments cut mid-JSON; the
    // usage chunk and [DONE] still come. https://platform.openai.com/docs/api-reference/chat-streaming/streaming
    const stream =
      chunk({ index: 0, delta: { role: 'assistant', content: 'Checking both.', refusal: null }, logprobs: null, finish_reason: null }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 0, id: 'call_Paris1', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
        logprobs: null,
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] },
        logprobs: null,
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 1, id: 'call_Tokyo2', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
        logprobs: null,
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: 1, function: { arguments: '{"city":"To' } }] },
        logprobs: null,
        finish_reason: null,
      }) +
      chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }) +
      sse({
        id: 'chatcmpl-Rp3Kx8Vb2Nq6Tz1Lm4Hd9Wc7Fs5Ga0Yj',
        object: 'chat.completion.chunk',
        created: 1767225600,
        model: 'gpt-4.1-mini-2025-04-14',
        choices: [],
        usage: { prompt_tokens: 61, completion_tokens: 32, total_tokens: 93 },
      }) +
      DONE;

    const PARIS = { index: 0, id: 'call_Paris1', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } };
    const CUT = { index: 1, id: 'call_Tokyo2', name: 'get_weather', arguments: '{"city":"To' };
    const wanted = {
      finishReason: 'length',
      rawFinishReason: 'length',
      content: 'Checking both.',
      toolCalls: [PARIS],
      incompleteToolCalls: [CUT],
      usage: { promptTokens: 61, completionTokens: 32, totalTokens: 93 },
    };

    it('completes with finish length, the whole call in toolCalls, the cut one in incompleteToolCalls, the usage (README pipeline)', () => {
      for (const size of [...CHUNK_SIZES, stream.length]) {
        const { values, error } = throughOperators(stream, size, pipe(groupToolCallsByIndex(), finalizeCompletion()));
        expect({ size, error, values }).toEqual({ size, error: undefined, values: [expect.objectContaining(wanted)] });
        expect(values[0]?.choices[0]).toMatchObject({ toolCalls: [PARIS], incompleteToolCalls: [CUT], finishReason: 'length' });
      }
    });

    it('completes the same through finalizeCompletion alone', () => {
      for (const size of [...CHUNK_SIZES, stream.length]) {
        const { values, error } = throughOperators(stream, size, finalizeCompletion());
        expect({ size, error, values }).toEqual({ size, error: undefined, values: [expect.objectContaining(wanted)] });
      }
    });
  });

  describe('log probabilities', () => {
    // `choices[].logprobs = {content, refusal}` per chunk, null on the finish chunk; the first chunk's
    // lists are empty. https://platform.openai.com/docs/api-reference/chat-streaming/streaming
    const HELLO: TokenLogprob = {
      token: 'Hello',
      logprob: -0.0009,
      bytes: [72, 101, 108, 108, 111],
      top_logprobs: [
        { token: 'Hello', logprob: -0.0009, bytes: [72, 101, 108, 108, 111] },
        { token: 'Hi', logprob: -7.1, bytes: [72, 105] },
      ],
    };
    const BANG: TokenLogprob = {
      token: '!',
      logprob: -0.31,
      bytes: [33],
      top_logprobs: [
        { token: '!', logprob: -0.31, bytes: [33] },
        { token: '.', logprob: -1.4, bytes: [46] },
      ],
    };
    const stream =
      chunk({
        index: 0,
        delta: { role: 'assistant', content: '', refusal: null },
        logprobs: { content: [], refusal: null },
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { content: 'Hello' },
        logprobs: {
          content: [
            {
              token: 'Hello',
              logprob: -0.0009,
              bytes: [72, 101, 108, 108, 111],
              top_logprobs: [
                { token: 'Hello', logprob: -0.0009, bytes: [72, 101, 108, 108, 111] },
                { token: 'Hi', logprob: -7.1, bytes: [72, 105] },
              ],
            },
          ],
          refusal: null,
        },
        finish_reason: null,
      }) +
      chunk({
        index: 0,
        delta: { content: '!' },
        logprobs: {
          content: [
            {
              token: '!',
              logprob: -0.31,
              bytes: [33],
              top_logprobs: [
                { token: '!', logprob: -0.31, bytes: [33] },
                { token: '.', logprob: -1.4, bytes: [46] },
              ],
            },
          ],
          refusal: null,
        },
        finish_reason: null,
      }) +
      chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }) +
      DONE;

    it('emit one logprobs event per chunk that has tokens, after its content, and none for empty lists', () => {
      // After the start and the envelope's `created`, kept once (provider metadata).
      expect(assembleText(stream, openaiChat).events.slice(2, -2)).toEqual([
        { type: 'content', choice: 0, text: 'Hello' },
        { type: 'logprobs', choice: 0, content: [HELLO] },
        { type: 'content', choice: 0, text: '!' },
        { type: 'logprobs', choice: 0, content: [BANG] },
      ]);
    });

    it('join in order in the completion, at every chunk size', () => {
      expect(atEverySize(stream).completion).toMatchObject({ content: 'Hello!', logprobs: { content: [HELLO, BANG], refusal: null } });
    });

    it('keep each chunk its own tokens: nothing of a payload is kept, though later payloads of one shape overwrite it', () => {
      const same = (token: string) =>
        chunk({
          index: 0,
          delta: { content: token },
          logprobs: { content: [{ token, logprob: -1, bytes: null, top_logprobs: [{ token, logprob: -1, bytes: null }] }], refusal: null },
          finish_reason: null,
        });
      const text =
        same('a') + same('b') + same('c') + same('d') + chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }) + DONE;
      const tokens = assembleText(text, openaiChat).completion?.logprobs?.content;
      expect(tokens?.map((t) => [t.token, t.top_logprobs[0]?.token])).toEqual([
        ['a', 'a'],
        ['b', 'b'],
        ['c', 'c'],
        ['d', 'd'],
      ]);
    });

    it('read refusal tokens apart from content tokens (openai-node refusal snapshot)', () => {
      // The refusal stream of dialects reference §1 (from openai-node's test snapshot of a structured-output refusal).
      const refusal =
        chunk(
          {
            index: 0,
            delta: { role: 'assistant', content: null, refusal: '' },
            logprobs: { content: null, refusal: [] },
            finish_reason: null,
          },
          'gpt-4o-2024-08-06',
        ) +
        chunk(
          {
            index: 0,
            delta: { refusal: "I'm sorry, I can't assist with that." },
            logprobs: { content: null, refusal: [{ token: "I'm", logprob: -0.0021, bytes: [73, 39, 109], top_logprobs: [] }] },
            finish_reason: null,
          },
          'gpt-4o-2024-08-06',
        ) +
        chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }, 'gpt-4o-2024-08-06') +
        DONE;
      expect(atEverySize(refusal).completion?.logprobs).toEqual({
        content: null,
        refusal: [{ token: "I'm", logprob: -0.0021, bytes: [73, 39, 109], top_logprobs: [] }],
      });
    });

    it('keep the log probabilities of each choice apart (n = 2)', () => {
      const token = (t: string) => ({ token: t, logprob: -0.5, bytes: null, top_logprobs: [] });
      const text =
        chunk({ index: 0, delta: { content: 'A' }, logprobs: { content: [token('A')], refusal: null }, finish_reason: null }) +
        chunk({ index: 1, delta: { content: 'B' }, logprobs: { content: [token('B')], refusal: null }, finish_reason: null }) +
        choices(
          { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
          { index: 1, delta: {}, logprobs: null, finish_reason: 'stop' },
        ) +
        DONE;
      const assembled = atEverySize(text).completion?.choices;
      expect(assembled?.map((c) => c.logprobs?.content?.map((t) => t.token))).toEqual([['A'], ['B']]);
    });

    it("read llama.cpp's chat logprobs (the token id beside the OpenAI fields) in OpenAI's shape", () => {
      // llama.cpp /v1/chat/completions with `logprobs: true, top_logprobs: 1`: probs_vector_to_json in
      // tools/server/server-task.cpp (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-task.cpp).
      const text =
        sse({
          choices: [
            {
              finish_reason: null,
              index: 0,
              delta: { content: 'Hi' },
              logprobs: {
                content: [
                  {
                    id: 13048,
                    token: 'Hi',
                    bytes: [72, 105],
                    logprob: -0.25,
                    top_logprobs: [{ id: 13048, token: 'Hi', bytes: [72, 105], logprob: -0.25 }],
                  },
                ],
              },
            },
          ],
          created: 1767225600,
          id: 'chatcmpl-Xr7Qm2Tz9LkWp4Nb8Vc1Hs6Jd3Fg5Ya0',
          model: 'Qwen3-8B-Q4_K_M.gguf',
          system_fingerprint: 'b6512-4f3a9c1e',
          object: 'chat.completion.chunk',
        }) +
        sse({
          choices: [{ finish_reason: 'stop', index: 0, delta: {} }],
          created: 1767225600,
          id: 'chatcmpl-Xr7Qm2Tz9LkWp4Nb8Vc1Hs6Jd3Fg5Ya0',
          model: 'Qwen3-8B-Q4_K_M.gguf',
          system_fingerprint: 'b6512-4f3a9c1e',
          object: 'chat.completion.chunk',
        }) +
        DONE;
      expect(atEverySize(text).completion?.logprobs).toEqual({
        content: [{ token: 'Hi', logprob: -0.25, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.25, bytes: [72, 105] }] }],
        refusal: null,
      });
    });

    const malformed =
      chunk({
        index: 0,
        delta: { content: 'ok' },
        logprobs: {
          content: [
            { token: 'ok', logprob: -0.1, bytes: [111, 107], top_logprobs: [] },
            { token: 7, logprob: -1 },
            'junk',
            { token: 'x', logprob: null },
          ],
          refusal: null,
        },
        finish_reason: 'stop',
      }) + DONE;

    it('skip entries that are not a token with a finite log probability', () => {
      expect(atEverySize(malformed).completion?.logprobs).toEqual({
        content: [{ token: 'ok', logprob: -0.1, bytes: [111, 107], top_logprobs: [] }],
        refusal: null,
      });
    });

    it('keep bytes only when they are a list of bytes, and only the alternatives that are a token with a log probability', () => {
      const odd =
        chunk({
          index: 0,
          delta: { content: 'ok' },
          logprobs: {
            content: [
              {
                token: 'ok',
                logprob: -0.1,
                bytes: [111, 300],
                top_logprobs: [
                  { token: 'ok', logprob: -0.1, bytes: 'ok' },
                  'junk',
                  { token: 'k' },
                  { token: 'o', logprob: -3, bytes: [111] },
                ],
              },
            ],
            refusal: null,
          },
          finish_reason: 'stop',
        }) + DONE;
      expect(atEverySize(odd).completion?.logprobs?.content).toEqual([
        {
          token: 'ok',
          logprob: -0.1,
          bytes: null,
          top_logprobs: [
            { token: 'ok', logprob: -0.1, bytes: null },
            { token: 'o', logprob: -3, bytes: [111] },
          ],
        },
      ]);
    });

    it('refuse such entries under strict, naming where', () => {
      const { error } = assembleText(malformed, openaiChat, { dialect: { strict: true } });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe(
        "frame 1: choices[0].logprobs.content holds an entry that is not a token's log probability",
      );
    });

    it('are skipped when logprobs is not an object, and refused under strict', () => {
      const odd = chunk({ index: 0, delta: { content: 'x' }, logprobs: [1], finish_reason: 'stop' }) + DONE;
      const { error, completion } = assembleText(odd, openaiChat);
      expect(error).toBeUndefined();
      expect(completion?.content).toBe('x');
      expect(completion).not.toHaveProperty('logprobs');
      expect((assembleText(odd, openaiChat, { dialect: { strict: true } }).error as ProtocolError).message).toBe(
        'frame 1: choices[0].logprobs is an array, not an object',
      );
    });
  });
});
