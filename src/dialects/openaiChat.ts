import { SseFrame } from '../core/SseParser.js';
import { LlmStreamError } from '../errors.js';
import { Usage } from '../events.js';
import { JsonObject, excerpt, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory, dialectFactory } from './Dialect.js';
import { JsonDialectParser } from './JsonDialectParser.js';
import { describeValue, hasError } from './payloadValues.js';
import { mergeUsage } from '../internal/mergeUsage.js';
import { readOpenAiUsage, readTimings, readPromptProgress } from './usage.js';

const STRICT_FINISH_REASONS = new Set(['stop', 'tool_calls', 'length']);

/** How one choice's tool-call fragments map to dense call indices. */
class ToolCallIndex {
  readonly byProviderIndex = new Map<number, number>();
  readonly byId = new Map<string, number>();
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
  protected readonly endSignal = '[DONE]';
  protected override readonly doneFrame = 'end';
  // Like the official SDK, stop reading at [DONE]: nothing after it belongs to this reply.
  protected override readonly afterEnd = 'ignore';
  private started = false;
  private latestPredicted: number | undefined = undefined;
  private readonly toolCalls = new Map<number, ToolCallIndex>();

  protected override errorIn(frame: SseFrame, chunk: JsonObject): LlmStreamError | undefined {
    return frame.event === 'error' || hasError(chunk) || chunk['object'] === 'error' ? this.providerError(chunk) : undefined;
  }

  protected override checkEnded(): void {
    if (!this.started) throw this.protocolError('no chunk carried an id');
  }

  protected read(chunk: JsonObject): void {
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
    const index = rawIndex === undefined && !this.strict ? 0 : this.index(rawIndex, `choices[${position}].index`, 'a choice index');

    const delta = choice['delta'];
    if (isJsonObject(delta)) this.readDelta(delta, index, position);
    else if (delta !== undefined && delta !== null) throw this.protocolError(`choices[${position}].delta is not an object`);

    const rawFinish = choice['finish_reason'];
    if (rawFinish === undefined || rawFinish === null) return;
    if (typeof rawFinish !== 'string' || rawFinish === '') {
      throw this.protocolError(`choices[${position}].finish_reason is ${describeValue(rawFinish)}`);
    }
    if (this.strict && !STRICT_FINISH_REASONS.has(rawFinish)) {
      throw this.protocolError(`unknown finish_reason ${excerpt(rawFinish)}`, 'strict');
    }
    this.finish(index, rawFinish);
  }

  private readDelta(delta: JsonObject, choice: number, position: number): void {
    const where = deltaPath(position);
    let reasoning = this.text(delta['reasoning_content'], where, 'reasoning_content');
    if (reasoning === undefined) reasoning = this.text(delta['reasoning'], where, 'reasoning');
    let content: string | undefined;
    const rawContent = delta['content'];
    if (Array.isArray(rawContent)) {
      // Mistral's reasoning models send content as typed parts: text, and thinking (itself parts).
      const parts = readContentParts(rawContent);
      content = parts.content;
      if (parts.reasoning !== undefined) reasoning = (reasoning ?? '') + parts.reasoning;
    } else {
      content = this.text(rawContent, where, 'content');
    }
    const refusal = this.text(delta['refusal'], where, 'refusal');
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

  private readToolCall(entry: unknown, choice: number, position: number, k: number): void {
    if (!isJsonObject(entry)) throw this.protocolError(`${toolCallPath(position, k)} is not an object`);
    const rawIndex = entry['index'];
    let providerIndex: number | undefined;
    if (rawIndex === undefined || rawIndex === null) {
      if (this.strict) throw this.protocolError(`${toolCallPath(position, k)} has no index`, 'strict');
    } else {
      providerIndex = this.index(rawIndex, `${toolCallPath(position, k)}.index`, 'a tool-call index');
    }
    const fn = entry['function'];
    if (fn !== undefined && fn !== null && !isJsonObject(fn))
      throw this.protocolError(`${toolCallPath(position, k)}.function is not an object`);
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
      this.emit(
        name === undefined ? { type, choice, index, id, arguments: fragment } : { type, choice, index, id, name, arguments: fragment },
      );
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
      if (calls.last < 0)
        throw this.protocolError(`${toolCallPath(position, k)} belongs to no call: it has no index, id or name`, 'invalid-tool-call');
      index = calls.last;
    }
    if (index === undefined) {
      if (providerIndex !== undefined && !calls.byProviderIndex.has(providerIndex)) {
        const expected = calls.highestProviderIndex + 1;
        const firstMayBeSparse = !this.strict && calls.highestProviderIndex < 0;
        if (providerIndex > expected && !firstMayBeSparse) {
          throw this.protocolError(
            `${toolCallPath(position, k)}.index ${providerIndex} skips ahead: the next call would be ${expected}`,
            'invalid-tool-call',
          );
        }
      }
      index = this.newCall(choice);
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
export const openaiChat: DialectFactory = dialectFactory((emit, options) => new OpenAiChatParser(emit, options), isFinal);

/** Where a tool-call fragment sits in its chunk, for error messages. */
function toolCallPath(position: number, k: number): string {
  return `choices[${position}].delta.tool_calls[${k}]`;
}

/** `choices[0].delta`, made once per position: field paths are joined only for an error message. */
const DELTA_PATHS: string[] = [];
function deltaPath(position: number): string {
  return (DELTA_PATHS[position] ??= `choices[${position}].delta`);
}

/** The end of an OpenAI Chat stream: `data: [DONE]`. */
function isFinal(frame: SseFrame): boolean {
  return frame.data === '[DONE]';
}
