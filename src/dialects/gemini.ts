import { SseFrame } from '../core/SseParser.js';
import { StreamClosedEarlyError } from '../errors.js';
import { normalizeFinishReason } from '../internal/finishReason.js';
import { JsonObject, excerpt, finiteNumber, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory } from './Dialect.js';
import { JsonDialectParser, describeValue, isIndex } from './JsonDialectParser.js';
import { providerErrorFrom } from './providerError.js';
import { buildUsage } from './usage.js';

/**
 * Google Gemini's native stream (`models/{model}:streamGenerateContent?alt=sse`): data-only SSE
 * (CRLF on the real wire), each event a whole `GenerateContentResponse`:
 * `{candidates: [{content: {parts, role}, finishReason?, index?}], usageMetadata, modelVersion, responseId}`.
 * There is no `[DONE]`: the chunk that carries the `finishReason` is the last one.
 *
 * Each chunk's parts are new parts, never a snapshot of the earlier ones. A part maps to events by
 * its keys: `text` is answer text, `text` with `thought: true` is reasoning, `functionCall` is one
 * whole call (`tool-call-delta` with the `args` object serialized, then `tool-call-end`), and a
 * `thoughtSignature` on any part is a `reasoning-signature`.
 *
 * Events of one chunk come in this order: `start` (once, at the first `responseId`, with
 * `modelVersion` as the model), then per candidate and per part in order reasoning or content, the
 * call's `tool-call-delta` and `tool-call-end`, the part's `reasoning-signature`; the candidate's
 * `finish`; then `usage` (`usageMetadata` is a running snapshot, reported on every chunk that has
 * it); then `done`, once every candidate seen has finished. Frames after that are ignored (under
 * `strict`, they are a `ProtocolError`).
 *
 * Call ids: Gemini usually leaves `functionCall.id` out, so a call without one gets a synthesized
 * id that is stable for the stream: `${responseId}-call-${index}` (`gemini` in place of the response
 * id when none came yet; `${responseId}-choice-${choice}-call-${index}` for a candidate other than
 * 0), `index` being the call's dense position within its candidate.
 *
 * Finish: `STOP` with calls is `tool_calls` (Gemini has no tool-call finish reason); the raw value is
 * kept. A prompt blocked before generation (no candidates, `promptFeedback.blockReason`) finishes
 * candidate 0 with the block reason as the raw value (`SAFETY` and the like are `content_filter`).
 * An `{"error": {code, message, status}}` chunk is a `ProviderError` whose type is the status.
 *
 * Not supported: Vertex AI's streamed function-call arguments (`partialArgs`, `willContinue`), a
 * `ProtocolError`; non-text parts (`inlineData`, `executableCode`, ...) are ignored.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, gemini } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: gemini }));
 * ```
 */
export class GeminiParser extends JsonDialectParser {
  private responseId: string | undefined = undefined;
  private done = false;
  /** Calls made so far, per candidate (their count is the next dense index). */
  private readonly callCounts = new Map<number, number>();
  /** Candidates seen, and whether each has finished. */
  private readonly finished = new Map<number, boolean>();
  /**
   * How many of them have not finished. Counted, not looked up: scanning every candidate after every
   * chunk would make a stream that names a new candidate in each chunk cost quadratic time.
   */
  private unfinished = 0;

  push(frame: SseFrame): void {
    this.frameCount++;
    if (this.done) {
      // The finish chunk ends the reply; a proxy's trailing `[DONE]` or keep-alive must not undo it.
      if (this.strict) throw this.protocolError('a frame arrived after the chunk that finished the stream');
      return;
    }
    const chunk = this.parseJson(frame.data);
    if (frame.event === 'error' || (isJsonObject(chunk) && chunk['error'] !== undefined && chunk['error'] !== null)) {
      throw providerErrorFrom(chunk, `frame ${this.frameCount}`, this.frameCount);
    }
    // Before streaming, Google sends its error body wrapped in an array; a proxy may pass it on.
    if (Array.isArray(chunk) && chunk.length === 1 && isJsonObject(chunk[0]) && isJsonObject(chunk[0]['error'])) {
      throw providerErrorFrom(chunk[0], `frame ${this.frameCount}`, this.frameCount);
    }
    if (!isJsonObject(chunk)) throw this.protocolError(`expected a JSON object, got ${excerpt(frame.data)}`);
    this.readChunk(chunk);
  }

  end(): void {
    if (!this.done) {
      throw new StreamClosedEarlyError(
        `the stream ended without a finishReason after ${this.frameCount} frame${this.frameCount === 1 ? '' : 's'}`,
        { position: { event: this.frameCount } },
      );
    }
  }

  private readChunk(chunk: JsonObject): void {
    const responseId = nonEmptyString(chunk['responseId']);
    if (responseId !== undefined && this.responseId === undefined) {
      this.responseId = responseId;
      this.emit({ type: 'start', id: responseId, model: nonEmptyString(chunk['modelVersion']) ?? null });
    }

    const candidates = chunk['candidates'];
    let anyCandidate = false;
    if (Array.isArray(candidates)) {
      for (let position = 0; position < candidates.length; position++) this.readCandidate(candidates[position], position);
      anyCandidate = candidates.length > 0;
    } else if (candidates !== undefined && candidates !== null) {
      throw this.protocolError('candidates is not an array');
    }
    if (!anyCandidate) this.readPromptFeedback(chunk['promptFeedback']);

    const metadata = chunk['usageMetadata'];
    if (isJsonObject(metadata)) {
      const usage = buildUsage(
        finiteNumber(metadata['promptTokenCount']),
        finiteNumber(metadata['candidatesTokenCount']),
        finiteNumber(metadata['totalTokenCount']),
        finiteNumber(metadata['cachedContentTokenCount']),
        finiteNumber(metadata['thoughtsTokenCount']),
      );
      if (usage !== undefined) this.emit({ type: 'usage', usage });
    } else if (metadata !== undefined && metadata !== null) {
      throw this.protocolError('usageMetadata is not an object');
    }

    if (this.finished.size > 0 && this.unfinished === 0) {
      this.done = true;
      this.emit({ type: 'done' });
    }
  }

