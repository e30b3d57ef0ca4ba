import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { aiSdkUi } from '../../src/dialects/ai-sdk-ui/aiSdkUi';
import { DialectFactory } from '../../src/dialects/Dialect';
import { ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { Completion } from '../../src/types/events';
import { runSync } from '../support/collect';
import { chunksOf, utf8 } from '../support/chunking';

// Issue 30, sections A (complete replies refused), D (errors) and G (auto), for the OpenAI Chat family
// and the bytes before it. The streams follow what each server sends (the servers' own docs and SDK
// types, cited at each); the expected readings are written by hand.

interface Read {
  readonly completion?: Completion;
  readonly error?: unknown;
}

/**
 * `text` through the README pipeline, whole and at 1, 7 and 64-byte chunks, with the dialect named
 * and under `auto`: every reading must agree, and the one reading is returned.
 */
function read(text: string, dialect: DialectFactory = openaiChat, options: { strict?: boolean } = {}): Read {
  const bytes = utf8(text);
  const readings: Read[] = [];
  for (const named of [true, false]) {
    for (const pieces of [[bytes], chunksOf(bytes, 1), chunksOf(bytes, 7), chunksOf(bytes, 64)]) {
      const outcome = runSync(pieces, (source) =>
        source.pipe(
          decodeUtf8(),
          sseFrames(),
          assembleChunks(named ? { dialect, ...options } : options),
          groupToolCallsByIndex(),
          finalizeCompletion(),
        ),
      );
      readings.push(outcome.error === undefined ? { completion: outcome.values[0] } : { error: outcome.error });
    }
  }
  for (const reading of readings.slice(1)) {
    if (readings[0]!.error === undefined) expect(reading).toEqual(readings[0]);
    // The error's class and reason agree; `auto` may word a message otherwise (it names no dialect).
    else expect(outcomeOf(reading.error)).toEqual(outcomeOf(readings[0]!.error));
  }
  return readings[0]!;
}

const outcomeOf = (error: unknown): [string, unknown] => [(error as Error).name, (error as { reason?: unknown }).reason];

const sse = (...payloads: unknown[]): string => payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
const DONE = 'data: [DONE]\n\n';

// Perplexity's Sonar stream (its API reference, "Streaming Responses"): every chunk has the delta and the
// message so far, `usage` and `citations`; the last is a whole `chat.completion` with `message` and no
// delta; no [DONE].
const perplexity = (id: string) => [
  {
    id,
    model: 'sonar',
    created: 1770768233,
    object: 'chat.completion.chunk',
    usage: { prompt_tokens: 11, completion_tokens: 1, total_tokens: 12 },
    citations: ['https://example.org/a'],
    choices: [
      { index: 0, delta: { role: 'assistant', content: 'Eco' }, message: { role: 'assistant', content: 'Eco' }, finish_reason: null },
    ],
  },
  {
    id,
    model: 'sonar',
    created: 1770768233,
    object: 'chat.completion.chunk',
    usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
    citations: ['https://example.org/a'],
    choices: [
      {
        index: 0,
        delta: { role: 'assistant', content: '-friendly' },
        message: { role: 'assistant', content: 'Eco-friendly' },
        finish_reason: null,
      },
    ],
  },
  {
    id,
    model: 'sonar',
    created: 1770768237,
    object: 'chat.completion',
    usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
    citations: ['https://example.org/a'],
    choices: [{ index: 0, message: { role: 'assistant', content: 'Eco-friendly trees.' }, finish_reason: 'stop' }],
  },
];

// Hugging Face TGI 2.x's chat stream (its OpenAPI `ChatCompletionChunk`): `id` is "", the system
// fingerprint is the server's version, the end of sequence is `eos_token`; no [DONE].
const tgi = [
  {
    object: 'chat.completion.chunk',
    id: '',
    created: 1712852387,
    model: 'tgi',
    system_fingerprint: '2.0.0-native',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Deep' }, logprobs: null, finish_reason: null }],
  },
  {
    object: 'chat.completion.chunk',
    id: '',
    created: 1712852387,
    model: 'tgi',
    system_fingerprint: '2.0.0-native',
    choices: [{ index: 0, delta: { role: 'assistant', content: ' learning' }, logprobs: null, finish_reason: 'eos_token' }],
  },
];

describe('openai-chat: replies that are whole without the usual end (issue 30, A)', () => {
  it("reads Perplexity's stream, which ends with a whole chat.completion and no [DONE], its text once", () => {
    const { completion, error } = read(sse(...perplexity('a3d55d44-63f9-4704-bb26-e17be1ddab3a')));
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      id: 'a3d55d44-63f9-4704-bb26-e17be1ddab3a',
      model: 'sonar',
      content: 'Eco-friendly',
      finishReason: 'stop',
      rawFinishReason: 'stop',
      usage: { promptTokens: 11, completionTokens: 4, totalTokens: 15 },
    });
  });

  it('reads a reply sent as one whole chat.completion chunk with a message and no delta', () => {
    const whole = perplexity('one')[2]!;
    const { completion } = read(sse(whole));
    expect(completion).toMatchObject({ id: 'one', content: 'Eco-friendly trees.', finishReason: 'stop' });
  });

  it('reads TGI 2.x\'s stream: an id of "", finish_reason eos_token, no [DONE]', () => {
    const { completion, error } = read(sse(...tgi));
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      id: '',
      model: 'tgi',
      content: 'Deep learning',
      finishReason: 'stop',
      rawFinishReason: 'eos_token',
    });
  });

  it('reads chunks whose id is "" before [DONE] (Snowflake Cortex), the id "" unless a later chunk names one', () => {
    const chunk = (id: string, delta: object, finish: string | null) => ({
      id,
      model: 'claude',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    expect(read(sse(chunk('', { content: 'Hi' }, null), chunk('', {}, 'stop')) + DONE).completion).toMatchObject({ id: '', content: 'Hi' });
    expect(read(sse(chunk('', { content: 'Hi' }, null), chunk('gen-7', {}, 'stop')) + DONE).completion).toMatchObject({
      id: 'gen-7',
      content: 'Hi',
    });
  });

  it('finishes at [DONE] a choice that named no finish (OpenRouter relaying some providers): stop, or tool_calls after calls', () => {
    const text = read(sse({ id: 'gen-1', choices: [{ index: 0, delta: { content: 'Hello' } }] }) + DONE);
    expect(text.completion).toMatchObject({ content: 'Hello', finishReason: 'stop', rawFinishReason: 'stop' });
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };
    const calls = read(sse({ id: 'gen-2', choices: [{ index: 0, delta: { tool_calls: [call] } }] }) + DONE);
    expect(calls.completion).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } }],
    });
  });

  it('reads reasoning that comes only in reasoning_details (OpenRouter, Snowflake)', () => {
    const details = (text: string) => [{ type: 'reasoning.text', text, format: 'anthropic-claude-v1', index: 0 }];
    const { completion } = read(
      sse(
        { id: 'gen-3', choices: [{ index: 0, delta: { reasoning_details: details('Think ') } }] },
        { id: 'gen-3', choices: [{ index: 0, delta: { reasoning_details: details('twice.') } }] },
        { id: 'gen-3', choices: [{ index: 0, delta: { reasoning_details: [{ type: 'reasoning.encrypted', data: 'gAAAA' }] } }] },
        { id: 'gen-3', choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] },
      ) + DONE,
    );
    expect(completion).toMatchObject({ reasoning: 'Think twice.', content: 'Done.' });
  });

  describe('a cut reply still never passes', () => {
    it('a body cut inside a line', () => {
      const text = sse(...tgi);
      const { error } = read(text.slice(0, text.length - 20));
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ reason: 'mid-line' });
    });

    it('a choice that never finished, and no end signal', () => {
      const { error } = read(sse(tgi[0]!));
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ reason: 'no-end-signal' });
    });

    it('one choice of two that finished, and no end signal', () => {
      const chunk = (index: number, delta: object, finish: string | null) => ({
        id: 'c',
        choices: [{ index, delta, finish_reason: finish }],
      });
      const { error } = read(sse(chunk(0, { content: 'a' }, null), chunk(1, { content: 'b' }, null), chunk(0, {}, 'stop')));
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
    });

    it('chunks that said "usage": null, then the finish, and the usage never came', () => {
      const chunk = (delta: object, finish: string | null) => ({
        id: 'chatcmpl-1',
        choices: [{ index: 0, delta, finish_reason: finish }],
        usage: null,
      });
      const { error, completion } = read(sse(chunk({ content: 'a' }, null), chunk({}, 'stop')));
      expect(completion).toBeUndefined();
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ reason: 'no-end-signal', partial: { content: 'a', finishReason: 'stop' } });
      // The same with its usage chunk is whole.
      const usage = { id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
      expect(read(sse(chunk({ content: 'a' }, null), chunk({}, 'stop'), usage)).completion).toMatchObject({
        content: 'a',
        usage: { totalTokens: 2 },
      });
    });

    it('strict keeps the exact rules: [DONE], a finish reason and an id are all required', () => {
      expect(read(sse(...tgi), openaiChat, { strict: true }).error).toBeInstanceOf(Error);
      expect(read(sse(...tgi) + DONE, openaiChat, { strict: true }).error).toBeInstanceOf(Error);
      expect(
        read(sse({ id: 'gen-1', choices: [{ index: 0, delta: { content: 'Hello' } }] }) + DONE, openaiChat, { strict: true }).error,
      ).toBeInstanceOf(StreamClosedEarlyError);
    });
  });
});

