import { Observable, from } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { awsEventStreamFrames } from '../../src/frames/awsEventStreamFrames';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ChatEvent } from '../../src/types/events';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { sseFrames } from '../../src/frames/sseFrames';
import { converseStream } from './awsEventStream';
import { chunksOf, utf8 } from './chunking';

// A structured answer as each provider streams it: the JSON text cut into deltas, in the provider's
// own frames. Shapes follow the recordings in marbles/ (openai-chat, anthropic-messages,
// gemini-native, ollama-native) and the Bedrock specs.

/** How a reply under a schema ended: normally, or cut by the token limit, or stopped by the filter. */
export type Ending = 'stop' | 'length' | 'content_filter';

/** A provider stream of a structured output: its bytes and how they are framed. */
export interface StructuredStream {
  readonly name: string;
  /** Where the output is in this provider's reply (its content, or a forced tool's arguments). */
  readonly from: 'content' | { readonly tool: string };
  readonly bytes: Uint8Array;
  readonly framing: 'sse' | 'ndjson' | 'aws';
}

const sse = (payloads: readonly unknown[]): string => payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join('');
const named = (events: readonly (readonly [string, unknown])[]): string =>
  events.map(([event, payload]) => `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`).join('');

function openaiChunk(delta: object, finish: string | null = null): object {
  return {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

/** OpenAI Chat Completions under `response_format: json_schema`: the JSON in content deltas. */
export function openaiContent(deltas: readonly string[], ending: Ending = 'stop'): StructuredStream {
  const usage = {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: [],
    usage: { prompt_tokens: 9, completion_tokens: 40, total_tokens: 49 },
  };
  const text = sse([
    openaiChunk({ role: 'assistant', content: '', refusal: null }),
    ...deltas.map((content) => openaiChunk({ content })),
    openaiChunk({}, ending),
    usage,
  ]);
  return { name: 'openai-chat content', from: 'content', bytes: utf8(`${text}data: [DONE]\n\n`), framing: 'sse' };
}

/** OpenAI Chat Completions with the schema as a forced function: the JSON in one call's argument fragments. */
export function openaiTool(deltas: readonly string[], ending: Ending = 'stop', tool = 'answer'): StructuredStream {
  const call = (fragment: object): object => openaiChunk({ tool_calls: [{ index: 0, ...fragment }] });
  const text = sse([
    openaiChunk({ role: 'assistant', content: null }),
    call({ id: 'call_s1', type: 'function', function: { name: tool, arguments: '' } }),
    ...deltas.map((args) => call({ function: { arguments: args } })),
    openaiChunk({}, ending === 'stop' ? 'stop' : ending), // forced calls finish with "stop"
  ]);
  return { name: 'openai-chat forced tool', from: { tool }, bytes: utf8(`${text}data: [DONE]\n\n`), framing: 'sse' };
}

/** Anthropic Messages with a forced tool as output: `input_json_delta` fragments of a `tool_use` block. */
export function anthropicTool(deltas: readonly string[], ending: Ending = 'stop', tool = 'answer'): StructuredStream {
  const stop = { stop: 'tool_use', length: 'max_tokens', content_filter: 'refusal' }[ending];
  const usage = { input_tokens: 12, output_tokens: 1 };
  const text = named([
    [
      'message_start',
      {
        type: 'message_start',
        message: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, usage },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_s', name: tool, input: {} } },
    ],
    ...deltas.map(
      (partial_json) =>
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } }] as const,
    ),
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 40 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  return { name: 'anthropic forced tool', from: { tool }, bytes: utf8(text), framing: 'sse' };
}

/** OpenAI Responses under `text.format: json_schema`: the JSON in `output_text.delta` events, then the response's end. */
export function responsesContent(deltas: readonly string[], ending: Ending = 'stop'): StructuredStream {
  const response = { id: 'resp_s', object: 'response', model: 'gpt-test', output: [], usage: null };
  const reason = ending === 'length' ? 'max_output_tokens' : 'content_filter';
  const end: readonly [string, unknown] =
    ending === 'stop'
      ? ['response.completed', { type: 'response.completed', response: { ...response, status: 'completed' } }]
      : [
          'response.incomplete',
          { type: 'response.incomplete', response: { ...response, status: 'incomplete', incomplete_details: { reason } } },
        ];
  const text = named([
    ['response.created', { type: 'response.created', response: { ...response, status: 'in_progress' } }],
    ...deltas.map(
      (delta) =>
        [
          'response.output_text.delta',
          { type: 'response.output_text.delta', item_id: 'msg_s', output_index: 0, content_index: 0, delta, logprobs: [] },
        ] as const,
    ),
    end,
  ]);
  return { name: 'openai-responses content', from: 'content', bytes: utf8(text), framing: 'sse' };
}

/** Gemini `streamGenerateContent?alt=sse` under `responseSchema`: the JSON in text parts. */
export function geminiContent(deltas: readonly string[], ending: Ending = 'stop'): StructuredStream {
  const finish = { stop: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' }[ending];
  const candidate = (text: string, last: boolean): object => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0, ...(last ? { finishReason: finish } : {}) }],
    ...(last ? { usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 40, totalTokenCount: 49 } } : {}),
    modelVersion: 'gemini-test',
    responseId: 'resp-s',
  });
  const text = sse(deltas.map((delta, i) => candidate(delta, i === deltas.length - 1)));
  return { name: 'gemini content', from: 'content', bytes: utf8(text), framing: 'sse' };
}

