import { SseFrame } from '../../frames/SseParser.js';
import { Usage } from '../../types/events.js';
import { JsonObject, excerpt, finiteNumber, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { payloadMentioning } from '../base/finalFrames.js';
import { GeminiParts } from './geminiParts.js';
import { GeminiServerCalls } from './geminiServerCalls.js';
import { GeminiServerTools } from './geminiServerTools.js';
import { GeminiSources } from './geminiSources.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';

/** The keys of a part this dialect reads: a part with none of them is of a kind it does not know. */
const PART_KEYS = [
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
  'audioTranscription',
];
/** The keys of a chunk this dialect reads: a chunk with none of them is of a kind it does not know. */
const CHUNK_KEYS = ['candidates', 'promptFeedback', 'usageMetadata', 'responseId', 'modelVersion'];

/**
 * The fields this dialect reads at each level of a chunk, or knows to carry nothing (`role`, always
 * the model's). Every other field is kept as `providerMetadata.google`: of the reply (the chunk's
 * own: Vertex AI's `createTime`, `modelStatus`, `promptFeedback`), of the candidate's choice
 * (`safetyRatings`, `citationMetadata`, `avgLogprobs`, `logprobsResult`, `finishMessage`,
 * `tokenCount`; the fields of its content and parts; what its grounding metadata holds besides the
 * chunks and supports its sources are read from, such as `webSearchQueries` and the
 * `searchEntryPoint` Google asks apps to show), or of the call a `functionCall` part makes.
 *
 * This one is the chunk's (`GenerateContentResponse`). `promptFeedback` is not among them: only its
 * `blockReason` is read (a blocked prompt's finish), and the feedback is kept whole, its safety
 * ratings with it.
 */
const MAPPED_ENVELOPE: ReadonlySet<string> = new Set(['candidates', 'usageMetadata', 'responseId', 'modelVersion']);
/** A candidate: its fields not read here are the choice's. */
const MAPPED_CANDIDATE: ReadonlySet<string> = new Set(['index', 'content', 'finishReason', 'groundingMetadata', 'urlContextMetadata']);
/** A candidate's `content`: `role` is always `model`. */
const MAPPED_CONTENT: ReadonlySet<string> = new Set(['parts', 'role']);
/** A part that makes no call: its other fields (`partMetadata`, ...) are the choice's. */
const MAPPED_PART: ReadonlySet<string> = new Set(PART_KEYS);
/**
 * A part that makes (or continues) a call: every field beside `functionCall` is the call's. Its
 * `thoughtSignature` is also read as the choice's reasoning signature, and is kept on the call as
 * well: Gemini wants it back on that very call's part in the next turn.
 */
const MAPPED_CALL_PART: ReadonlySet<string> = new Set(['functionCall']);
/**
 * An `audioTranscription` (`Transcription`): its `text` is the audio's transcript; the rest
 * (`finished`, `languageCode`, `words`) is the choice's.
 */
const MAPPED_TRANSCRIPTION: ReadonlySet<string> = new Set(['text']);
/** The part of a `functionResponse` that answers a call the server ran: its other fields are the choice's. */
const MAPPED_RESPONSE_PART: ReadonlySet<string> = new Set([...PART_KEYS, 'functionResponse']);
/** A `functionResponse`: the call it answers (`id`, `name`) and its result; the rest is the choice's. */
const MAPPED_FUNCTION_RESPONSE: ReadonlySet<string> = new Set(['id', 'name', 'response']);
/** No candidate: read before a chunk that is no `functionResponse` answer. */
const NO_CANDIDATES: ReadonlySet<number> = new Set();
/** A `functionCall`: its other fields are the call's. */
const MAPPED_FUNCTION_CALL: ReadonlySet<string> = new Set(['id', 'name', 'args', 'partialArgs', 'willContinue']);
/** A candidate's `groundingMetadata`: the chunks and supports are its sources; the rest is the choice's. */
const MAPPED_GROUNDING: ReadonlySet<string> = new Set(['groundingChunks', 'groundingSupports']);
/** A candidate's `urlContextMetadata`: the pages read are its sources. */
const MAPPED_URL_CONTEXT: ReadonlySet<string> = new Set(['urlMetadata']);

/**
 * Google Gemini's native stream (`models/{model}:streamGenerateContent?alt=sse`, and Vertex AI's):
 * data-only SSE (CRLF on the real wire), each event a whole `GenerateContentResponse`:
 * `{candidates: [{content: {parts, role}, finishReason?, index?, groundingMetadata?}], usageMetadata, modelVersion, responseId}`.
 * There is no `[DONE]`: the chunk that carries the `finishReason` is the last one, except after a
 * call the API runs itself (server-side MCP: the next chunk answers it with a `functionResponse`, and
 * the reply goes on to its last finish). A chunk that finishes a candidate with a whole call in it is
 * therefore read at the next frame, or at the end (see `GeminiServerCalls`).
 *
 * Each chunk's parts are new parts, never a snapshot of the earlier ones. A part maps to events by
 * its keys: `text` is answer text, `text` with `thought: true` is reasoning, `functionCall` is a call
 * (whole: `tool-call-delta` with the `args` object serialized, then `tool-call-end`; streamed by
 * Vertex AI as `partialArgs`: see `GeminiParts`), `executableCode` and `codeExecutionResult` are the
 * provider's code execution (`provider-tool-call` and `provider-tool-result`), so are a server-side
 * tool's `toolCall` and `toolResponse` (see `GeminiServerTools`), `audioTranscription` is the
 * transcript of the reply's `audio`, and a `thoughtSignature` on any part is a `reasoning-signature`. A candidate's `groundingMetadata` and
 * `urlContextMetadata` are `source` events, each distinct source once (see `GeminiSources`). The
 * fields no event reads are `provider-metadata` (`google`) of the reply, the candidate's choice, or
 * the call whose part carried them: a call's `thoughtSignature` travels with the call.
 *
 * Events of one chunk come in this order: `start` (once, at the first `responseId`, with
 * `modelVersion` as the model), then per candidate its `provider-metadata` and its content's, and per
 * part in order reasoning or content, the call's events (its `provider-metadata` before its
 * `tool-call-end`, so that the call closes with it), the code execution's, the part's
 * `reasoning-signature` and `provider-metadata`; the candidate's sources, its grounding's
 * `provider-metadata`, and `finish`; then `usage` (`usageMetadata` is a running snapshot, reported
 * on every chunk that has it); the chunk's `provider-metadata`; then, with `unknownEvents`,
 * `unknown` for a chunk with a part (or of a shape) this dialect does not read; then `done`, once
 * every candidate seen has finished. Frames after that are ignored (under `strict`, they are a
 * `ProtocolError`).
 *
 * Usage, in OpenAI's meaning: `promptTokenCount` is the prompt (cached content included),
 * `cachedContentTokenCount` its cached part; the completion is `candidatesTokenCount` plus
 * `thoughtsTokenCount` (all output), the latter also as `reasoningTokens`; the total is
 * `totalTokenCount` as sent (it also counts `toolUsePromptTokenCount`).
 *
 * Call ids: Gemini usually leaves `functionCall.id` out, so a call without one gets a synthesized
 * id that is stable for the stream: `${responseId}-call-${index}` (`gemini` in place of the response
 * id when none came yet; `${responseId}-choice-${choice}-call-${index}` for a candidate other than
 * 0), `index` being the call's dense position within its candidate. Code runs without an `id` are
 * `code-execution-${n}`, numbered across the stream.
 *
 * Finish: `STOP` with calls is `tool_calls` (Gemini has no tool-call finish reason); the raw value is
 * kept. A prompt blocked before generation (no candidates, `promptFeedback.blockReason`) finishes
 * candidate 0 with the block reason as the raw value (`SAFETY` and the like are `content_filter`).
 * An `{"error": {code, message, status}}` chunk is a `ProviderError` whose type is the status.
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
  protected override readonly provider = 'google';
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
  /** Set while a chunk is read when one of its parts is of a kind this dialect does not read. */
  private unknownPart = false;
  private readonly parts = new GeminiParts({
    emit: (event) => this.emit(event),
    newCall: (choice) => this.newCall(choice),
    callId: (choice, index) => this.callId(choice, index),
    serialize: (value, where) => this.serialize(value, where),
    fail: (what, reason) => this.protocolError(what, reason),
    keepCallFields: (part, call, choice, index) => {
      // A call's thoughtSignature goes back on that call's part (Gemini 3 refuses the call without it).
      const signature = part['thoughtSignature'];
      if (typeof signature === 'string' && signature !== '') this.emitSignature(choice, 'tool-call', signature, index);
      const place = { choice, call: index };
      this.keepUnmapped(part, MAPPED_CALL_PART, place);
      this.keepUnmapped(call, MAPPED_FUNCTION_CALL, place);
    },
  });
  private readonly sources = new GeminiSources((what) => this.protocolError(what));
  /**
   * The chunk that finished a candidate with a whole call in it, its text and number, held until the
   * next frame shows whether the server ran the call (see `GeminiServerCalls`).
   */
  private held: { readonly frame: SseFrame; readonly number: number } | undefined = undefined;
  /** Set while the held chunk is read. */
  private readingHeld = false;
  /** While the held chunk is read: its candidates whose calls the server ran, answered in the next chunk. */
  private serverRun: ReadonlySet<number> = NO_CANDIDATES;
  private readonly serverCalls = new GeminiServerCalls(
    (event) => this.emit(event),
    (what) => this.protocolError(what),
  );
  private readonly serverTools = new GeminiServerTools(
    (event) => this.emit(event),
    (what) => this.protocolError(what),
  );

  protected override parsePayload(frame: SseFrame): JsonObject {
    const chunk = this.parseJson(frame.data);
    // Before streaming, Google sends its error body wrapped in an array; a proxy may pass it on.
    if (Array.isArray(chunk) && chunk.length === 1 && isJsonObject(chunk[0]) && isJsonObject(chunk[0]['error'])) {
      throw this.providerError(chunk[0]);
    }
    if (!isJsonObject(chunk)) throw this.protocolError(`expected a JSON object, got ${excerpt(frame.data)}`);
    return chunk;
  }

  override push(frame: SseFrame): void {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      this.readHeld(held, GeminiServerCalls.answered(frame.data));
    }
    super.push(frame);
  }

  override end(): void {
    const held = this.held;
    if (held !== undefined) {
      // Nothing came after it: its calls are the program's, its finish the reply's.
      this.held = undefined;
      this.readHeld(held, NO_CANDIDATES);
    }
    super.end();
  }

  /** Reads the held chunk, knowing now which of its candidates' calls the server ran; its messages name its own frame. */
  private readHeld(held: { readonly frame: SseFrame; readonly number: number }, serverRun: ReadonlySet<number>): void {
    const next = this.frameCount;
    this.frameCount = held.number;
    this.readingHeld = true;
    this.serverRun = serverRun;
    try {
      // Parsed again apart from the template parser, whose objects the next frames reuse.
      this.read(JSON.parse(held.frame.data) as JsonObject, held.frame);
    } finally {
      this.frameCount = next;
      this.readingHeld = false;
      this.serverRun = NO_CANDIDATES;
    }
  }

  protected read(chunk: JsonObject, frame: SseFrame): void {
    if (!this.readingHeld && GeminiServerCalls.finishesWithCall(chunk)) {
      this.held = { frame, number: this.frameCount };
      return;
    }
    const responseId = nonEmptyString(chunk['responseId']);
    if (responseId !== undefined && this.responseId === undefined) {
      this.responseId = responseId;
      this.emit({ type: 'start', id: responseId, model: nonEmptyString(chunk['modelVersion']) ?? null });
    }

    this.unknownPart = false;
    const candidates = chunk['candidates'];
    let anyCandidate = false;
    if (Array.isArray(candidates)) {
      for (let position = 0; position < candidates.length; position++) this.readCandidate(candidates[position], position);
      anyCandidate = candidates.length > 0;
    } else if (candidates !== undefined && candidates !== null) {
      throw this.protocolError('candidates is not an array');
    }
    if (!anyCandidate) this.readPromptFeedback(chunk['promptFeedback']);

    this.readUsage(chunk['usageMetadata']);
    // A chunk of none of the known keys is not this format's: passed on whole with `unknownEvents`, not kept.
    const known = CHUNK_KEYS.some((key) => chunk[key] !== undefined);
    if (known) this.keepUnmapped(chunk, MAPPED_ENVELOPE);
    if (this.unknownPart || !known) this.unknown(chunk, frame);
    if (this.finished.size > 0 && this.unfinished === 0) this.endStream();
  }

  protected override openAtEnd(): string {
    const open = this.parts.openCount;
    if (open === 0) return '';
    return open === 1 ? ' (1 function call still streaming its arguments)' : ` (${open} function calls still streaming their arguments)`;
  }

  /** `usageMetadata`: a running snapshot, reported whenever it counts something. */
  private readUsage(metadata: unknown): void {
    if (isJsonObject(metadata)) {
      const usage = geminiUsage(metadata);
      if (usage !== undefined) this.emit({ type: 'usage', usage });
    } else if (metadata !== undefined && metadata !== null) {
      throw this.protocolError('usageMetadata is not an object');
    }
  }

  private readCandidate(candidate: unknown, position: number): void {
    const where = `candidates[${position}]`;
    if (!isJsonObject(candidate)) throw this.protocolError(`${where} is not an object`);
    const choice = this.optionalIndex(candidate['index'], `${where}.index`, 'a candidate index') ?? 0;
    this.see(choice);
    const place = { choice };
    this.keepUnmapped(candidate, MAPPED_CANDIDATE, place);

    const content = candidate['content'];
    if (isJsonObject(content)) {
      this.keepUnmapped(content, MAPPED_CONTENT, place);
      const parts = content['parts'];
      if (Array.isArray(parts)) {
        for (let k = 0; k < parts.length; k++) this.readPart(parts[k], choice, `${where}.content.parts[${k}]`);
      } else if (parts !== undefined && parts !== null) {
        throw this.protocolError(`${where}.content.parts is not an array`);
      }
    } else if (content !== undefined && content !== null) {
      throw this.protocolError(`${where}.content is not an object`);
    }

    const grounding = candidate['groundingMetadata'];
    const urlContext = candidate['urlContextMetadata'];
    for (const source of this.sources.read(choice, grounding, urlContext, where)) {
      this.emit({ type: 'source', choice, source });
    }
    // Read after the sources, which refuse either of them when it is not an object.
    if (isJsonObject(grounding)) this.keepUnmapped(grounding, MAPPED_GROUNDING, place);
    if (isJsonObject(urlContext)) this.keepUnmapped(urlContext, MAPPED_URL_CONTEXT, place);

    // Gemini's continuationToken (finish CONTINUATION): the next request sends it to go on.
    const token = candidate['continuationToken'];
    if (typeof token === 'string' && token !== '') {
      this.emit({
        type: 'opaque-item',
        choice,
        item: { provider: 'google', kind: 'continuation', type: 'continuationToken', part: 'turn', data: token },
      });
    }
    const raw = candidate['finishReason'];
    // A finish after calls the server ran, which it answered in the next chunk: not the candidate's last.
    if (raw === undefined || raw === null || this.serverRun.has(choice)) return;
    if (typeof raw !== 'string' || raw === '') throw this.protocolError(`${where}.finishReason is ${describeValue(raw)}`);
    this.finishCandidate(choice, raw);
  }

  /** A `thoughtSignature` as an opaque item of `part` (of call `call`, for a call's). */
  private emitSignature(choice: number, part: 'reasoning' | 'content' | 'tool-call' | 'turn', data: string, call?: number): void {
    const item = {
      provider: 'google',
      kind: 'signature',
      type: 'thoughtSignature',
      part,
      ...(call === undefined ? {} : { call }),
      data,
    } as const;
    this.emit({ type: 'opaque-item', choice, item });
  }

  private readPart(part: unknown, choice: number, where: string): void {
    if (!isJsonObject(part)) throw this.protocolError(`${where} is not an object`);
    const text = this.text(part['text'], where, 'text');
    if (text) {
      const thought = part['thought'] === true;
      this.emit({ type: thought ? 'reasoning' : 'content', choice, text });
      if (!thought) this.sources.appendContent(choice, text);
    }

    const call = part['functionCall'];
    const makesCall = call !== undefined && call !== null;
    // A call's part keeps its fields on the call, before the call closes (see `keepCallFields`).
    if (makesCall) this.readCall(part, choice, where);
    const code = part['executableCode'];
    if (code !== undefined && code !== null) this.parts.executableCode(code, choice, `${where}.executableCode`);
    const result = part['codeExecutionResult'];
    if (result !== undefined && result !== null) this.parts.codeExecutionResult(result, choice, `${where}.codeExecutionResult`);
    const serverCall = part['toolCall'];
    if (serverCall !== undefined && serverCall !== null) this.serverTools.toolCall(serverCall, choice, `${where}.toolCall`);
    const serverResponse = part['toolResponse'];
    if (serverResponse !== undefined && serverResponse !== null) {
      this.serverTools.toolResponse(serverResponse, choice, `${where}.toolResponse`);
    }
    this.readTranscription(part['audioTranscription'], choice, `${where}.audioTranscription`);

    const signature = this.text(part['thoughtSignature'], where, 'thoughtSignature');
    if (signature) {
      this.emit({ type: 'reasoning-signature', choice, signature });
      // A call's part made its item already, on the call. A thought's goes with the reasoning, a text
      // part's with its text (an empty one's with the text before it); another part's stands at its
      // place in the turn.
      const signed = part['thought'] === true ? 'reasoning' : typeof part['text'] === 'string' ? 'content' : 'turn';
      if (!makesCall) this.emitSignature(choice, signed, signature);
    }
    // The result of a call the server ran (server-side MCP): kept apart from the parts not read.
    const response = part['functionResponse'];
    if (response !== undefined && response !== null && this.serverCalls.answer(response, choice, `${where}.functionResponse`)) {
      this.keepUnmapped(part, MAPPED_RESPONSE_PART, { choice });
      this.keepUnmapped(response as JsonObject, MAPPED_FUNCTION_RESPONSE, { choice });
      return;
    }
    // An image, a file, a function response...: a part of a kind this dialect does not read is kept
    // whole (`providerMetadata.google.items`), and its chunk passed on with `unknownEvents`.
    if (!PART_KEYS.some((key) => part[key] !== undefined)) {
      if (Object.keys(part).length === 0) return;
      this.keepItem(part, { choice });
      this.unknownPart = true;
    } else if (!makesCall) {
      this.keepUnmapped(part, MAPPED_PART, { choice });
    }
  }

  /** A `functionCall`: the program's, or, in a held chunk the next one answered, one the server ran. */
  private readCall(part: JsonObject, choice: number, where: string): void {
    if (!this.serverRun.has(choice) || !GeminiServerCalls.isWholeCall(part))
      return this.parts.functionCall(part, choice, `${where}.functionCall`);
    const call = part['functionCall'] as JsonObject;
    const base = this.responseId ?? 'gemini';
    this.serverCalls.call(call, choice, choice === 0 ? base : `${base}-choice-${choice}`, `${where}.functionCall`);
    // Not the program's call: what its part and call carry beside it is the choice's.
    this.keepUnmapped(part, MAPPED_PART, { choice });
    this.keepUnmapped(call, MAPPED_FUNCTION_CALL, { choice });
  }

  /** `audioTranscription`: the transcript of the audio the reply speaks, joined on the choice's `audio`. */
  private readTranscription(transcription: unknown, choice: number, where: string): void {
    if (transcription === undefined || transcription === null) return;
    if (!isJsonObject(transcription)) throw this.protocolError(`${where} is not an object`);
    const text = this.text(transcription['text'], where, 'text');
    if (text) this.emit({ type: 'audio', choice, transcript: text });
    this.keepUnmapped(transcription, MAPPED_TRANSCRIPTION, { choice });
  }

  /** The id of a call the wire left without one, stable for the stream. */
  private callId(choice: number, index: number): string {
    const base = this.responseId ?? 'gemini';
    return choice === 0 ? `${base}-call-${index}` : `${base}-choice-${choice}-call-${index}`;
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
    this.parts.finished(choice);
    this.serverTools.finished(choice);
    this.finish(choice, raw);
  }
}

/**
 * `usageMetadata` in OpenAI's meaning: the completion counts the answer and the thinking
 * (`candidatesTokenCount` + `thoughtsTokenCount`, a count the wire leaves out being 0 when the other
 * came); undefined when it counts nothing.
 */
function geminiUsage(metadata: JsonObject): Usage | undefined {
  const prompt = finiteNumber(metadata['promptTokenCount']);
  const candidates = finiteNumber(metadata['candidatesTokenCount']);
  const total = finiteNumber(metadata['totalTokenCount']);
  const cached = finiteNumber(metadata['cachedContentTokenCount']);
  const thoughts = finiteNumber(metadata['thoughtsTokenCount']);
  if (prompt === undefined && candidates === undefined && total === undefined && cached === undefined && thoughts === undefined) {
    return undefined;
  }
  const completion = candidates === undefined && thoughts === undefined ? null : (candidates ?? 0) + (thoughts ?? 0);
  return {
    promptTokens: prompt ?? null,
    completionTokens: completion,
    totalTokens: total ?? null,
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
  };
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
export const gemini = defineDialect({
  name: 'gemini',
  create: (emit, options) => new GeminiParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => 'candidates' in payload || 'usageMetadata' in payload,
});
