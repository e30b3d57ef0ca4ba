import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { autoDialect } from '../../src/dialects/auto';
import { ProtocolError } from '../../src/errors/errors';
import { ChatEvent, Completion, TokenLogprob } from '../../src/types/events';
import { Assembled, assembleAtEverySize, assembleText, dataEvents } from '../support/dialect';

/**
 * The legacy Completions stream (`/v1/completions`), which the `openai-chat` dialect reads: chunks
 * with `"object": "text_completion"` and the text in `choices[].text`, with no delta.
 */

/** SSE text of `payloads`: a `data:` event each, its JSON compact as servers write it; `'[DONE]'` as it is. */
const sse = dataEvents;

/** Chunk sizes every stream of this spec is read at, besides in one piece. */
/** Reads `text` whole and at every chunk size: each reading must be the whole one. */
const atEverySize = (
  text: string,
  dialect: Parameters<typeof assembleText>[1] = openaiChat,
  options: Parameters<typeof assembleText>[2] = {},
): Assembled => assembleAtEverySize(text, dialect, options);

// OpenAI's legacy endpoint (gpt-3.5-turbo-instruct) with `logprobs: 2` and
// `stream_options.include_usage`: each chunk's text in `choices[].text`, its log probabilities as
// parallel arrays, the finish on a chunk with text "", the usage on a last chunk with no choices.
// Shapes: https://platform.openai.com/docs/api-reference/completions/object (the `Completion` and
// `CompletionChoice.Logprobs` types of openai-node, src/resources/completions.ts).
const OPENAI_LEGACY = sse(
  {
    id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
    object: 'text_completion',
    created: 1767225600,
    choices: [
      {
        text: 'Paris',
        index: 0,
        logprobs: { tokens: ['Paris'], token_logprobs: [-0.0213], top_logprobs: [{ Paris: -0.0213, ' Paris': -4.012 }], text_offset: [32] },
        finish_reason: null,
      },
    ],
    model: 'gpt-3.5-turbo-instruct',
  },
  {
    id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
    object: 'text_completion',
    created: 1767225600,
    choices: [
      {
        text: ' is the',
        index: 0,
        logprobs: {
          tokens: [' is', ' the'],
          token_logprobs: [-0.1302, -0.0044],
          top_logprobs: [
            { ' is': -0.1302, ',': -2.207 },
            { ' the': -0.0044, ' a': -5.61 },
          ],
          text_offset: [37, 40],
        },
        finish_reason: null,
      },
    ],
    model: 'gpt-3.5-turbo-instruct',
  },
  {
    id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
    object: 'text_completion',
    created: 1767225600,
    choices: [
      {
        text: ' capital.',
        index: 0,
        logprobs: {
          tokens: [' capital', '.'],
          token_logprobs: [-0.0009, -0.3515],
          top_logprobs: [
            { ' capital': -0.0009, ' city': -7.25 },
            { '.': -0.3515, ',': -1.214 },
          ],
          text_offset: [44, 52],
        },
        finish_reason: null,
      },
    ],
    model: 'gpt-3.5-turbo-instruct',
  },
  {
    id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
    object: 'text_completion',
    created: 1767225600,
    choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }],
    model: 'gpt-3.5-turbo-instruct',
  },
  {
    id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
    object: 'text_completion',
    created: 1767225600,
    choices: [],
    model: 'gpt-3.5-turbo-instruct',
    usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
  },
  '[DONE]',
);

/** A token of the legacy shape as the Chat shape: `bytes` null, the alternatives in their order. */
const legacy = (token: string, logprob: number, top: [string, number][]): TokenLogprob => ({
  token,
  logprob,
  bytes: null,
  top_logprobs: top.map(([alternative, value]) => ({ token: alternative, logprob: value, bytes: null })),
});

const OPENAI_LOGPROBS: TokenLogprob[] = [
  legacy('Paris', -0.0213, [
    ['Paris', -0.0213],
    [' Paris', -4.012],
  ]),
  legacy(' is', -0.1302, [
    [' is', -0.1302],
    [',', -2.207],
  ]),
  legacy(' the', -0.0044, [
    [' the', -0.0044],
    [' a', -5.61],
  ]),
  legacy(' capital', -0.0009, [
    [' capital', -0.0009],
    [' city', -7.25],
  ]),
  legacy('.', -0.3515, [
    ['.', -0.3515],
    [',', -1.214],
  ]),
];

