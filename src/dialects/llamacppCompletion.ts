import { SseFrame } from '../core/SseParser.js';
import { StreamClosedEarlyError } from '../errors.js';
import { normalizeFinishReason } from '../internal/finishReason.js';
import { JsonObject, finiteNumber, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory } from './Dialect.js';
import { JsonDialectParser, describeValue } from './JsonDialectParser.js';
import { providerErrorFrom } from './providerError.js';
import { readTimings, readPromptProgress } from './usage.js';

/** The `stop_type` values that older llama.cpp builds sent as three booleans instead. */
const LEGACY_STOP_FLAGS: readonly (readonly [field: string, stopType: string])[] = [
  ['stopped_eos', 'eos'],
  ['stopped_word', 'word'],
  ['stopped_limit', 'limit'],
];

/**
 * llama.cpp's native `/completion` stream: data-only SSE, each chunk
 * `{"index","content","tokens","stop":false,"id_slot","tokens_predicted","tokens_evaluated"}`, and a
 * last chunk with `"stop": true`, the `stop_type`, the `model` and the `timings`. There is no
 * `[DONE]`: the chunk with `stop: true` ends the stream. The endpoint does no chat parsing, so there
 * is neither reasoning nor tool calls, and there is no id (so no `start` event).
 *
 * Events of one chunk come in this order: `progress` (`prompt_progress`), `content`, `finish` (on
 * the `stop: true` chunk), `usage` (`tokens_evaluated` as `promptTokens`, `tokens_predicted` as
 * `completionTokens`, and their sum: running counts on every chunk that has them), `timings` (on
 * the last chunk, or on every chunk under `timings_per_token`), `done` (after the `stop: true`
 * chunk's other events).
 *
 * Finish: the raw value is `stop_type` (`eos` and `word` are `stop`, `limit` is `length`, `none` is
 * `other`); builds older than `stop_type` sent `stopped_eos`, `stopped_word` and `stopped_limit`,
 * read as the same raw values; a last chunk with neither finishes with the raw value `none`.
 *
 * Errors: an `{"error": {code, message, type}}` chunk is a `ProviderError`; a stream that ends before
 * the `stop: true` chunk is a `StreamClosedEarlyError`; a chunk whose `index` differs from the first
 * one's (the results of several prompts in one stream) is a `ProtocolError`, since only one prompt
 * per stream is supported. Frames after the last chunk are ignored (under `strict`, a
 * `ProtocolError`); unknown fields are ignored.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, llamacppCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: llamacppCompletion }));
 * ```
 */
export class LlamaCppCompletionParser extends JsonDialectParser {
  private started = false;
  private done = false;
  /** The `index` of the first chunk that had one: every chunk must be of that one prompt. */
  private promptIndex: number | undefined = undefined;

  push(frame: SseFrame): void {
    this.frameCount++;
    if (this.done) {
      if (this.strict) throw this.protocolError('a frame arrived after the chunk with stop: true');
      return;
    }
    if (frame.data === '[DONE]') {
      // llama.cpp sends [DONE] only on its OpenAI-compatible endpoints; a proxy may add one here.
      if (this.strict) throw this.protocolError('[DONE] is not part of the /completion stream');
      return;
    }
    const chunk = this.parseObject(frame.data);
    if (frame.event === 'error' || (chunk['error'] !== undefined && chunk['error'] !== null)) {
      throw providerErrorFrom(chunk, `frame ${this.frameCount}`, this.frameCount);
    }
    this.identify(chunk);
    this.readChunk(chunk);
  }

  /** The format names no id: the stream identifies itself by its model, whenever that first appears. */
  private identify(chunk: JsonObject): void {
    const model = nonEmptyString(chunk['model']);
    if (!this.started && model !== undefined) {
      this.started = true;
      this.emit({ type: 'start', id: '', model });
    }
  }

  end(): void {
    if (!this.done) {
      throw new StreamClosedEarlyError(
        `the stream ended without a chunk with stop: true after ${this.frameCount} frame${this.frameCount === 1 ? '' : 's'}`,
        { position: { event: this.frameCount } },
      );
    }
  }

  private readChunk(chunk: JsonObject): void {
    this.checkIndex(chunk['index']);
    const stop = chunk['stop'];
    if (stop !== undefined && stop !== null && typeof stop !== 'boolean') throw this.protocolError(`stop is ${describeValue(stop)}`);

    const progress = this.readObject(chunk, 'prompt_progress');
    if (progress !== undefined) {
      this.emit({
        type: 'progress',
        progress: readPromptProgress(progress),
      });
    }

    const content = chunk['content'];
    if (typeof content === 'string') {
      if (content !== '') this.emit({ type: 'content', choice: 0, text: content });
    } else if (content !== undefined && content !== null) {
      throw this.protocolError(`content is ${describeValue(content)}, not text`);
    }

    if (stop === true) {
      const raw = this.stopType(chunk);
      this.emit({ type: 'finish', choice: 0, reason: normalizeFinishReason(raw, false), raw });
    }

    const prompt = this.readCount(chunk, 'tokens_evaluated');
    const predicted = this.readCount(chunk, 'tokens_predicted');
    if (prompt !== undefined || predicted !== undefined) {
      this.emit({
        type: 'usage',
        usage: {
          promptTokens: prompt ?? null,
          completionTokens: predicted ?? null,
          totalTokens: prompt !== undefined && predicted !== undefined ? prompt + predicted : null,
        },
      });
    }

    const timings = this.readObject(chunk, 'timings');
    if (timings !== undefined) this.emit({ type: 'timings', timings: readTimings(timings) });

    if (stop === true) {
      this.done = true;
      this.emit({ type: 'done' });
    }
  }

  /** The raw finish value of the last chunk: its `stop_type`, else the legacy flag that is set. */
  private stopType(chunk: JsonObject): string {
    const stopType = chunk['stop_type'];
    if (typeof stopType === 'string' && stopType !== '') return stopType;
    if (stopType !== undefined && stopType !== null && stopType !== '') throw this.protocolError(`stop_type is ${describeValue(stopType)}`);
    for (const [field, value] of LEGACY_STOP_FLAGS) if (chunk[field] === true) return value;
    return 'none';
  }

  private checkIndex(index: unknown): void {
    if (index === undefined || index === null) return;
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
      throw this.protocolError(`index is ${describeValue(index)}, not a prompt index`);
    }
    if (this.promptIndex === undefined) this.promptIndex = index;
    else if (index !== this.promptIndex) {
      // Several prompts in one request interleave their results; one stream per prompt is supported.
      throw this.protocolError(`index ${index} after index ${this.promptIndex}: results of several prompts are not supported`);
    }
  }

  private readObject(chunk: JsonObject, field: string): JsonObject | undefined {
    const value = chunk[field];
    if (value === undefined || value === null) return undefined;
    if (!isJsonObject(value)) throw this.protocolError(`${field} is ${describeValue(value)}, not an object`);
    return value;
  }

  private readCount(chunk: JsonObject, field: string): number | undefined {
    const value = chunk[field];
    if (value === undefined || value === null) return undefined;
    const count = finiteNumber(value);
    if (count === undefined) throw this.protocolError(`${field} is ${describeValue(value)}, not a count`);
    return count;
  }

}

/**
 * The `llamacpp-completion` dialect: llama.cpp's native `/completion` stream.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, llamacppCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: llamacppCompletion }), finalizeCompletion());
 * ```
 */
export const llamacppCompletion: DialectFactory = (emit, options) => new LlamaCppCompletionParser(emit, options);
