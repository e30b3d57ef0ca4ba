import { SseFrame } from '../core/SseParser.js';
import { StreamClosedEarlyError } from '../errors.js';
import { ChatEvent, Usage } from '../events.js';
import { normalizeFinishReason } from '../internal/finishReason.js';
import { JsonObject, excerpt, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory, DialectOptions } from './Dialect.js';
import { JsonDialectParser, describeValue, isIndex } from './JsonDialectParser.js';
import { providerErrorFrom } from './providerError.js';
import { mergeUsage, readOpenAiUsage, readTimings, readPromptProgress } from './usage.js';

/** Options of the `openai-chat` dialect. */
export interface OpenAiChatOptions extends DialectOptions {
  /** The most tool calls one choice may make; more is a `ProtocolError`. Default 1024. */
  readonly maxToolCalls?: number;
}

const STRICT_FINISH_REASONS = new Set(['stop', 'tool_calls', 'length']);

/** How one choice's tool-call fragments map to dense call indices. */
class ToolCallIndex {
  readonly byProviderIndex = new Map<number, number>();
  readonly byId = new Map<string, number>();
  count = 0;
  last = -1;
  highestProviderIndex = -1;
}

/**
 * The OpenAI Chat Completions stream and its compatible servers (llama.cpp, vLLM, DeepSeek, Groq,
 * OpenRouter, Azure, Ollama `/v1`, Mistral, Gemini's compatible endpoint): `choices[].delta` with
 * `content`, `refusal`, `reasoning_content` or `reasoning`, `tool_calls` keyed by index,
 * `finish_reason`, `usage` (also `x_groq.usage`), llama.cpp `timings` and `prompt_progress`, ending
 * with `data: [DONE]`.
 *
 * Events of one chunk come in this order: `start` (once), `progress`, then per choice `reasoning`,
 * `content`, `refusal`, one `tool-call-delta` per fragment, `finish`; then `usage` and `timings`.
 *
 * Quirks absorbed by default (they lose nothing): a missing `index` on whole calls, a first index
 * that is not 0, `id: ""` or `name: ""` on continuations, whole calls in one piece, the last
 * argument piece on the finish chunk, `finish_reason: "stop"` with tool calls (normalized to
 * `tool_calls`, raw value kept), `choices` null or absent. `strict` applies the format exactly.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'openai-chat' }));
 * ```
 */
export class OpenAiChatParser extends JsonDialectParser {
  private readonly maxToolCalls: number;
  private started = false;
  private done = false;
  private latestPredicted: number | undefined = undefined;
  private readonly toolCalls = new Map<number, ToolCallIndex>();

  constructor(emit: (event: ChatEvent) => void, options: OpenAiChatOptions = {}) {
    super(emit, options);
    this.maxToolCalls = options.maxToolCalls ?? 1024;
  }

  push(frame: SseFrame): void {
    this.frameCount++;
    // Like the official SDK, stop reading at [DONE]: nothing after it belongs to this reply.
    if (this.done) return;
    if (frame.data === '[DONE]') {
      this.done = true;
      this.emit({ type: 'done' });
      return;
    }
    const chunk = this.parseObject(frame.data);
    if (frame.event === 'error' || (chunk['error'] !== undefined && chunk['error'] !== null) || chunk['object'] === 'error') {
      throw providerErrorFrom(chunk, `frame ${this.frameCount}`, this.frameCount);
    }
    this.readChunk(chunk);
  }

  end(): void {
    if (!this.done) {
      throw new StreamClosedEarlyError(
        `the stream ended without [DONE] after ${this.frameCount} frame${this.frameCount === 1 ? '' : 's'}`,
        { position: { event: this.frameCount } },
      );
    }
    if (!this.started) throw this.protocolError('no chunk carried an id');
  }

  private readChunk(chunk: JsonObject): void {
    if (!this.started) {
      // Every chunk repeats the id; it is read only until the first one names it.
      const id = nonEmptyString(chunk['id']);
      if (id !== undefined) {
        this.started = true;
        this.emit({ type: 'start', id, model: nonEmptyString(chunk['model']) ?? null });
      }
    }
    const progress = chunk['prompt_progress'];
    if (isJsonObject(progress)) {
      this.emit({
        type: 'progress',
        progress: readPromptProgress(progress),
      });
    }
    // Timings are read before the choices: a chunk's reasoning counts its own predicted_n.
    const timings = isJsonObject(chunk['timings']) ? readTimings(chunk['timings']) : undefined;
    if (timings?.predicted_n !== undefined) this.latestPredicted = timings.predicted_n;

    const choices = chunk['choices'];
    if (Array.isArray(choices)) {
      for (let position = 0; position < choices.length; position++) this.readChoice(choices[position], position);
    } else if (choices !== undefined && choices !== null && (this.strict || !isJsonObject(choices) || Object.keys(choices).length > 0)) {
      // Only `{}` is absorbed: it carries nothing. An object that holds anything would be choices dropped unread.
      throw this.protocolError('choices is not an array');
    }

    let usage: Usage | undefined;
    const groq = chunk['x_groq'];
    if (isJsonObject(groq) && isJsonObject(groq['usage'])) usage = readOpenAiUsage(groq['usage']);
    if (isJsonObject(chunk['usage'])) {
      const standard = readOpenAiUsage(chunk['usage']);
      if (standard !== undefined) usage = usage === undefined ? standard : mergeUsage(usage, standard);
    } else if (chunk['usage'] !== undefined && chunk['usage'] !== null && this.strict) {
      throw this.protocolError('usage is not an object');
    }
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    if (timings !== undefined) this.emit({ type: 'timings', timings });
  }