describe('openai-chat and the bytes before it: errors (issue 30, D)', () => {
  it("is a ProviderError for Groq's x_groq.error inside a chunk, not a normal stop", () => {
    // groq-sdk's ChatCompletionChunk.XGroq: `error?: string`, "why a stream was stopped early".
    const { error } = read(
      sse(
        {
          id: 'chatcmpl-g',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: 'Hal' }, finish_reason: null }],
          x_groq: { id: 'req_1' },
        },
        {
          id: 'chatcmpl-g',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          x_groq: { id: 'req_1', error: 'the model produced an invalid tool call' },
        },
      ) + DONE,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe('the provider reported an error at frame 2: the model produced an invalid tool call');
    expect(error).toMatchObject({ partial: { content: 'Hal' } });
  });

  it("is a ProviderError for a pretty-printed JSON error body (Google's 400), with what the one-line body gives", () => {
    const error = { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' };
    const pretty = read(JSON.stringify({ error }, null, 2) + '\n').error as ProviderError;
    const oneLine = read(JSON.stringify({ error })).error as ProviderError;
    expect(pretty).toBeInstanceOf(ProviderError);
    expect(oneLine).toBeInstanceOf(ProviderError);
    expect(pretty.message).toBe('the provider answered with an error instead of a stream: API key not valid. Please pass a valid API key.');
    expect({ type: pretty.type, code: pretty.code, body: pretty.body, reason: pretty.reason }).toEqual({
      type: 'INVALID_ARGUMENT',
      code: 400,
      body: { error },
      reason: 'error-body',
    });
    expect([pretty.message, pretty.type, pretty.code, pretty.body]).toEqual([oneLine.message, oneLine.type, oneLine.code, oneLine.body]);
    // As the one element of an array (the JSON-array stream of `streamGenerateContent` without `alt=sse`).
    expect(read(JSON.stringify([{ error }], null, 2)).error).toMatchObject({ type: 'INVALID_ARGUMENT', code: 400 });
  });

  it('reads an HTML error page no more than before: no event, a StreamClosedEarlyError', () => {
    const { error } = read('<html>\n<body>502 Bad Gateway</body>\n</html>\n');
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
  });
});