  private readCandidate(candidate: unknown, position: number): void {
    const where = `candidates[${position}]`;
    if (!isJsonObject(candidate)) throw this.protocolError(`${where} is not an object`);
    const rawIndex = candidate['index'];
    let choice = 0;
    if (isIndex(rawIndex)) choice = rawIndex;
    else if (rawIndex !== undefined && rawIndex !== null) {
      throw this.protocolError(`${where}.index is ${describeValue(rawIndex)}, not a candidate index`);
    }
    this.see(choice);

    const content = candidate['content'];
    if (isJsonObject(content)) {
      const parts = content['parts'];
      if (Array.isArray(parts)) {
        for (let k = 0; k < parts.length; k++) this.readPart(parts[k], choice, `${where}.content.parts[${k}]`);
      } else if (parts !== undefined && parts !== null) {
        throw this.protocolError(`${where}.content.parts is not an array`);
      }
    } else if (content !== undefined && content !== null) {
      throw this.protocolError(`${where}.content is not an object`);
    }

    const raw = candidate['finishReason'];
    if (raw === undefined || raw === null) return;
    if (typeof raw !== 'string' || raw === '') throw this.protocolError(`${where}.finishReason is ${describeValue(raw)}`);
    this.finish(choice, raw);
  }

  private readPart(part: unknown, choice: number, where: string): void {
    if (!isJsonObject(part)) throw this.protocolError(`${where} is not an object`);
    const text = part['text'];
    if (typeof text === 'string') {
      if (text !== '') this.emit({ type: part['thought'] === true ? 'reasoning' : 'content', choice, text });
    } else if (text !== undefined && text !== null) {
      throw this.protocolError(`${where}.text is ${describeValue(text)}, not text`);
    }

    const call = part['functionCall'];
    if (call !== undefined && call !== null) this.readFunctionCall(call, choice, `${where}.functionCall`);

    const signature = part['thoughtSignature'];
    if (typeof signature === 'string') {
      if (signature !== '') this.emit({ type: 'reasoning-signature', choice, signature });
    } else if (signature !== undefined && signature !== null) {
      throw this.protocolError(`${where}.thoughtSignature is ${describeValue(signature)}, not text`);
    }
  }

  private readFunctionCall(call: unknown, choice: number, where: string): void {
    if (!isJsonObject(call)) throw this.protocolError(`${where} is not an object`);
    if (call['partialArgs'] !== undefined || call['willContinue'] !== undefined) {
      throw this.protocolError(`${where} streams its arguments (partialArgs, willContinue), which is not supported`);
    }
    const name = nonEmptyString(call['name']);
    if (name === undefined) throw this.protocolError(`${where}.name is ${describeValue(call['name'])}, not a function name`);
    const args = call['args'];
    if (args !== undefined && args !== null && !isJsonObject(args)) {
      throw this.protocolError(`${where}.args is ${describeValue(args)}, not an object`);
    }
    const index = this.callCounts.get(choice) ?? 0;
    this.callCounts.set(choice, index + 1);
    const base = this.responseId ?? 'gemini';
    const id = nonEmptyString(call['id']) ?? (choice === 0 ? `${base}-call-${index}` : `${base}-choice-${choice}-call-${index}`);
    // The call is whole: its arguments are an object, serialized once, and it closes at once.
    this.emit({ type: 'tool-call-delta', choice, index, id, name, arguments: this.serialize(args ?? {}, `${where}.args`) });
    this.emit({ type: 'tool-call-end', choice, index });
  }

  /** A prompt blocked before generation: no candidates, and `promptFeedback.blockReason`. */
  private readPromptFeedback(feedback: unknown): void {
    if (!isJsonObject(feedback)) return;
    const reason = feedback['blockReason'];
    if (reason === undefined || reason === null) return;
    if (typeof reason !== 'string' || reason === '') {
      throw this.protocolError(`promptFeedback.blockReason is ${describeValue(reason)}`);
    }
    this.see(0);
    this.finish(0, reason);
  }

  /** Notes a candidate, unfinished until its finishReason comes. */
  private see(choice: number): void {
    if (this.finished.has(choice)) return;
    this.finished.set(choice, false);
    this.unfinished++;
  }

  private finish(choice: number, raw: string): void {
    // One finish per candidate: a repeated finishReason in the same chunk changes nothing.
    if (this.finished.get(choice) === true) return;
    this.finished.set(choice, true);
    this.unfinished--;
    const reason = normalizeFinishReason(raw, (this.callCounts.get(choice) ?? 0) > 0);
    this.emit({ type: 'finish', choice, reason, raw });
  }

}

/**
 * The `gemini` dialect: Gemini's native `streamGenerateContent?alt=sse` stream.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, gemini } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: gemini }), finalizeCompletion());
 * ```
 */
export const gemini: DialectFactory = (emit, options) => new GeminiParser(emit, options);