  private readChoice(choice: unknown, position: number): void {
    if (!isJsonObject(choice)) throw this.protocolError(`choices[${position}] is not an object`);
    const rawIndex = choice['index'];
    let index: number;
    if (rawIndex === undefined && !this.strict) index = 0;
    else if (isIndex(rawIndex)) index = rawIndex;
    else throw this.protocolError(`choices[${position}].index is ${describeValue(rawIndex)}, not a choice index`);

    const delta = choice['delta'];
    if (isJsonObject(delta)) this.readDelta(delta, index, position);
    else if (delta !== undefined && delta !== null) throw this.protocolError(`choices[${position}].delta is not an object`);

    const rawFinish = choice['finish_reason'];
    if (rawFinish === undefined || rawFinish === null) return;
    if (typeof rawFinish !== 'string' || rawFinish === '') {
      throw this.protocolError(`choices[${position}].finish_reason is ${describeValue(rawFinish)}`);
    }
    if (this.strict && !STRICT_FINISH_REASONS.has(rawFinish)) {
      throw this.protocolError(`unknown finish_reason ${excerpt(rawFinish)}`);
    }
    const calls = this.toolCalls.get(index);
    const reason = normalizeFinishReason(rawFinish, calls !== undefined && calls.count > 0);
    this.emit({ type: 'finish', choice: index, reason, raw: rawFinish });
  }

  private readDelta(delta: JsonObject, choice: number, position: number): void {
    let reasoning = this.deltaText(delta['reasoning_content'], 'reasoning_content', position);
    if (reasoning === undefined) reasoning = this.deltaText(delta['reasoning'], 'reasoning', position);
    let content: string | undefined;
    const rawContent = delta['content'];
    if (Array.isArray(rawContent)) {
      // Mistral's reasoning models send content as typed parts: text, and thinking (itself parts).
      const parts = readContentParts(rawContent);
      content = parts.content;
      if (parts.reasoning !== undefined) reasoning = (reasoning ?? '') + parts.reasoning;
    } else {
      content = this.deltaText(rawContent, 'content', position);
    }
    const refusal = this.deltaText(delta['refusal'], 'refusal', position);
    if (reasoning) {
      this.emit(
        this.latestPredicted === undefined
          ? { type: 'reasoning', choice, text: reasoning }
          : { type: 'reasoning', choice, text: reasoning, reasoningTokens: this.latestPredicted },
      );
    }
    if (content) this.emit({ type: 'content', choice, text: content });
    if (refusal) this.emit({ type: 'refusal', choice, text: refusal });

    const toolCalls = delta['tool_calls'];
    if (Array.isArray(toolCalls)) {
      for (let k = 0; k < toolCalls.length; k++) this.readToolCall(toolCalls[k], choice, position, k);
    } else if (toolCalls !== undefined && toolCalls !== null) {
      throw this.protocolError(`choices[${position}].delta.tool_calls is not an array`);
    }
  }

  /**
   * A text field of a delta. The field's path is spelled out only for an error: building it for
   * every field of every chunk would cost more than reading the field.
   */
  private deltaText(value: unknown, field: string, position: number): string | undefined {
    if (typeof value === 'string') return value;
    if (value === undefined || value === null) return undefined;
    throw this.protocolError(`choices[${position}].delta.${field} is ${describeValue(value)}, not text`);
  }