describe('auto (issue 30, G)', () => {
  it('reads the AI SDK\'s UI message stream from its first frame, {"type":"start","messageId":...}', () => {
    // ai 7's UIMessageChunk, as `toUIMessageStreamResponse` writes it (header x-vercel-ai-ui-message-stream: v1).
    const text =
      sse(
        { type: 'start', messageId: 'msg_1' },
        { type: 'start-step' },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Hello' },
        { type: 'text-delta', id: 't1', delta: ' there' },
        { type: 'text-end', id: 't1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
      ) + DONE;
    const { completion, error } = read(text, aiSdkUi);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Hello there', finishReason: 'stop' });
  });
});

describe('openai-chat keeps the usage details (issue 30, F)', () => {
  it('reads audio tokens as the usage audio counts, and keeps the predicted-output counts in the open reply', () => {
    // openai 7.x CompletionUsage (resources/completions.d.ts): completion_tokens_details
    // {accepted_prediction_tokens?, audio_tokens?, reasoning_tokens?, rejected_prediction_tokens?, text_tokens?},
    // prompt_tokens_details {audio_tokens?, cache_write_tokens?, cached_tokens?, image_tokens?, text_tokens?}.
    const envelope = { id: 'chatcmpl-u', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-audio' };
    const text = [
      { ...envelope, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
      { ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      {
        ...envelope,
        choices: [],
        usage: {
          prompt_tokens: 40,
          completion_tokens: 30,
          total_tokens: 70,
          prompt_tokens_details: { audio_tokens: 25, cached_tokens: 0, cache_write_tokens: 10 },
          completion_tokens_details: {
            audio_tokens: 20,
            reasoning_tokens: 0,
            accepted_prediction_tokens: 4,
            rejected_prediction_tokens: 2,
          },
        },
      },
    ]
      .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      .join('');
    const { completion, error } = read(`${text}data: [DONE]\n\n`);
    expect(error).toBeUndefined();
    expect(completion!.usage).toEqual({
      promptTokens: 40,
      completionTokens: 30,
      totalTokens: 70,
      cachedPromptTokens: 0,
      cacheWritePromptTokens: 10,
      reasoningTokens: 0,
      audioPromptTokens: 25,
      audioCompletionTokens: 20,
    });
    expect(completion!.providerMetadata?.['openai']).toMatchObject({ accepted_prediction_tokens: 4, rejected_prediction_tokens: 2 });
  });
});

describe('openai-chat reads Perplexity sources (issue 30, F)', () => {
  it('reads search_results and citations, repeated by every chunk, as url sources, each url once, titled when a result names it', () => {
    // Perplexity's chat completion chunk (docs.perplexity.ai, Chat Completions): `search_results`
    // [{title, url, date}] and `citations` [url] beside `choices`, repeated in every chunk.
    const envelope = {
      id: 'pplx-1',
      model: 'sonar',
      created: 1,
      object: 'chat.completion.chunk',
      citations: ['https://a.example/1', 'https://b.example/2'],
      search_results: [{ title: 'Page A', url: 'https://a.example/1', date: '2026-01-02' }],
    };
    const text = [
      { ...envelope, choices: [{ index: 0, delta: { role: 'assistant', content: 'Both say so' } }] },
      { ...envelope, choices: [{ index: 0, delta: { content: ' [1][2].' }, finish_reason: 'stop' }] },
    ]
      .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      .join('');
    const { completion, error } = read(text);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Both say so [1][2].', finishReason: 'stop' });
    expect(completion!.sources).toEqual([
      { kind: 'url', url: 'https://a.example/1', title: 'Page A' },
      { kind: 'url', url: 'https://b.example/2' },
    ]);
  });
});

describe('openai-chat reads the tools Groq ran (issue 30, F)', () => {
  it('reads delta.executed_tools as provider tool calls, each with its output once it comes; no call for the program', () => {
    // groq-sdk 1.6 ChatCompletionChunk.Choice.Delta.executed_tools: ExecutedTool {arguments: string,
    // index: number, type: string, output?: string | null, search_results?, browser_results?, code_results?}.
    const envelope = { id: 'chatcmpl-g', object: 'chat.completion.chunk', created: 1, model: 'groq/compound' };
    const text = [
      {
        ...envelope,
        choices: [
          { index: 0, delta: { role: 'assistant', executed_tools: [{ index: 0, type: 'search', arguments: '{"query":"rxjs 8"}' }] } },
        ],
      },
      {
        ...envelope,
        choices: [
          {
            index: 0,
            delta: { executed_tools: [{ index: 0, type: 'search', arguments: '{"query":"rxjs 8"}', output: 'RxJS 8 is in beta.' }] },
          },
        ],
      },
      { ...envelope, choices: [{ index: 0, delta: { content: 'RxJS 8 is in beta.' }, finish_reason: 'stop' }] },
    ]
      .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      .join('');
    const { completion, error } = read(`${text}data: [DONE]\n\n`);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'RxJS 8 is in beta.', toolCalls: [], finishReason: 'stop' });
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'executed-tool-0',
        name: 'search',
        type: 'executed_tools',
        input: { query: 'rxjs 8' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: 'RxJS 8 is in beta.',
      },
    ]);
  });
});