const OPENAI_COMPLETION: Completion = {
  id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya',
  model: 'gpt-3.5-turbo-instruct',
  content: 'Paris is the capital.',
  reasoning: null,
  refusal: null,
  toolCalls: [],
  finishReason: 'stop',
  rawFinishReason: 'stop',
  usage: { promptTokens: 9, completionTokens: 5, totalTokens: 14 },
  timings: null,
  reasoningTokens: 0,
  logprobs: { content: OPENAI_LOGPROBS, refusal: null },
  // Every chunk's `created`, which no field of a completion names: kept once.
  providerMetadata: { openai: { created: 1767225600 } },
  choices: [
    {
      index: 0,
      content: 'Paris is the capital.',
      reasoning: null,
      refusal: null,
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'stop',
      logprobs: { content: OPENAI_LOGPROBS, refusal: null },
    },
  ],
};

// llama.cpp's `/v1/completions` with `logprobs: 2`: the chunk fields in the order the server writes
// them, the log probabilities in the Chat shape under `logprobs.content` (with the token `id`), the
// text already sent when the final chunk comes (its text is ""), the usage and the `timings` on it,
// then `[DONE]`. Shapes: llama.cpp tools/server/server-task.cpp,
// `server_task_result_cmpl_partial::to_json_oaicompat` and `server_task_result_cmpl_final::to_json_oaicompat`
// (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-task.cpp), and the
// `/v1/completions` section of https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md.
const LLAMACPP = sse(
  {
    choices: [
      {
        text: 'Paris',
        index: 0,
        logprobs: {
          content: [
            {
              id: 59604,
              token: 'Paris',
              bytes: [80, 97, 114, 105, 115],
              logprob: -0.0398,
              top_logprobs: [
                { id: 59604, token: 'Paris', bytes: [80, 97, 114, 105, 115], logprob: -0.0398 },
                { id: 12095, token: ' Paris', bytes: [32, 80, 97, 114, 105, 115], logprob: -3.2519 },
              ],
            },
          ],
        },
        finish_reason: null,
      },
    ],
    created: 1767225600,
    model: 'Qwen3-8B-Q4_K_M.gguf',
    system_fingerprint: 'b6512-4f3a9c1e',
    object: 'text_completion',
    id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
  },
  {
    choices: [
      {
        text: ' is',
        index: 0,
        logprobs: {
          content: [
            {
              id: 374,
              token: ' is',
              bytes: [32, 105, 115],
              logprob: -0.0071,
              top_logprobs: [
                { id: 374, token: ' is', bytes: [32, 105, 115], logprob: -0.0071 },
                { id: 11, token: ',', bytes: [44], logprob: -5.0113 },
              ],
            },
          ],
        },
        finish_reason: null,
      },
    ],
    created: 1767225600,
    model: 'Qwen3-8B-Q4_K_M.gguf',
    system_fingerprint: 'b6512-4f3a9c1e',
    object: 'text_completion',
    id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
  },
  {
    choices: [{ text: ' the capital', index: 0, logprobs: null, finish_reason: null }],
    created: 1767225600,
    model: 'Qwen3-8B-Q4_K_M.gguf',
    system_fingerprint: 'b6512-4f3a9c1e',
    object: 'text_completion',
    id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
  },
  {
    choices: [{ text: ' of France.', index: 0, logprobs: null, finish_reason: null }],
    created: 1767225600,
    model: 'Qwen3-8B-Q4_K_M.gguf',
    system_fingerprint: 'b6512-4f3a9c1e',
    object: 'text_completion',
    id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
  },
  {
    choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }],
    created: 1767225600,
    model: 'Qwen3-8B-Q4_K_M.gguf',
    system_fingerprint: 'b6512-4f3a9c1e',
    object: 'text_completion',
    usage: { completion_tokens: 8, prompt_tokens: 9, total_tokens: 17 },
    id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
    timings: {
      cache_n: 0,
      prompt_n: 9,
      prompt_ms: 11.42,
      prompt_per_token_ms: 1.268889,
      prompt_per_second: 788.09,
      predicted_n: 8,
      predicted_ms: 162.77,
      predicted_per_token_ms: 20.34625,
      predicted_per_second: 49.149,
    },
  },
  '[DONE]',
);