  private readToolCall(entry: unknown, choice: number, position: number, k: number): void {
    if (!isJsonObject(entry)) throw this.protocolError(`${toolCallPath(position, k)} is not an object`);
    const rawIndex = entry['index'];
    let providerIndex: number | undefined;
    if (rawIndex === undefined || rawIndex === null) {
      if (this.strict) throw this.protocolError(`${toolCallPath(position, k)} has no index`);
    } else if (isIndex(rawIndex)) {
      providerIndex = rawIndex;
    } else {
      throw this.protocolError(`${toolCallPath(position, k)}.index is ${describeValue(rawIndex)}, not a tool-call index`);
    }
    const fn = entry['function'];
    if (fn !== undefined && fn !== null && !isJsonObject(fn)) throw this.protocolError(`${toolCallPath(position, k)}.function is not an object`);
    const id = nonEmptyString(entry['id']);
    const name = fn ? nonEmptyString(fn['name']) : undefined;
    const rawArguments = fn ? fn['arguments'] : undefined;
    let fragment: string;
    if (typeof rawArguments === 'string') fragment = rawArguments;
    else if (rawArguments === undefined || rawArguments === null) fragment = '';
    // Some servers send whole calls with the arguments as an object: serialize, never concatenate.
    else if (typeof rawArguments === 'object') fragment = this.serialize(rawArguments, `${toolCallPath(position, k)}.function.arguments`);
    else throw this.protocolError(`${toolCallPath(position, k)}.function.arguments is ${describeValue(rawArguments)}`);

    const index = this.callIndex(choice, providerIndex, id, name, position, k);
    // `id` and `name` appear only as this piece had them: absent, not undefined-valued. Written out
    // per shape: spreading optional parts would build throwaway objects for every fragment.
    const type = 'tool-call-delta';
    if (id === undefined) {
      this.emit(name === undefined ? { type, choice, index, arguments: fragment } : { type, choice, index, name, arguments: fragment });
    } else {
      this.emit(name === undefined ? { type, choice, index, id, arguments: fragment } : { type, choice, index, id, name, arguments: fragment });
    }
  }

  /**
   * Finds the dense index of the call a fragment belongs to: by a non-empty id seen before, else by
   * the provider's index, else (no index, no id) a named fragment starts a new call and a nameless
   * one continues the latest. An unseen id always starts a new call.
   */
  private callIndex(
    choice: number,
    providerIndex: number | undefined,
    id: string | undefined,
    name: string | undefined,
    position: number,
    k: number,
  ): number {
    let calls = this.toolCalls.get(choice);
    if (calls === undefined) {
      calls = new ToolCallIndex();
      this.toolCalls.set(choice, calls);
    }
    let index: number | undefined;
    if (id !== undefined) index = calls.byId.get(id);
    else if (providerIndex !== undefined) index = calls.byProviderIndex.get(providerIndex);
    else if (name === undefined) {
      if (calls.last < 0) throw this.protocolError(`${toolCallPath(position, k)} belongs to no call: it has no index, id or name`);
      index = calls.last;
    }
    if (index === undefined) {
      if (providerIndex !== undefined && !calls.byProviderIndex.has(providerIndex)) {
        const expected = calls.highestProviderIndex + 1;
        const firstMayBeSparse = !this.strict && calls.highestProviderIndex < 0;
        if (providerIndex > expected && !firstMayBeSparse) {
          throw this.protocolError(`${toolCallPath(position, k)}.index ${providerIndex} skips ahead: the next call would be ${expected}`);
        }
      }
      if (calls.count >= this.maxToolCalls) {
        throw this.protocolError(`choice ${choice} makes more than ${this.maxToolCalls} tool calls`);
      }
      index = calls.count++;
    }
    if (providerIndex !== undefined && calls.byProviderIndex.get(providerIndex) !== index) {
      calls.byProviderIndex.set(providerIndex, index);
      if (providerIndex > calls.highestProviderIndex) calls.highestProviderIndex = providerIndex;
    }
    if (id !== undefined && !calls.byId.has(id)) calls.byId.set(id, index);
    calls.last = index;
    return index;
  }
}

function readContentParts(parts: readonly unknown[]): { content?: string; reasoning?: string } {
  let content = '';
  let reasoning = '';
  for (const part of parts) {
    if (!isJsonObject(part)) continue;
    if (part['type'] === 'text' && typeof part['text'] === 'string') content += part['text'];
    else if (part['type'] === 'thinking' && Array.isArray(part['thinking'])) {
      for (const inner of part['thinking']) {
        if (isJsonObject(inner) && typeof inner['text'] === 'string') reasoning += inner['text'];
      }
    }
  }
  return { ...(content ? { content } : {}), ...(reasoning ? { reasoning } : {}) };
}

/** The `openai-chat` dialect's factory, for `assembleChunks({ dialect: openaiChat })` and composition. */
export const openaiChat: DialectFactory = (emit, options) => new OpenAiChatParser(emit, options);

/** Where a tool-call fragment sits in its chunk, for error messages. */
function toolCallPath(position: number, k: number): string {
  return `choices[${position}].delta.tool_calls[${k}]`;
}
