import { SseFrame } from '../core/SseParser.js';
import { JsonObject, excerpt, finiteNumber, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory, dialectFactory } from './Dialect.js';
import { payloadMentioning } from './finalFrames.js';
import { JsonDialectParser } from './JsonDialectParser.js';
import { describeValue } from './payloadValues.js';
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
  protected readonly endSignal = 'a finishReason';
  // The finish chunk ends the reply; a proxy's trailing `[DONE]` or keep-alive must not undo it.
  protected override readonly endedBy = 'the chunk that finished the stream';
  private responseId: string | undefined = undefined;
  /** Candidates seen, and whether each has finished. */
  private readonly finished = new Map<number, boolean>();
  /**
   * How many of them have not finished. Counted, not looked up: scanning every candidate after every
   * chunk would make a stream that names a new candidate in each chunk cost quadratic time.
   */
  private unfinished = 0;

  protected override parsePayload(frame: SseFrame): JsonObject {
    const chunk = this.parseJson(frame.data);
    // Before streaming, Google sends its error body wrapped in an array; a proxy may pass it on.
    if (Array.isArray(chunk) && chunk.length === 1 && isJsonObject(chunk[0]) && isJsonObject(chunk[0]['error'])) {
      throw this.providerError(chunk[0]);
    }
    if (!isJsonObject(chunk)) throw this.protocolError(`expected a JSON object, got ${excerpt(frame.data)}`);
    return chunk;
  }

  protected read(chunk: JsonObject): void {
    this.readChunk(chunk);
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

    if (this.finished.size > 0 && this.unfinished === 0) this.endStream();
  }

  private readCandidate(candidate: unknown, position: number): void {
    const where = `candidates[${position}]`;
    if (!isJsonObject(candidate)) throw this.protocolError(`${where} is not an object`);
    const choice = this.optionalIndex(candidate['index'], `${where}.index`, 'a candidate index') ?? 0;
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
    this.finishCandidate(choice, raw);
  }

  private readPart(part: unknown, choice: number, where: string): void {
    if (!isJsonObject(part)) throw this.protocolError(`${where} is not an object`);
    const text = this.text(part['text'], where, 'text');
    if (text) this.emit({ type: part['thought'] === true ? 'reasoning' : 'content', choice, text });

    const call = part['functionCall'];
    if (call !== undefined && call !== null) this.readFunctionCall(call, choice, `${where}.functionCall`);

    const signature = this.text(part['thoughtSignature'], where, 'thoughtSignature');
    if (signature) this.emit({ type: 'reasoning-signature', choice, signature });
  }

  private readFunctionCall(call: unknown, choice: number, where: string): void {
    if (!isJsonObject(call)) throw this.protocolError(`${where} is not an object`);
    if (call['partialArgs'] !== undefined || call['willContinue'] !== undefined) {
      throw this.protocolError(`${where} streams its arguments (partialArgs, willContinue), which is not supported`);
    }
    const name = nonEmptyString(call['name']);
    if (name === undefined)
      throw this.protocolError(`${where}.name is ${describeValue(call['name'])}, not a function name`, 'invalid-tool-call');
    const args = call['args'];
    if (args !== undefined && args !== null && !isJsonObject(args)) {
      throw this.protocolError(`${where}.args is ${describeValue(args)}, not an object`);
    }
    const index = this.newCall(choice);
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
    this.finishCandidate(0, reason);
  }

  /** Notes a candidate, unfinished until its finishReason comes. */
  private see(choice: number): void {
    if (this.finished.has(choice)) return;
    this.finished.set(choice, false);
    this.unfinished++;
  }

  private finishCandidate(choice: number, raw: string): void {
    // One finish per candidate: a repeated finishReason in the same chunk changes nothing.
    if (this.finished.get(choice) === true) return;
    this.finished.set(choice, true);
    this.unfinished--;
    this.finish(choice, raw);
  }
}

/**
 * The end of a Gemini stream: a chunk in which every candidate has its `finishReason` (or that has
 * none and a `promptFeedback.blockReason`).
 */
function isFinal(frame: SseFrame): boolean {
  const chunk = payloadMentioning(frame, 'Reason"');
  if (chunk === undefined) return false;
  const candidates = chunk['candidates'];
  if (Array.isArray(candidates) && candidates.length > 0) {
    return candidates.every((candidate) => isJsonObject(candidate) && typeof candidate['finishReason'] === 'string');
  }
  const feedback = chunk['promptFeedback'];
  return isJsonObject(feedback) && typeof feedback['blockReason'] === 'string';
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
export const gemini: DialectFactory = dialectFactory((emit, options) => new GeminiParser(emit, options), isFinal);