describe('openai-chat reads Groq document and function citations (issue 30, F)', () => {
  it('reads document_citation as a document source with its span, and keeps function_citation with the choice', () => {
    // groq-sdk 1.6 ChatCompletionChunk.Choice.Delta.annotations: Array<Delta.Annotation> {type:
    // 'document_citation' | 'function_citation', document_citation?: DocumentCitation {document_id,
    // start_index, end_index}, function_citation?: FunctionCitation {tool_call_id, start_index, end_index}}.
    // A document names a source (CompletionCreateParams.Document.id: "can be used for citations"); a
    // function citation names a tool call of the conversation, not a source.
    const envelope = { id: 'chatcmpl-gc', object: 'chat.completion.chunk', created: 1, model: 'openai/gpt-oss-120b' };
    const documentCitation = { type: 'document_citation', document_citation: { document_id: 'doc-7', start_index: 0, end_index: 13 } };
    const functionCitation = { type: 'function_citation', function_citation: { tool_call_id: 'call_1', start_index: 14, end_index: 22 } };
    const text = sse(
      { ...envelope, choices: [{ index: 0, delta: { role: 'assistant', content: 'Leases run 12' } }] },
      { ...envelope, choices: [{ index: 0, delta: { content: ' months.', annotations: [documentCitation] } }] },
      { ...envelope, choices: [{ index: 0, delta: { annotations: [documentCitation, functionCitation] }, finish_reason: 'stop' }] },
    );
    const { completion, error } = read(`${text}${DONE}`);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Leases run 12 months.', toolCalls: [], finishReason: 'stop' });
    expect(completion!.sources).toEqual([{ kind: 'document', documentId: 'doc-7', span: { start: 0, end: 13 } }]);
    expect(completion!.choices[0]!.providerMetadata).toEqual({ openai: { items: [functionCitation] } });
  });
});