const LLAMACPP_TIMINGS = {
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

/** The llama.cpp tokens in OpenAI's shape: the token `id`s dropped. */
const LLAMACPP_LOGPROBS: TokenLogprob[] = [
  {
    token: 'Paris',
    logprob: -0.0398,
    bytes: [80, 97, 114, 105, 115],
    top_logprobs: [
      { token: 'Paris', logprob: -0.0398, bytes: [80, 97, 114, 105, 115] },
      { token: ' Paris', logprob: -3.2519, bytes: [32, 80, 97, 114, 105, 115] },
    ],
  },
  {
    token: ' is',
    logprob: -0.0071,
    bytes: [32, 105, 115],
    top_logprobs: [
      { token: ' is', logprob: -0.0071, bytes: [32, 105, 115] },
      { token: ',', logprob: -5.0113, bytes: [44] },
    ],
  },
];

const LLAMACPP_COMPLETION: Completion = {
  id: 'chatcmpl-Lc4Vn8Qw2Rt6Yp1Zk9Hs3Jd7Fg5Xa0Mb',
  model: 'Qwen3-8B-Q4_K_M.gguf',
  content: 'Paris is the capital of France.',
  reasoning: null,
  refusal: null,
  toolCalls: [],
  finishReason: 'stop',
  rawFinishReason: 'stop',
  usage: { promptTokens: 9, completionTokens: 8, totalTokens: 17 },
  timings: LLAMACPP_TIMINGS,
  reasoningTokens: 0,
  logprobs: { content: LLAMACPP_LOGPROBS, refusal: null },
  // Every chunk's `created` and `system_fingerprint` (llama.cpp's build), which no field names.
  providerMetadata: { openai: { created: 1767225600, system_fingerprint: 'b6512-4f3a9c1e' } },
  choices: [
    {
      index: 0,
      content: 'Paris is the capital of France.',
      reasoning: null,
      refusal: null,
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'stop',
      logprobs: { content: LLAMACPP_LOGPROBS, refusal: null },
    },
  ],
};

describe('openai-chat dialect: the legacy Completions stream (text_completion)', () => {
  describe("OpenAI's /v1/completions", () => {
    it('assembles choices[].text, its log probabilities in the Chat shape, the finish and the usage, at every chunk size', () => {
      expect(atEverySize(OPENAI_LEGACY)).toEqual({ events: expect.any(Array) as unknown, completion: OPENAI_COMPLETION });
    });

    it('emits, per chunk, content then logprobs, then the finish, the usage and done', () => {
      const content = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
      expect(assembleText(OPENAI_LEGACY, openaiChat).events).toEqual([
        { type: 'start', id: 'cmpl-B7qLm2Xc9RtVw4NzKp8HsJd3Fg6Ya', model: 'gpt-3.5-turbo-instruct' },
        content('Paris'),
        { type: 'logprobs', choice: 0, content: OPENAI_LOGPROBS.slice(0, 1) },
        { type: 'provider-metadata', provider: 'openai', fields: { created: 1767225600 } },
        content(' is the'),
        { type: 'logprobs', choice: 0, content: OPENAI_LOGPROBS.slice(1, 3) },
        content(' capital.'),
        { type: 'logprobs', choice: 0, content: OPENAI_LOGPROBS.slice(3) },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
        { type: 'usage', usage: { promptTokens: 9, completionTokens: 5, totalTokens: 14 } },
        { type: 'done' },
      ]);
    });

    it('is chosen by auto, which then gives the same completion at every chunk size', () => {
      expect(atEverySize(OPENAI_LEGACY, autoDialect).completion).toEqual(OPENAI_COMPLETION);
    });

    it('normalizes the finish reason length, and keeps the text of every choice apart (n = 2)', () => {
      // Two choices interleaved, as the legacy endpoint streams `n: 2`; shapes as above.
      const stream = sse(
        {
          id: 'cmpl-n2',
          object: 'text_completion',
          created: 1,
          choices: [{ text: 'Red', index: 0, logprobs: null, finish_reason: null }],
          model: 'gpt-3.5-turbo-instruct',
        },
        {
          id: 'cmpl-n2',
          object: 'text_completion',
          created: 1,
          choices: [{ text: 'Blue', index: 1, logprobs: null, finish_reason: null }],
          model: 'gpt-3.5-turbo-instruct',
        },
        {
          id: 'cmpl-n2',
          object: 'text_completion',
          created: 1,
          choices: [{ text: ' and', index: 0, logprobs: null, finish_reason: 'length' }],
          model: 'gpt-3.5-turbo-instruct',
        },
        {
          id: 'cmpl-n2',
          object: 'text_completion',
          created: 1,
          choices: [{ text: '', index: 1, logprobs: null, finish_reason: 'stop' }],
          model: 'gpt-3.5-turbo-instruct',
        },
        '[DONE]',
      );
      const { completion } = atEverySize(stream);
      expect(completion?.choices.map(({ index, content, finishReason }) => ({ index, content, finishReason }))).toEqual([
        { index: 0, content: 'Red and', finishReason: 'length' },
        { index: 1, content: 'Blue', finishReason: 'stop' },
      ]);
    });
  });

  describe("llama.cpp's /v1/completions", () => {
    it('assembles the text, the log probabilities (token ids dropped), the usage and the final timings, at every chunk size', () => {
      expect(atEverySize(LLAMACPP).completion).toEqual(LLAMACPP_COMPLETION);
    });

    it('is chosen by auto, which then gives the same completion at every chunk size', () => {
      expect(atEverySize(LLAMACPP, autoDialect).completion).toEqual(LLAMACPP_COMPLETION);
    });

    it('emits the timings after the usage of the final chunk', () => {
      const { events } = assembleText(LLAMACPP, openaiChat);
      expect(events.slice(-4)).toEqual([
        { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
        { type: 'usage', usage: { promptTokens: 9, completionTokens: 8, totalTokens: 17 } },
        { type: 'timings', timings: LLAMACPP_TIMINGS },
        { type: 'done' },
      ]);
    });
  });

  describe('the legacy log probabilities', () => {
    // `echo: true` with `logprobs`: the first token of the prompt has no log probability (`null`),
    // as openai-node's `CompletionChoice.Logprobs` allows; https://platform.openai.com/docs/api-reference/completions/create
    const echoed = sse(
      {
        id: 'cmpl-echo',
        object: 'text_completion',
        created: 1,
        choices: [
          {
            text: 'Hi there',
            index: 0,
            logprobs: {
              tokens: ['Hi', ' there'],
              token_logprobs: [null, -1.5],
              top_logprobs: [null, { ' there': -1.5 }],
              text_offset: [0, 2],
            },
            finish_reason: 'stop',
          },
        ],
        model: 'gpt-3.5-turbo-instruct',
      },
      '[DONE]',
    );

    it('skips a position with no log probability, and reads the others', () => {
      expect(atEverySize(echoed).completion?.logprobs).toEqual({
        content: [{ token: ' there', logprob: -1.5, bytes: null, top_logprobs: [{ token: ' there', logprob: -1.5, bytes: null }] }],
        refusal: null,
      });
    });

    it('refuses that position under strict, naming where', () => {
      const { error } = assembleText(echoed, openaiChat, { dialect: { strict: true } });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe(
        "frame 1: choices[0].logprobs.tokens holds an entry that is not a token's log probability",
      );
    });
  });

  describe('where the text is read', () => {
    it('reads choices[].text only when the choice has no delta', () => {
      const stream = sse(
        {
          id: 'x',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: 'from the delta' }, text: 'not this', finish_reason: 'stop' }],
        },
        '[DONE]',
      );
      expect(assembleText(stream, openaiChat).completion?.content).toBe('from the delta');
    });

    it('is a ProtocolError for choices[].text that is not text', () => {
      const stream = sse({ id: 'x', object: 'text_completion', choices: [{ index: 0, text: 7, finish_reason: 'stop' }] }, '[DONE]');
      expect((assembleText(stream, openaiChat).error as ProtocolError).message).toBe('frame 1: choices[0].text is 7, not text');
    });
  });
});

