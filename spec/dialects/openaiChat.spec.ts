import { SseFrame } from '../../src/frames/SseParser';
import { detectDialect } from '../../src/dialects/auto';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { autoDialect } from '../../src/dialects/auto';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { assembleText } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { CHUNK_START as start, DONE, chunk, frame, readChat } from '../support/frames';

const ID = 'chatcmpl-C9x2Lm7QaR4tYv8ZpW1nK3sJdE6f';
const MODEL = 'gpt-4.1-mini-2025-04-14';
const PARIS = {
  index: 0,
  id: 'call_4fQ9xTz2LmN8aBcD1eR7sVw0',
  name: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
  args: { city: 'Paris', unit: 'celsius' },
};
const TOKYO = {
  index: 1,
  id: 'call_9kLm2PqR5tUv8wXy3zAb6cDe',
  name: 'get_weather',
  arguments: '{"city":"Tokyo","unit":"celsius"}',
  args: { city: 'Tokyo', unit: 'celsius' },
};
/** The last chunk's usage: the details' zero counts are kept, as the other readings of usage keep them. */
const USAGE = {
  promptTokens: 84,
  completionTokens: 52,
  totalTokens: 136,
  cachedPromptTokens: 0,
  reasoningTokens: 0,
  audioPromptTokens: 0,
  audioCompletionTokens: 0,
};

/** What the last chunk's completion_tokens_details counts beside the usage: the predicted output's tokens. */
const PREDICTION = { accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 };

/** The fields every chunk of the example stream carries that no field of a completion names. */
const ENVELOPE = { created: 1767225600, service_tier: 'default', system_fingerprint: 'fp_6f2a1c9e7b' };

/** The example stream's completion, read off the file by hand. */
const EXAMPLE_COMPLETION: Completion = {
  id: ID,
  model: MODEL,
  content: 'Let me check both cities.',
  reasoning: null,
  refusal: null,
  toolCalls: [PARIS, TOKYO],
  finishReason: 'tool_calls',
  rawFinishReason: 'tool_calls',
  usage: USAGE,
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'Let me check both cities.',
      reasoning: null,
      refusal: null,
      toolCalls: [PARIS, TOKYO],
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_calls',
    },
  ],
  providerMetadata: { openai: { ...ENVELOPE, ...PREDICTION } },
};

const content = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
const args = (index: number, text: string): ChatEvent => ({ type: 'tool-call-delta', choice: 0, index, arguments: text });

/**
 * The example stream's events, read off the file by hand: the first chunk's empty content and null
 * refusal make none, its envelope's fields that no field names are kept once (every chunk repeats
 * them), each call's first fragment names it, and the usage comes from the last chunk, after the finish.
 */
const EXAMPLE_EVENTS: ChatEvent[] = [
  { type: 'start', id: ID, model: MODEL },
  { type: 'provider-metadata', provider: 'openai', fields: ENVELOPE },
  content('Let me'),
  content(' check both'),
  content(' cities.'),
  { type: 'tool-call-delta', choice: 0, index: 0, id: PARIS.id, name: 'get_weather', arguments: '' },
  args(0, '{"'),
  args(0, 'city":"Paris'),
  args(0, '","unit":"'),
  args(0, 'celsius"}'),
  { type: 'tool-call-delta', choice: 0, index: 1, id: TOKYO.id, name: 'get_weather', arguments: '' },
  args(1, '{"city":"'),
  args(1, 'Tokyo","unit":"'),
  args(1, 'celsius"}'),
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
  { type: 'provider-metadata', provider: 'openai', fields: PREDICTION },
  { type: 'usage', usage: USAGE },
  { type: 'done' },
];

