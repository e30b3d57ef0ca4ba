import { readFileSync } from 'fs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectOptions } from '../../src/dialects/Dialect';
import { llamacppCompletion } from '../../src/dialects/llamacpp-completion/llamacppCompletion';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { assembleText, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

// The example stream of this dialect, byte for byte (marbles/README.md says where it came from).
const EXAMPLE = marbleFile('dialects/llamacpp-completion.sse');

/** SSE text of `payloads`: a `data:` event each, its JSON compact as the server writes it. */
const sse = (...payloads: object[]): string => payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join('');

/** Runs frames through the llamacppCompletion core; returns the events and the error, if any. */
const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(llamacppCompletion, frames, options);

/** A partial chunk as the server sends it (`tokens_*` only when given). */
const piece = (content: string, extra: Record<string, unknown> = {}) =>
  frame({ index: 0, content, tokens: [], stop: false, id_slot: -1, ...extra });
/** The last chunk, `stop: true`. */
const last = (extra: Record<string, unknown> = {}) =>
  frame({ index: 0, content: '', tokens: [], id_slot: 0, stop: true, model: 'm.gguf', stop_type: 'eos', stopping_word: '', ...extra });

/**
 * What `piece` and `last` carry that the dialect does not map, kept on the reply: the slot (-1 on the
 * pieces, the slot on the last chunk) and the last chunk's `stopping_word`.
 */
const PIECE_KEPT: ChatEvent = { type: 'provider-metadata', provider: 'llamacpp', fields: { id_slot: -1 } };
const LAST_KEPT: ChatEvent = { type: 'provider-metadata', provider: 'llamacpp', fields: { id_slot: 0, stopping_word: '' } };

const TIMINGS = {
  cache_n: 0,
  prompt_n: 9,
  prompt_ms: 11.42,
  prompt_per_token_ms: 1.268889,
  prompt_per_second: 788.09,
  predicted_n: 8,
  predicted_ms: 162.77,
  predicted_per_token_ms: 20.34625,
  predicted_per_second: 49.149,
};

/** The fields of the example stream the dialect does not map, read off the file by hand: the slot, and the last chunk's. */
const EXAMPLE_KEPT = {
  id_slot: 0,
  generation_settings: {
    seed: 4294967295,
    temperature: 0.8,
    top_k: 40,
    top_p: 0.95,
    min_p: 0.05,
    n_predict: -1,
    stream: true,
    stop: [],
    samplers: ['penalties', 'dry', 'top_k', 'typ_p', 'top_p', 'min_p', 'xtc', 'temperature'],
  },
  prompt: '<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n',
  has_new_line: false,
  truncated: false,
  stopping_word: '',
  tokens_cached: 16,
};

const EXAMPLE_COMPLETION: Completion = {
  id: '',
  model: 'Qwen3-8B-Q4_K_M.gguf',
  content: 'Paris is the capital of France.',
  reasoning: null,
  refusal: null,
  toolCalls: [],
  finishReason: 'stop',
  rawFinishReason: 'eos',
  usage: { promptTokens: 9, completionTokens: 8, totalTokens: 17 },
  timings: TIMINGS,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'Paris is the capital of France.',
      reasoning: null,
      refusal: null,
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'eos',
    },
  ],
  providerMetadata: { llamacpp: EXAMPLE_KEPT },
};

/** A content event of the example stream. */
const contentEvent = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
/** The running usage after `predicted` tokens (the prompt is 9). */
const usageAfter = (predicted: number): ChatEvent => ({
  type: 'usage',
  usage: { promptTokens: 9, completionTokens: predicted, totalTokens: 9 + predicted },
});

/**
 * The example stream's events, read off the file by hand: per chunk its content then the running
 * usage (and the slot, once); then start (the model comes only on the last chunk), finish, usage,
 * timings, the fields the dialect does not map, and done last.
 */