describe('openai-chat reads Mistral reference chunks (issue 30, F)', () => {
  it('reads a reference chunk in a delta content array as document sources by id, never as text', () => {
    // @mistralai/mistralai 2.7 DeltaMessage.content: string | Array<ContentChunk>; ContentChunk includes
    // ReferenceChunk {type: "reference", referenceIds: Array<number | string>}, on the wire
    // (ReferenceChunk$Outbound) `{"type": "reference", "reference_ids": [...]}`, beside TextChunk
    // {type: "text", text}. The ids name the documents (tool results) the text before them cites.
    const envelope = { id: 'cmpl-m', object: 'chat.completion.chunk', created: 1, model: 'mistral-large-latest' };
    const text = sse(
      { ...envelope, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] },
      {
        ...envelope,
        choices: [
          {
            index: 0,
            delta: {
              content: [
                { type: 'text', text: 'The Eiffel Tower is 330 m tall' },
                { type: 'reference', reference_ids: [0, 2] },
                { type: 'text', text: ' and was built in 1889.' },
                { type: 'reference', reference_ids: ['doc-b', 2] },
              ],
            },
          },
        ],
      },
      { ...envelope, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] },
    );
    const { completion, error } = read(`${text}${DONE}`);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'The Eiffel Tower is 330 m tall and was built in 1889.', finishReason: 'stop' });
    expect(completion!.sources).toEqual([
      { kind: 'document', documentId: '0' },
      { kind: 'document', documentId: '2' },
      { kind: 'document', documentId: 'doc-b' },
    ]);
  });
});