describe('openai-chat dialect', () => {
  exampleStreamSuite({
    dialect: openaiChat,
    file: 'dialects/openai-chat.sse',
    framing: 'sse',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
  });

  describe('order of events within one chunk', () => {
    it('is start, progress, then per choice reasoning, content, refusal, tool-call deltas, finish; then usage and timings', () => {
      const payload = {
        id: 'chatcmpl-1',
        model: 'm',
        prompt_progress: { total: 10, cache: 2, processed: 10, time_ms: 5 },
        timings: { predicted_n: 7, prompt_n: 3 },
        usage: { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 },
        choices: [
          {
            index: 0,
            delta: {
              content: 'C',
              reasoning_content: 'R',
              refusal: 'F',
              tool_calls: [
                { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{' } },
                { index: 1, id: 'b', type: 'function', function: { name: 'g' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      };
      expect(readChat([frame(payload), DONE])).toEqual({
        events: [
          start,
          { type: 'progress', progress: { total: 10, cache: 2, processed: 10, timeMs: 5 } },
          { type: 'reasoning', choice: 0, text: 'R', reasoningTokens: 7 },
          { type: 'content', choice: 0, text: 'C' },
          { type: 'refusal', choice: 0, text: 'F' },
          { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{' },
          { type: 'tool-call-delta', choice: 0, index: 1, id: 'b', name: 'g', arguments: '' },
          { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
          { type: 'usage', usage: { promptTokens: 3, completionTokens: 7, totalTokens: 10 } },
          { type: 'timings', timings: { predicted_n: 7, prompt_n: 3 } },
          { type: 'done' },
        ],
      });
    });

    it('emits start once, at the first non-empty id, with the model', () => {
      const { events } = readChat([
        frame({ id: '', choices: [] }),
        frame({ id: 'x', model: 'gpt', choices: [] }),
        frame({ id: 'y', model: 'other', choices: [] }),
        DONE,
      ]);
      expect(events.filter((e) => e.type === 'start')).toEqual([{ type: 'start', id: 'x', model: 'gpt' }]);
    });
  });

  describe('text', () => {
    it.each([
      ['null content', { content: null }],
      ['empty content', { content: '' }],
      ['role only', { role: 'assistant' }],
      ['empty reasoning', { reasoning_content: '' }],
    ])('makes no event for %s', (_name, delta) => {
      expect(readChat([frame(chunk(delta)), DONE]).events).toEqual([start, { type: 'done' }]);
    });

    it('reads reasoning from reasoning_content, else from reasoning', () => {
      const { events } = readChat([frame(chunk({ reasoning: 'a' })), frame(chunk({ reasoning_content: 'b', reasoning: 'ignored' })), DONE]);
      expect(events.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text)).toEqual(['a', 'b']);
    });

    it('reads content given as typed parts, thinking parts as reasoning', () => {
      const { events } = readChat([
        frame(
          chunk({
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] },
              { type: 'text', text: 'Hi' },
            ],
          }),
        ),
        DONE,
      ]);
      expect(events.slice(1, 3)).toEqual([
        { type: 'reasoning', choice: 0, text: 'hmm' },
        { type: 'content', choice: 0, text: 'Hi' },
      ]);
    });
  });

  describe('tool calls', () => {
    const call = (entry: Record<string, unknown>) => frame(chunk({ tool_calls: [entry] }));
    const deltas = (frames: SseFrame[], options = {}) =>
      readChat([...frames, DONE], options).events.filter((e) => e.type === 'tool-call-delta');

    it('carries id and name only as each piece had them, and "" arguments when a piece has none', () => {
      expect(
        deltas([
          call({ index: 0, id: 'c1', type: 'function', function: { name: 'f' } }),
          call({ index: 0, function: { arguments: '{"a"' } }),
          call({ index: 0, id: '', function: { name: '', arguments: ':1}' } }),
        ]),
      ).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"a"' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: ':1}' },
      ]);
    });

    it('gives whole calls without an index the next positions (Mistral, Gemini compatible)', () => {
      const whole = frame(
        chunk({
          tool_calls: [
            { id: 'a', function: { name: 'f', arguments: '{}' } },
            { id: 'b', function: { name: 'g', arguments: '{}' } },
          ],
        }),
      );
      expect(deltas([whole]).map((e) => (e as { index: number }).index)).toEqual([0, 1]);
    });

    it('continues the latest call for a fragment with no index, id or name', () => {
      const events = deltas([call({ id: 'a', function: { name: 'f', arguments: '{"x":' } }), call({ function: { arguments: '1}' } })]);
      expect(events.map((e) => (e as { index: number }).index)).toEqual([0, 0]);
    });

    it('renumbers a sparse first index densely from 0', () => {
      const events = deltas([
        call({ index: 1, id: 'a', function: { name: 'f' } }),
        call({ index: 2, id: 'b', function: { name: 'g' } }),
        call({ index: 1, function: { arguments: '{}' } }),
      ]);
      expect(events.map((e) => (e as { index: number }).index)).toEqual([0, 1, 0]);
    });

    it('starts a new call for an unseen id even at a known index (whole calls all sent as index 0)', () => {
      const events = deltas([
        call({ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }),
        call({ index: 0, id: 'b', function: { name: 'g', arguments: '{}' } }),
      ]);
      expect(events.map((e) => (e as { index: number }).index)).toEqual([0, 1]);
    });

    it('serializes arguments that arrive as an object', () => {
      expect(deltas([call({ index: 0, id: 'a', function: { name: 'f', arguments: { city: 'Paris' } } })])[0]).toMatchObject({
        arguments: '{"city":"Paris"}',
      });
    });

    it('keeps indices per choice', () => {
      const events = readChat([
        frame({ id: 'x', choices: [{ index: 1, delta: { tool_calls: [{ index: 0, id: 'p', function: { name: 'f' } }] } }] }),
        frame({ id: 'x', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'q', function: { name: 'g' } }] } }] }),
        DONE,
      ]).events.filter((e) => e.type === 'tool-call-delta');
      expect(events).toEqual([
        { type: 'tool-call-delta', choice: 1, index: 0, id: 'p', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'q', name: 'g', arguments: '' },
      ]);
    });

    it('is a ProtocolError, in both modes, for a fragment that belongs to no call', () => {
      for (const strict of [false, true]) {
        const { error } = readChat([frame(chunk({ tool_calls: [{ function: { arguments: '{}' } }] })), DONE], { strict });
        expect(error).toBeInstanceOf(ProtocolError);
      }
    });

    it('is a ProtocolError for an index that skips ahead (5 when only 0 and 1 exist)', () => {
      const { error } = readChat([
        call({ index: 0, id: 'a', function: { name: 'f' } }),
        call({ index: 1, id: 'b', function: { name: 'f' } }),
        call({ index: 5, id: 'c', function: { name: 'f' } }),
      ]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe(
        'frame 3: choices[0].delta.tool_calls[0].index 5 skips ahead: the next call would be 2',
      );
    });

    it.each([
      ['a string', '0'],
      ['negative', -1],
      ['fractional', 0.5],
      ['beyond 2^53', 2 ** 53],
    ])('is a ProtocolError for an index that is %s', (_name, index) => {
      expect(readChat([call({ index, id: 'a', function: { name: 'f' } })]).error).toBeInstanceOf(ProtocolError);
    });

    it('is a ProtocolError past maxToolCalls', () => {
      const many = Array.from({ length: 4 }, (_, i) => call({ index: i, id: `c${i}`, function: { name: 'f' } }));
      expect(readChat(many, { maxToolCalls: 3 }).error).toBeInstanceOf(ProtocolError);
      expect(readChat(many, { maxToolCalls: 4 }).error).toBeInstanceOf(StreamClosedEarlyError); // fine until the end
    });
  });

  describe('finish reasons', () => {
    it.each([
      ['stop', 'stop'],
      ['length', 'length'],
      ['tool_calls', 'tool_calls'],
      ['function_call', 'tool_calls'],
      ['content_filter', 'content_filter'],
      ['error', 'error'],
      ['something_new', 'other'],
    ])('normalizes %s to %s', (raw, reason) => {
      const { events } = readChat([frame(chunk({}, {}, raw)), DONE]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason, raw });
    });

    it('normalizes stop to tool_calls when the choice made calls, keeping the raw value', () => {
      const { events } = readChat([
        frame(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] })),
        frame(chunk({}, {}, 'stop')),
        DONE,
      ]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' });
    });

    it('under strict, is a ProtocolError for a finish reason other than stop, tool_calls and length', () => {
      expect(readChat([frame(chunk({}, {}, 'content_filter')), DONE], { strict: true }).error).toBeInstanceOf(ProtocolError);
      expect(readChat([frame(chunk({}, {}, 'length')), DONE], { strict: true }).error).toBeUndefined();
    });
  });

  describe('the legacy Completions stream (spec/dialects/openaiChatLegacy.spec.ts has the rest)', () => {
    // `/v1/completions` chunks: `"object": "text_completion"`, the text in `choices[].text`
    // (https://platform.openai.com/docs/api-reference/completions/object).
    const legacy = (text: string, finish: string | null) =>
      `data: ${JSON.stringify({
        id: 'cmpl-1',
        object: 'text_completion',
        created: 1,
        choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
        model: 'gpt-3.5-turbo-instruct',
      })}\n\n`;
    const stream = legacy('Hello', null) + legacy(' there', null) + legacy('', 'stop') + 'data: [DONE]\n\n';

    it('is chosen by auto (a choices array), and assembles the same through auto as through openai-chat, at several chunk sizes', () => {
      const first: unknown = JSON.parse(stream.slice('data: '.length, stream.indexOf('\n')));
      expect(detectDialect(first)).toBe('openai-chat');
      for (const chunkSize of [1, 3, 8, stream.length]) {
        const direct = assembleText(stream, openaiChat, { chunkSize });
        expect(direct.completion).toMatchObject({ id: 'cmpl-1', content: 'Hello there', finishReason: 'stop' });
        expect(assembleText(stream, autoDialect, { chunkSize })).toEqual(direct);
      }
    });
  });

  describe('usage', () => {
    it('reads the choices: [] chunk, with details', () => {
      const { events } = readChat([
        frame({
          id: 'x',
          choices: [],
          usage: {
            prompt_tokens: 5,
            completion_tokens: 9,
            total_tokens: 14,
            prompt_tokens_details: { cached_tokens: 2 },
            completion_tokens_details: { reasoning_tokens: 4 },
          },
        }),
        DONE,
      ]);
      expect(events).toContainEqual({
        type: 'usage',
        usage: { promptTokens: 5, completionTokens: 9, totalTokens: 14, cachedPromptTokens: 2, reasoningTokens: 4 },
      });
    });

    it('reads x_groq.usage, and the standard usage wins field by field when both are present', () => {
      const { events } = readChat([
        frame(
          chunk(
            {},
            { x_groq: { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }, usage: { prompt_tokens: 9 } },
            'stop',
          ),
        ),
        DONE,
      ]);
      expect(events).toContainEqual({ type: 'usage', usage: { promptTokens: 9, completionTokens: 2, totalTokens: 3 } });
    });

    it('makes no event for usage: null', () => {
      expect(readChat([frame(chunk({}, { usage: null })), DONE]).events.some((e) => e.type === 'usage')).toBe(false);
    });
  });

  describe('errors and the end of the stream', () => {
    it('is a ProviderError for an {"error": ...} payload, with the message, type and code', () => {
      const { error } = readChat([frame({ error: { message: 'boom', type: 'server_error', param: null, code: 503 } })]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ type: 'server_error', code: 503, position: { event: 1 } });
    });

    it('is a ProviderError for an event: error frame and for a string error', () => {
      expect(readChat([frame({ message: 'x' }, 'error')]).error).toBeInstanceOf(ProviderError);
      expect((readChat([frame({ error: 'model not found' })]).error as ProviderError).message).toBe(
        'the provider reported an error at frame 1: model not found',
      );
    });

    it('is a ProviderError for OpenRouter\'s error with a finish_reason of "error"', () => {
      const { error, events } = readChat([
        frame({ id: 'x', error: { message: 'upstream', code: 502 }, choices: [{ index: 0, delta: {}, finish_reason: 'error' }] }),
      ]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(events).toEqual([]);
    });

    it('is a ProtocolError for data that is not JSON, or not an object', () => {
      expect((readChat([frame('{"id":')]).error as ProtocolError).message).toBe('frame 1: data is not JSON: "{\\"id\\":"');
      expect(readChat([frame('[1,2]')]).error).toBeInstanceOf(ProtocolError);
      expect(readChat([frame('42')]).error).toBeInstanceOf(ProtocolError);
    });

    it.each([
      ['delta as a string', { id: 'x', choices: [{ index: 0, delta: 'hi' }] }],
      ['content as a number', { id: 'x', choices: [{ index: 0, delta: { content: 5 } }] }],
      ['a choice that is not an object', { id: 'x', choices: [7] }],
      ['tool_calls as an object', { id: 'x', choices: [{ index: 0, delta: { tool_calls: {} } }] }],
      [
        'arguments as a number',
        { id: 'x', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: 5 } }] } }] },
      ],
      ['choices as a number', { id: 'x', choices: 5 }],
    ])('is a ProtocolError for %s', (_name, payload) => {
      expect(readChat([frame(payload), DONE]).error).toBeInstanceOf(ProtocolError);
    });

    it('tolerates choices null, absent or {} and delta absent or null, unless strict', () => {
      for (const payload of [
        { id: 'x', choices: null },
        { id: 'x' },
        { id: 'x', choices: {} },
        { id: 'x', choices: [{ index: 0, delta: null }] },
      ]) {
        expect(readChat([frame(payload), DONE]).error).toBeUndefined();
      }
      expect(readChat([frame({ id: 'x', choices: {} }), DONE], { strict: true }).error).toBeInstanceOf(ProtocolError);
      expect(readChat([frame({ id: 'x', choices: [{ delta: {} }] }), DONE], { strict: true }).error).toBeInstanceOf(ProtocolError);
    });

    it('reads the same events with unknown fields at every level, and keeps each where it arrived', () => {
      const noisy = {
        id: 'chatcmpl-1',
        model: 'm',
        extra: { deep: [1] },
        obfuscation: 'xx',
        choices: [
          {
            index: 0,
            logprobs: null,
            surprise: true,
            delta: {
              content: 'hi',
              novel: 1,
              tool_calls: [{ index: 0, id: 'a', type: 'function', what: 2, function: { name: 'f', arguments: '{}', strict: true } }],
            },
            finish_reason: null,
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, new_counter: 5 },
      };
      const plain = {
        id: 'chatcmpl-1',
        model: 'm',
        choices: [
          {
            index: 0,
            delta: { content: 'hi', tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] },
            finish_reason: null,
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      const noisyResult = readChat([frame(noisy), DONE]);
      expect(noisyResult.error).toBeUndefined();
      expect(noisyResult.events.filter((event) => event.type !== 'provider-metadata')).toEqual(readChat([frame(plain), DONE]).events);
      // Inside a field the dialect reads (`function.strict`, `usage.new_counter`), nothing is kept apart.
      expect(noisyResult.events.filter((event) => event.type === 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { surprise: true } },
        { type: 'provider-metadata', provider: 'openai', choice: 0, call: 0, fields: { what: 2 } },
        { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { novel: 1 } },
        { type: 'provider-metadata', provider: 'openai', fields: { extra: { deep: [1] } } },
      ]);
    });

    // Without strict, a reply that finished every choice is whole without [DONE] (spec/dialects/fidelity.openai-chat.spec.ts).
    it('is a StreamClosedEarlyError without [DONE], even after a finish, under strict', () => {
      const { error } = readChat([frame(chunk({ content: 'x' }, {}, 'stop'))], { strict: true });
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without [DONE] after 1 frame');
    });

    it('is a ProtocolError when no chunk carried an id', () => {
      const { error } = readChat([frame({ choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }), DONE]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 2: no chunk carried an id');
    });

    it('ignores frames after [DONE], as the official SDK does', () => {
      const { events, error } = readChat([DONE, frame(chunk({ content: 'late' }))]);
      expect(error).toBeInstanceOf(ProtocolError); // no id before [DONE]
      expect(events).toEqual([{ type: 'done' }]);
    });
  });
});