/** Ollama `/api/chat` with `format`: the JSON in NDJSON message contents. */
export function ollamaContent(deltas: readonly string[], ending: Ending = 'stop'): StructuredStream {
  const line = (content: string): string =>
    `${JSON.stringify({ model: 'qwen-test', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done: false })}\n`;
  const reason = ending === 'length' ? 'length' : 'stop';
  const last = {
    model: 'qwen-test',
    created_at: '2026-01-01T00:00:01Z',
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: reason,
    eval_count: 40,
  };
  return {
    name: 'ollama content',
    from: 'content',
    bytes: utf8(deltas.map(line).join('') + `${JSON.stringify(last)}\n`),
    framing: 'ndjson',
  };
}

/** Bedrock ConverseStream: the JSON in text `contentBlockDelta`s, AWS event-stream framed. */
export function bedrockContent(deltas: readonly string[], ending: Ending = 'stop'): StructuredStream {
  const stopReason = { stop: 'end_turn', length: 'max_tokens', content_filter: 'content_filtered' }[ending];
  const bytes = converseStream([
    ['messageStart', { role: 'assistant' }],
    ...deltas.map((text) => ['contentBlockDelta', { contentBlockIndex: 0, delta: { text } }] as const),
    ['contentBlockStop', { contentBlockIndex: 0 }],
    ['messageStop', { stopReason }],
    ['metadata', { usage: { inputTokens: 9, outputTokens: 40, totalTokens: 49 }, metrics: { latencyMs: 10 } }],
  ]);
  return { name: 'bedrock-converse content', from: 'content', bytes, framing: 'aws' };
}

/** Every provider's stream of the same output. */
export const PROVIDERS: readonly ((deltas: readonly string[], ending?: Ending) => StructuredStream)[] = [
  openaiContent,
  responsesContent,
  geminiContent,
  ollamaContent,
  bedrockContent,
  openaiTool,
  anthropicTool,
];

/** The README pipeline up to the events, over `stream`'s bytes in pieces of `size` bytes (`groupToolCallsByIndex` included). */
export function eventsOf(stream: StructuredStream, size: number): Observable<ChatEvent> {
  const bytes$ = from(chunksOf(stream.bytes, size));
  if (stream.framing === 'aws') return bytes$.pipe(awsEventStreamFrames(), assembleChunks(), groupToolCallsByIndex());
  const text$ = bytes$.pipe(decodeUtf8());
  return (stream.framing === 'sse' ? text$.pipe(sseFrames()) : text$.pipe(ndjsonFrames())).pipe(assembleChunks(), groupToolCallsByIndex());
}

/** Cuts `text` into deltas of about token size (1 to 7 characters), the same way for the same `seed`. */
export function tokenDeltas(text: string, seed = 1): string[] {
  const deltas: string[] = [];
  let state = seed;
  for (let start = 0; start < text.length;) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 7);
    deltas.push(text.slice(start, start + size));
    start += size;
  }
  return deltas;
}