const EXAMPLE_EVENTS: ChatEvent[] = [
  contentEvent('Paris'),
  usageAfter(1),
  PIECE_KEPT,
  contentEvent(' is'),
  usageAfter(2),
  contentEvent(' the'),
  usageAfter(3),
  contentEvent(' capital'),
  usageAfter(4),
  contentEvent(' of'),
  usageAfter(5),
  contentEvent(' France'),
  usageAfter(6),
  contentEvent('.'),
  usageAfter(7),
  { type: 'start', id: '', model: 'Qwen3-8B-Q4_K_M.gguf' },
  { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
  usageAfter(8),
  { type: 'timings', timings: TIMINGS },
  { type: 'provider-metadata', provider: 'llamacpp', fields: EXAMPLE_KEPT },
  { type: 'done' },
];

describe('llamacppCompletion', () => {
  exampleStreamSuite({
    dialect: llamacppCompletion,
    file: 'dialects/llamacpp-completion.sse',
    framing: 'sse',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
  });

  describe('events', () => {
    it("emits start once, with id '' (the stream has no id), before the other events of the first chunk with a model", () => {
      const { events } = read([
        piece('a', {
          model: 'first.gguf',
          id: 'nope',
          prompt_progress: { total: 3, cache: 0, processed: 3, time_ms: 1 },
          tokens_predicted: 1,
        }),
        piece('b', { model: 'second.gguf' }),
        last(),
      ]);
      expect(events).toEqual([
        { type: 'start', id: '', model: 'first.gguf' },
        { type: 'progress', progress: { total: 3, cache: 0, processed: 3, timeMs: 1 } },
        { type: 'content', choice: 0, text: 'a' },
        { type: 'usage', usage: { promptTokens: null, completionTokens: 1, totalTokens: null } },
        // The id the format does not have is no id of the reply: a field it does not map, kept.
        { type: 'provider-metadata', provider: 'llamacpp', fields: { id_slot: -1, id: 'nope' } },
        { type: 'content', choice: 0, text: 'b' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
        LAST_KEPT,
        { type: 'done' },
      ]);
    });

    it('emits start at the first chunk that has a model, when the first chunks have none', () => {
      expect(
        read([piece('a'), piece('b', { model: '' }), piece('c', { model: null }), piece('d', { model: 'mid.gguf' }), piece('e'), last()])
          .events,
      ).toEqual([
        { type: 'content', choice: 0, text: 'a' },
        PIECE_KEPT,
        { type: 'content', choice: 0, text: 'b' },
        { type: 'content', choice: 0, text: 'c' },
        { type: 'start', id: '', model: 'mid.gguf' },
        { type: 'content', choice: 0, text: 'd' },
        { type: 'content', choice: 0, text: 'e' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
        LAST_KEPT,
        { type: 'done' },
      ]);
    });

    it('emits no start when no chunk names a model', () => {
      expect(read([piece('a'), frame({ index: 0, content: '', stop: true, stop_type: 'eos' })])).toEqual({
        events: [
          { type: 'content', choice: 0, text: 'a' },
          PIECE_KEPT,
          { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
          { type: 'done' },
        ],
      });
      expect(read([piece('a'), last({ model: '' })]).events.some((e) => e.type === 'start')).toBe(false);
    });

    it("assembles a stream that names no model to the id '' and no model", () => {
      const { completion } = assembleText(
        'data: {"content":"x","stop":false}\n\ndata: {"content":"","stop":true,"stop_type":"eos"}\n\n',
        llamacppCompletion,
      );
      expect(completion).toMatchObject({ id: '', model: null, content: 'x', finishReason: 'stop' });
    });

    it('makes no event for empty content, and reads content on the last chunk (non-stream style)', () => {
      expect(read([piece(''), last({ content: 'tail' })]).events).toEqual([
        PIECE_KEPT,
        { type: 'start', id: '', model: 'm.gguf' },
        { type: 'content', choice: 0, text: 'tail' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
        LAST_KEPT,
        { type: 'done' },
      ]);
    });

    it('maps prompt_progress to a progress event, before the content of its chunk', () => {
      const { events } = read([piece('x', { prompt_progress: { total: 30, cache: 4, processed: 12, time_ms: 8.5 } }), last()]);
      expect(events.slice(0, 2)).toEqual([
        { type: 'progress', progress: { total: 30, cache: 4, processed: 12, timeMs: 8.5 } },
        { type: 'content', choice: 0, text: 'x' },
      ]);
    });

    it('emits timings on every chunk that has them (timings_per_token), keeping only numbers', () => {
      const { events } = read([
        piece('a', { timings: { predicted_n: 1, predicted_ms: 20 } }),
        last({ timings: { predicted_n: 2, label: 'x' } }),
      ]);
      expect(events.filter((e) => e.type === 'timings')).toEqual([
        { type: 'timings', timings: { predicted_n: 1, predicted_ms: 20 } },
        { type: 'timings', timings: { predicted_n: 2 } },
      ]);
    });

    it('reports usage with only the counts a chunk has, and no usage for a chunk with none', () => {
      const { events } = read([piece('a'), piece('b', { tokens_predicted: 2 }), last({ tokens_evaluated: 5, tokens_predicted: 3 })]);
      expect(events.filter((e) => e.type === 'usage')).toEqual([
        { type: 'usage', usage: { promptTokens: null, completionTokens: 2, totalTokens: null } },
        { type: 'usage', usage: { promptTokens: 5, completionTokens: 3, totalTokens: 8 } },
      ]);
    });

    it('reads the same past unknown fields (generation_settings, __verbose), and keeps them on the reply', () => {
      const noisy = read([
        piece('a', { __verbose: { x: 1 } }),
        last({ generation_settings: { temperature: 0.8 }, prompt: 'p', has_new_line: false, truncated: false, tokens_cached: 16 }),
      ]);
      const kept = noisy.events.filter((event) => event.type === 'provider-metadata');
      expect({ events: noisy.events.filter((event) => event.type !== 'provider-metadata') }).toEqual({
        events: read([piece('a'), last()]).events.filter((event) => event.type !== 'provider-metadata'),
      });
      expect(kept).toEqual([
        { type: 'provider-metadata', provider: 'llamacpp', fields: { id_slot: -1, __verbose: { x: 1 } } },
        {
          type: 'provider-metadata',
          provider: 'llamacpp',
          fields: {
            id_slot: 0,
            stopping_word: '',
            generation_settings: { temperature: 0.8 },
            prompt: 'p',
            has_new_line: false,
            truncated: false,
            tokens_cached: 16,
          },
        },
      ]);
      expect(noisy.error).toBeUndefined();
    });
  });

  describe('log probabilities (completion_probabilities, with n_probs)', () => {
    // Newer servers: the OpenAI fields with the token `id` (tools/server/server-task.cpp,
    // `completion_token_output::probs_vector_to_json`; the `/completion` section of
    // https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md). The final chunk of a
    // stream carries none: each token came with its partial chunk.
    const NEWER = sse(
      {
        index: 0,
        content: ' Paris',
        tokens: [],
        stop: false,
        id_slot: -1,
        tokens_predicted: 1,
        tokens_evaluated: 9,
        completion_probabilities: [
          {
            id: 12095,
            token: ' Paris',
            bytes: [32, 80, 97, 114, 105, 115],
            logprob: -0.0871,
            top_logprobs: [
              { id: 12095, token: ' Paris', bytes: [32, 80, 97, 114, 105, 115], logprob: -0.0871 },
              { id: 576, token: ' The', bytes: [32, 84, 104, 101], logprob: -2.5093 },
            ],
          },
        ],
      },
      {
        index: 0,
        content: '.',
        tokens: [],
        stop: false,
        id_slot: -1,
        tokens_predicted: 2,
        tokens_evaluated: 9,
        completion_probabilities: [
          {
            id: 13,
            token: '.',
            bytes: [46],
            logprob: -0.4117,
            top_logprobs: [
              { id: 13, token: '.', bytes: [46], logprob: -0.4117 },
              { id: 11, token: ',', bytes: [44], logprob: -1.2958 },
            ],
          },
        ],
      },
      {
        index: 0,
        content: '',
        tokens: [],
        id_slot: 0,
        stop: true,
        model: 'Qwen3-8B-Q4_K_M.gguf',
        tokens_predicted: 3,
        tokens_evaluated: 9,
        stop_type: 'eos',
        stopping_word: '',
        tokens_cached: 12,
      },
    );
    const PARIS = {
      token: ' Paris',
      logprob: -0.0871,
      bytes: [32, 80, 97, 114, 105, 115],
      top_logprobs: [
        { token: ' Paris', logprob: -0.0871, bytes: [32, 80, 97, 114, 105, 115] },
        { token: ' The', logprob: -2.5093, bytes: [32, 84, 104, 101] },
      ],
    };
    const PERIOD = {
      token: '.',
      logprob: -0.4117,
      bytes: [46],
      top_logprobs: [
        { token: '.', logprob: -0.4117, bytes: [46] },
        { token: ',', logprob: -1.2958, bytes: [44] },
      ],
    };

    it("emits a logprobs event in OpenAI's shape after each chunk's content (token ids dropped)", () => {
      expect(assembleText(NEWER, llamacppCompletion).events.slice(0, 3)).toEqual([
        { type: 'content', choice: 0, text: ' Paris' },
        { type: 'logprobs', choice: 0, content: [PARIS] },
        { type: 'usage', usage: { promptTokens: 9, completionTokens: 1, totalTokens: 10 } },
      ]);
    });

    it('joins them in the completion, at every chunk size', () => {
      for (const chunkSize of [1, 3, 7, 64, NEWER.length]) {
        expect(assembleText(NEWER, llamacppCompletion, { chunkSize }).completion?.logprobs).toEqual({
          content: [PARIS, PERIOD],
          refusal: null,
        });
      }
    });

    it("reads the older shape {content, probs: [{tok_str, prob}]}, the log probability the log of the token's own prob", () => {
      // Older servers' `completion_probabilities`, as the server README documented it until the
      // Chat-shaped probabilities replaced it: `{"content": "<the token selected by the
      // model>", "probs": [{"prob": float, "tok_str": "<most likely token>"}, ...]}` in
      // examples/server/README.md of https://github.com/ggml-org/llama.cpp (now tools/server/README.md).
      const older = sse(
        {
          content: ' Paris',
          stop: false,
          completion_probabilities: [
            {
              content: ' Paris',
              probs: [
                { tok_str: ' Paris', prob: 0.5 },
                { tok_str: ' The', prob: 0.25 },
              ],
            },
          ],
        },
        { content: '', stop: true, stop_type: 'eos' },
      );
      expect(assembleText(older, llamacppCompletion).completion?.logprobs).toEqual({
        content: [
          {
            token: ' Paris',
            logprob: Math.log(0.5),
            bytes: null,
            top_logprobs: [
              { token: ' Paris', logprob: Math.log(0.5), bytes: null },
              { token: ' The', logprob: Math.log(0.25), bytes: null },
            ],
          },
        ],
        refusal: null,
      });
    });

    it('reads post_sampling_probs (prob and top_probs) as the log of prob', () => {
      const post = frame({
        content: 'a',
        stop: false,
        completion_probabilities: [
          { id: 1, token: 'a', bytes: [97], prob: 0.25, top_probs: [{ id: 1, token: 'a', bytes: [97], prob: 0.25 }] },
        ],
      });
      const { events } = read([post, last()]);
      expect(events).toContainEqual({
        type: 'logprobs',
        choice: 0,
        content: [
          { token: 'a', logprob: Math.log(0.25), bytes: [97], top_logprobs: [{ token: 'a', logprob: Math.log(0.25), bytes: [97] }] },
        ],
      });
    });

    const malformed = piece('a', {
      completion_probabilities: [{ token: 'a', logprob: -0.1 }, { token: 'b' }, { content: 'c', probs: [{ tok_str: 'd', prob: 0.9 }] }],
    });

    it('skips entries that give no log probability (an older entry whose token is not among its probs included)', () => {
      expect(read([malformed, last()]).events).toContainEqual({
        type: 'logprobs',
        choice: 0,
        content: [{ token: 'a', logprob: -0.1, bytes: null, top_logprobs: [] }],
      });
    });

    it('refuses such entries under strict', () => {
      expect((read([malformed, last()], { strict: true }).error as Error).message).toBe(
        "frame 1: completion_probabilities holds an entry that is not a token's log probability",
      );
    });

    it('skips completion_probabilities that is not a list, and refuses it under strict', () => {
      const odd = [piece('a', { completion_probabilities: { a: 1 } }), last()];
      expect(read(odd)).toEqual(read([piece('a'), last()]));
      expect((read(odd, { strict: true }).error as Error).message).toBe('frame 1: completion_probabilities is an object, not a list');
    });
  });

  describe('finish reasons', () => {
    it.each([
      ['eos', 'stop'],
      ['word', 'stop'],
      ['limit', 'length'],
      ['none', 'other'],
    ])('normalizes stop_type %s to %s, keeping the raw value', (stopType, reason) => {
      expect(read([piece('a'), last({ stop_type: stopType })]).events).toContainEqual({ type: 'finish', choice: 0, reason, raw: stopType });
    });

    it.each([
      ['stopped_eos', 'eos', 'stop'],
      ['stopped_word', 'word', 'stop'],
      ['stopped_limit', 'limit', 'length'],
    ])('reads the legacy flag %s (builds before stop_type) as %s', (flag, raw, reason) => {
      const flags = { stopped_eos: false, stopped_word: false, stopped_limit: false, [flag]: true };
      const { events } = read([frame({ content: '', stop: true, ...flags })]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason, raw });
    });

    it('finishes with the raw value none when the last chunk says nothing of why', () => {
      expect(read([frame({ content: 'x', stop: true })]).events).toContainEqual({
        type: 'finish',
        choice: 0,
        reason: 'other',
        raw: 'none',
      });
      expect(read([frame({ content: 'x', stop: true, stop_type: '' })]).events).toContainEqual({
        type: 'finish',
        choice: 0,
        reason: 'other',
        raw: 'none',
      });
    });

    it('ends the stream at the chunk with stop: true, and ignores frames after it unless strict', () => {
      const frames = [piece('a'), last(), piece('late'), frame('[DONE]')];
      expect(read(frames)).toEqual({
        events: [
          { type: 'content', choice: 0, text: 'a' },
          PIECE_KEPT,
          { type: 'start', id: '', model: 'm.gguf' },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'eos' },
          LAST_KEPT,
          { type: 'done' },
        ],
      });
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 3: a frame arrived after the chunk with stop: true');
    });
  });

  describe('errors', () => {
    it('is a ProviderError for an {"error": ...} chunk, with message, type and code', () => {
      const { error, events } = read([
        piece('a'),
        frame({
          error: { code: 500, message: 'the request exceeds the available context size', type: 'exceed_context_size_error', n_ctx: 4096 },
        }),
        piece('never'),
      ]);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toBe(
        'the provider reported an error at frame 2: the request exceeds the available context size (exceed_context_size_error, code 500)',
      );
      expect(error).toMatchObject({ type: 'exceed_context_size_error', code: 500, position: { event: 2 } });
      expect(events).toEqual([{ type: 'content', choice: 0, text: 'a' }, PIECE_KEPT]);
    });

    it('is a ProviderError for an event: error frame', () => {
      const { error } = read([frame({ message: 'slot unavailable', type: 'unavailable_error', code: 503 }, 'error')]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ type: 'unavailable_error', code: 503 });
    });

    it('keeps what arrived before the error as the partial', () => {
      const { error } = assembleText(
        'data: {"content":"Par","stop":false}\n\ndata: {"error":{"code":500,"message":"crash","type":"server_error"}}\n\n',
        llamacppCompletion,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ type: 'server_error', partial: { content: 'Par', finishReason: null } });
    });

    it.each([
      ['data that is not JSON', [frame('{"content":')], 'frame 1: data is not JSON: "{\\"content\\":"'],
      ['data that is a JSON string', [frame('"hi"')], 'frame 1: expected a JSON object, got "\\"hi\\""'],
      ['content that is a number', [piece(5 as unknown as string)], 'frame 1: content is 5, not text'],
      ['stop that is a string', [frame({ content: 'x', stop: 'true' })], 'frame 1: stop is "true"'],
      ['stop_type that is a number', [frame({ content: 'x', stop: true, stop_type: 1 })], 'frame 1: stop_type is 1'],
      ['tokens_predicted that is a string', [piece('a', { tokens_predicted: '3' })], 'frame 1: tokens_predicted is "3", not a count'],
      ['timings that is an array', [piece('a', { timings: [1] })], 'frame 1: timings is an array, not an object'],
      ['an index that is negative', [frame({ index: -1, content: 'x' })], 'frame 1: index is -1, not a prompt index'],
      [
        'a second prompt in the stream',
        [piece('a'), frame({ index: 1, content: 'b', stop: false })],
        'frame 2: index 1 after index 0: results of several prompts are not supported',
      ],
    ])('is a ProtocolError for %s', (_name, frames, message) => {
      const { error } = read([...frames, last()]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(message);
    });
  });

  describe('truncation', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const beforeLast = text.slice(0, text.indexOf('data: {"index":0,"content":"","tokens":[],"id_slot":0,"stop":true'));

    it.each([
      ['before the chunk with stop: true', beforeLast, 'the stream ended without a chunk with stop: true after 7 frames'],
      [
        'mid-event (the last data line without its blank line)',
        beforeLast.slice(0, -1),
        'the stream ended without a chunk with stop: true after 7 frames',
      ],
      [
        'mid-line',
        beforeLast + 'data: {"index":0,"content":"","tokens":[],"id_slot":0,"st',
        'the stream ended mid-line: line 15 (event 8) has no line end',
      ],
    ])('is a StreamClosedEarlyError %s, with the partial', (_name, stream, message) => {
      for (const chunkSize of [1, 4, 100_000]) {
        const { error } = assembleText(stream, llamacppCompletion, { chunkSize });
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect((error as Error).message).toBe(message);
        expect(error).toMatchObject({
          partial: {
            content: 'Paris is the capital of France.',
            finishReason: null,
            usage: { promptTokens: 9, completionTokens: 7, totalTokens: 16 },
            timings: null,
          },
        });
      }
    });

    it('is a StreamClosedEarlyError for a proxy [DONE] before the last chunk; strict rejects the [DONE]', () => {
      const { error } = read([piece('a'), frame('[DONE]')]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((read([piece('a'), frame('[DONE]')], { strict: true }).error as Error).message).toBe(
        'frame 2: [DONE] is not part of the /completion stream',
      );
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events and completes after the chunk with stop: true', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        // Spaced so that the first chunk's two events (its text, and the slot kept) fit before the next.
        const source = cold<SseFrame>('-a----b----l-----|', {
          a: piece('Hel'),
          b: piece('lo', { tokens_predicted: 2, tokens_evaluated: 4 }),
          l: last({ stop_type: 'limit' }),
        });
        expectObservable(source.pipe(assembleChunks({ dialect: llamacppCompletion }))).toBe('-(ak)-(bu)-(sfmz)|', {
          a: { type: 'content', choice: 0, text: 'Hel' },
          k: PIECE_KEPT,
          b: { type: 'content', choice: 0, text: 'lo' },
          u: { type: 'usage', usage: { promptTokens: 4, completionTokens: 2, totalTokens: 6 } },
          s: { type: 'start', id: '', model: 'm.gguf' },
          f: { type: 'finish', choice: 0, reason: 'length', raw: 'limit' },
          m: LAST_KEPT,
          z: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^----------------!');
      });
    });

    it('errors with ProviderError at an error chunk and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a----e--b--|', {
          a: piece('x'),
          e: frame({ error: { code: 500, message: 'crash', type: 'server_error' } }),
          b: piece('never'),
        });
        const error = new ProviderError('the provider reported an error at frame 2: crash (server_error, code 500)');
        expectObservable(source.pipe(assembleChunks({ dialect: llamacppCompletion }))).toBe(
          '-(ak)-#',
          { a: { type: 'content', choice: 0, text: 'x' }, k: PIECE_KEPT },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^-----!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes before stop: true', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a----a-|', { a: piece('x') });
        const error = new StreamClosedEarlyError('the stream ended without a chunk with stop: true after 2 frames');
        expectObservable(source.pipe(assembleChunks({ dialect: llamacppCompletion }))).toBe(
          '-(ak)-a-#',
          { a: { type: 'content', choice: 0, text: 'x' }, k: PIECE_KEPT },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^-------!');
      });
    });
  });
});