describe('the legacy function_call (before tool_calls)', () => {
  // The deprecated `functions` / `function_call` request streams one call per choice as
  // `delta.function_call` pieces, finished by `function_call`; the wire gives it no id.
  // Shape: https://platform.openai.com/docs/api-reference/chat/object (`function_call`, deprecated)
  // and ../shared reference dialects.md, "Legacy functions / function_call".
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-Z',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const stream = sse(
    chunk({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '' } }),
    chunk({ function_call: { arguments: '{"city":' } }),
    chunk({ function_call: { arguments: '"Paris"}' } }),
    chunk({}, 'function_call'),
    '[DONE]',
  );

  it('assembles it as one tool call with the id function_call, its finish tool_calls, at every chunk size', () => {
    const { completion, error } = atEverySize(stream);
    expect(error).toBeUndefined();
    expect(completion?.toolCalls).toEqual([
      { index: 0, id: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } },
    ]);
    expect(completion).toMatchObject({ finishReason: 'tool_calls', rawFinishReason: 'function_call', content: null });
  });

  it('reads it under strict as well: it is the format, not a quirk', () => {
    const { completion, error } = assembleText(stream, openaiChat, { dialect: { strict: true } });
    expect(error).toBeUndefined();
    expect(completion?.toolCalls.map((call) => call.name)).toEqual(['get_weather']);
  });

  it('is a ProtocolError for arguments that are not text', () => {
    const { error } = assembleText(
      sse(chunk({ function_call: { name: 'f', arguments: 7 } }), chunk({}, 'function_call'), '[DONE]'),
      openaiChat,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('function_call.arguments is 7');
  });
});
