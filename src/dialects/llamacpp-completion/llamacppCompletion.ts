import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { payloadMentioning } from '../base/finalFrames.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { readLlamaCppProbabilities } from '../base/tokenLogprobs.js';
import { describeValue } from '../base/payloadValues.js';
import { readTimings, readPromptProgress } from '../base/usage.js';

/** The `stop_type` values that older llama.cpp builds sent as three booleans instead. */
const LEGACY_STOP_FLAGS: readonly (readonly [field: string, stopType: string])[] = [
  ['stopped_eos', 'eos'],
  ['stopped_word', 'word'],
  ['stopped_limit', 'limit'],
];

/**
 * The fields of a chunk this dialect reads, or knows to carry nothing. Every other field is kept as
 * `providerMetadata.llamacpp` of the reply: `id_slot` (the server slot that holds the prompt's cache;
 * -1 on the pieces, the slot on the last chunk), and the last chunk's `generation_settings`, `prompt`,
 * `has_new_line`, `truncated`, `stopping_word`, `tokens_cached`, and whatever a newer server adds.
 *
 * `tokens` are the ids of this chunk's tokens (empty unless the request asks for `return_tokens`): the
 * text of `content` again, different in every chunk, whose last value would say nothing of the reply.
 * The legacy `stopped_eos`, `stopped_word` and `stopped_limit` are read as the finish.
 */
const MAPPED_CHUNK: ReadonlySet<string> = new Set([
  'index',
  'content',
  'tokens',
  'stop',
  'model',
  'prompt_progress',
  'completion_probabilities',
  'stop_type',
  'stopped_eos',
  'stopped_word',
  'stopped_limit',
  'tokens_evaluated',
  'tokens_predicted',
  'timings',
]);

/**
 * llama.cpp's native `/completion` stream: data-only SSE, each chunk
 * `{"index","content","tokens","stop":false,"id_slot","tokens_predicted","tokens_evaluated"}`, and a
 * last chunk with `"stop": true`, the `stop_type`, the `model` and the `timings`. There is no
 * `[DONE]`: the chunk with `stop: true` ends the stream. The endpoint does no chat parsing, so there
 * is neither reasoning nor tool calls, and there is no id (`start` has the id `''`, at the first
 * chunk that names the model).
 *
 * Events of one chunk come in this order: `progress` (`prompt_progress`), `content`, `logprobs`
 * (`completion_probabilities`, newer servers' `{id, token, bytes, logprob, top_logprobs}` and older
 * ones' `{content, probs: [{tok_str, prob}]}`, in OpenAI's shape), `finish` (on
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
 * `ProtocolError`). Fields this dialect does not read are kept as `providerMetadata.llamacpp` of the
 * reply (`MAPPED_CHUNK` lists the ones it reads).
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, llamacppCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: llamacppCompletion }));
 * ```
 */
export class LlamaCppCompletionParser extends JsonDialectParser {
  protected readonly endSignal = 'a chunk with stop: true';
  protected override readonly provider = 'llamacpp';
  protected override readonly endedBy = 'the chunk with stop: true';
  // llama.cpp sends [DONE] only on its OpenAI-compatible endpoints; a proxy may add one here.
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = '/completion';
  private started = false;
  /** The `index` of the first chunk that had one: every chunk must be of that one prompt. */
  private promptIndex: number | undefined = undefined;

  protected read(chunk: JsonObject): void {
    // The format names no id: the stream identifies itself by its model, whenever that first appears.
    const model = nonEmptyString(chunk['model']);
    if (!this.started && model !== undefined) {
      this.started = true;
      this.emit({ type: 'start', id: '', model });
    }
    this.readChunk(chunk);
  }

  private readChunk(chunk: JsonObject): void {
    this.checkIndex(chunk['index']);
    const stop = chunk['stop'];
    if (stop !== undefined && stop !== null && typeof stop !== 'boolean') throw this.protocolError(`stop is ${describeValue(stop)}`);

    const progress = this.object(chunk['prompt_progress'], 'prompt_progress');
    if (progress !== undefined) {
      this.emit({
        type: 'progress',
        progress: readPromptProgress(progress),
      });
    }

    const content = this.text(chunk['content'], 'content');
    if (content) this.emit({ type: 'content', choice: 0, text: content });
    this.readProbabilities(chunk['completion_probabilities']);

    if (stop === true) this.finish(0, this.stopType(chunk));

    const prompt = this.count(chunk['tokens_evaluated'], 'tokens_evaluated');
    const predicted = this.count(chunk['tokens_predicted'], 'tokens_predicted');
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

    const timings = this.object(chunk['timings'], 'timings');
    if (timings !== undefined) this.emit({ type: 'timings', timings: readTimings(timings) });
    this.keepUnmapped(chunk, MAPPED_CHUNK);

    if (stop === true) this.endStream();
  }

  /**
   * `completion_probabilities` (with `n_probs`): the tokens of this chunk as a `logprobs` event in
   * OpenAI's shape. An entry that is not a token's log probability, or a value that is not a list, is
   * skipped (under `strict`, a `ProtocolError`).
   */
  private readProbabilities(raw: unknown): void {
    if (raw === undefined || raw === null) return;
    if (!Array.isArray(raw)) {
      // Another shape holds no token this dialect could read: skipped, as unknown fields are.
      if (this.strict) throw this.protocolError(`completion_probabilities is ${describeValue(raw)}, not a list`, 'strict');
      return;
    }
    const { tokens, skipped } = readLlamaCppProbabilities(raw);
    if (skipped > 0 && this.strict) {
      throw this.protocolError("completion_probabilities holds an entry that is not a token's log probability", 'strict');
    }
    if (tokens.length > 0) this.emit({ type: 'logprobs', choice: 0, content: tokens });
  }

  /** The raw finish value of the last chunk: its `stop_type`, else the legacy flag that is set. */
  private stopType(chunk: JsonObject): string {
    const stopType = chunk['stop_type'];
    if (typeof stopType === 'string' && stopType !== '') return stopType;
    if (stopType !== undefined && stopType !== null && stopType !== '') throw this.protocolError(`stop_type is ${describeValue(stopType)}`);
    for (const [field, value] of LEGACY_STOP_FLAGS) if (chunk[field] === true) return value;
    return 'none';
  }

  private checkIndex(value: unknown): void {
    const index = this.optionalIndex(value, 'index', 'a prompt index');
    if (index === undefined) return;
    if (this.promptIndex === undefined) this.promptIndex = index;
    else if (index !== this.promptIndex) {
      // Several prompts in one request interleave their results; one stream per prompt is supported.
      throw this.protocolError(`index ${index} after index ${this.promptIndex}: results of several prompts are not supported`);
    }
  }
}

/** The end of a `/completion` stream: the chunk with `"stop": true`. */
function isFinal(frame: SseFrame): boolean {
  return payloadMentioning(frame, '"stop"')?.['stop'] === true;
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
export const llamacppCompletion = defineDialect({
  name: 'llamacpp-completion',
  create: (emit, options) => new LlamaCppCompletionParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => typeof payload['stop'] === 'boolean' && 'content' in payload,
});
