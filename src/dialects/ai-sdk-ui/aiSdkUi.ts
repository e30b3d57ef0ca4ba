import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, ProviderError, StreamClosedEarlyError } from '../../errors/errors.js';
import { JsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';

/**
 * The fields this dialect reads in each kind of chunk, or knows to carry nothing: `type` names the
 * chunk; a part's `id` (on `text-*` and `reasoning-*`) only ties its deltas to its start and end, the
 * parts being joined into the choice's text; a `source-url`'s `sourceId` only names the source within
 * the stream (a new one per source, no field of the `Source`). Every other field is kept as
 * `providerMetadata['ai-sdk']`: a `start` or `finish` chunk's on the reply (`messageMetadata`), a
 * tool chunk's on its call (`providerMetadata`, `dynamic`, `title`, `_meta`), any other's on the
 * choice. The AI SDK's own `providerMetadata` (namespaced by its providers) is kept as it came, as
 * one field: a later chunk's replaces an earlier one's at the same place.
 */
const MAPPED_START: ReadonlySet<string> = new Set(['type', 'messageId']);
const MAPPED_FINISH: ReadonlySet<string> = new Set(['type', 'finishReason']);
const MAPPED_DELTA: ReadonlySet<string> = new Set(['type', 'id', 'delta']);
/** `text-start`, `text-end`, `reasoning-start`, `reasoning-end`: they frame a part's deltas. */
const MAPPED_PART_FRAME: ReadonlySet<string> = new Set(['type', 'id']);
/** `start-step`, `finish-step`: they frame a step of the reply. */
const MAPPED_STEP: ReadonlySet<string> = new Set(['type']);
const MAPPED_SOURCE_URL: ReadonlySet<string> = new Set(['type', 'sourceId', 'url', 'title']);
const MAPPED_INPUT_START: ReadonlySet<string> = new Set(['type', 'toolCallId', 'toolName', 'inputEncoding', 'providerExecuted']);
const MAPPED_INPUT_DELTA: ReadonlySet<string> = new Set(['type', 'toolCallId', 'inputTextDelta']);
const MAPPED_INPUT_AVAILABLE: ReadonlySet<string> = new Set([
  'type',
  'toolCallId',
  'toolName',
  'input',
  'inputEncoding',
  'providerExecuted',
]);
/** A call of the stream, by its `toolCallId`: its dense index, whether input text came, whether it is whole. */
interface UiCall {
  readonly index: number;
  streamed: boolean;
  open: boolean;
}

/**
 * The AI SDK's UI message stream (`x-vercel-ai-ui-message-stream: v1`), what a backend's
 * `result.toUIMessageStreamResponse()` sends to `useChat`: one JSON chunk per `data:`, ending with
 * `data: [DONE]`. Read so that a client of this library (Angular, Nest, a script) can consume a
 * backend written with the AI SDK.
 *
 * Events: `start` for a `start` chunk with a `messageId` (the stream's id; the format names no
 * model); `content` per `text-delta`; `reasoning` per `reasoning-delta`; a `tool-call-delta` with the
 * id and name at `tool-input-start` and one per `tool-input-delta` (`inputEncoding: "text"` makes a
 * custom call, its input never parsed); at `tool-input-available`, the input itself as the call's
 * arguments when no delta carried them (a call that was never streamed), then `tool-call-end`; a
 * `source` per `source-url`; `finish` from the `finish` chunk's `finishReason` (absent: `stop`,
 * `tool_calls` after calls); `done` at `[DONE]`. Calls the server ran itself (`providerExecuted`)
 * are not the client's to run and are left out. Any other chunk but the parts' start and end chunks
 * and the steps (tool outputs, data parts, files, `message-metadata`) is kept whole as an item of
 * `providerMetadata['ai-sdk']`, and the fields of a chunk beside the ones read as fields there: the
 * `messageMetadata` of `start` and `finish` (its shape is the application's own: usage is not read
 * from it), a chunk's own `providerMetadata`, a call's `dynamic` and `title`.
 *
 * Errors: an `error` chunk is a `ProviderError` with its `errorText`; an `abort` chunk a
 * `ProviderError` saying the server aborted; a `finish` chunk whose reason is `interrupted` (ai 7:
 * the model's stream ended without its completion signal) a `StreamClosedEarlyError`; a stream
 * without `[DONE]`, or whose `[DONE]` came with no `finish` or with a call whose input never became
 * available, a `StreamClosedEarlyError`; a delta
 * or an input for a call that never started, a second start of one id, or a chunk whose fields have
 * the wrong types, a `ProtocolError`.
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion$ = fromFetch('/api/chat', { method: 'POST', body, selector: (r) => fromResponse(r) }).pipe(
 *   decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'ai-sdk-ui' }), groupToolCallsByIndex(), finalizeCompletion(),
 * );
 * ```
 */
export class AiSdkUiParser extends JsonDialectParser {
  protected readonly endSignal = '[DONE]';
  protected override readonly provider = 'ai-sdk';
  protected override readonly doneFrame = 'end';
  private readonly calls = new Map<string, UiCall>();
  /** Calls the provider ran: their chunks are skipped. */
  private readonly providerCalls = new Set<string>();
  private openCalls = 0;
  private named = false;
  private finished = false;

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    const type = payload['type'];
    if (type !== 'error' && type !== 'abort' && frame.event !== 'error') return undefined;
    const text = type === 'abort' ? 'the server aborted the stream' : (nonEmptyString(payload['errorText']) ?? 'no message');
    const reason = type === 'abort' ? nonEmptyString(payload['reason']) : undefined;
    return new ProviderError(`the server reported an error at frame ${this.frameCount}: ${text}${reason ? ` (${reason})` : ''}`, {
      position: { event: this.frameCount },
      body: payload,
    });
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['type'];
    switch (type) {
      case 'start': {
        const id = nonEmptyString(this.optionalString(payload['messageId'], 'start.messageId'));
        if (id !== undefined && !this.named) this.emit({ type: 'start', id, model: null });
        this.named ||= id !== undefined;
        this.keepUnmapped(payload, MAPPED_START);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const text = this.text(payload['delta'], type, 'delta') ?? '';
        if (text !== '') this.emit({ type: type === 'text-delta' ? 'content' : 'reasoning', choice: 0, text });
        this.keepUnmapped(payload, MAPPED_DELTA, { choice: 0 });
        break;
      }
      case 'tool-input-start':
        this.readStart(payload);
        break;
      case 'tool-input-delta': {
        const id = this.callId(payload, type);
        if (this.providerCalls.has(id)) break;
        const call = this.openCall(id, type);
        const text = this.text(payload['inputTextDelta'], type, 'inputTextDelta') ?? '';
        call.streamed ||= text !== '';
        this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: text });
        this.keepUnmapped(payload, MAPPED_INPUT_DELTA, { choice: 0, call: call.index });
        break;
      }
      case 'tool-input-available':
        this.readAvailable(payload);
        break;
      case 'source-url': {
        const url = this.text(payload['url'], type, 'url') ?? '';
        const title = this.optionalString(payload['title'], 'source-url.title');
        this.emit({ type: 'source', choice: 0, source: { kind: 'url', url, ...(title === undefined ? {} : { title }) } });
        this.keepUnmapped(payload, MAPPED_SOURCE_URL, { choice: 0 });
        break;
      }
      case 'finish': {
        // The UI spells the reasons with hyphens (`tool-calls`); the normalization knows them.
        const raw = this.optionalString(payload['finishReason'], 'finish.finishReason');
        // ai 7's reason for a model stream that ended without its completion signal: not a whole reply.
        if (raw === 'interrupted') {
          throw new StreamClosedEarlyError(`frame ${this.frameCount}: the finish chunk says the model's stream was interrupted`, {
            reason: 'unfinished',
            position: { event: this.frameCount },
          });
        }
        if (!this.finished) this.finish(0, raw ?? 'stop');
        this.finished = true;
        this.keepUnmapped(payload, MAPPED_FINISH);
        break;
      }
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
        // A part's start and end frame its deltas, as the steps frame the reply: what they carry beside is kept.
        this.keepUnmapped(payload, MAPPED_PART_FRAME, { choice: 0 });
        this.unknown(payload, frame);
        break;
      case 'start-step':
      case 'finish-step':
        this.keepUnmapped(payload, MAPPED_STEP, { choice: 0 });
        this.unknown(payload, frame);
        break;
      default:
        if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
        // Any other chunk (a file, a data part, a document source, a tool's output, the message's
        // metadata) is part of the reply: kept whole.
        this.keepItem(payload, { choice: 0 });
        this.unknown(payload, frame);
    }
  }

  protected override openAtEnd(): string {
    return this.openCalls > 0 ? ` (${this.openCalls} tool call${this.openCalls === 1 ? '' : 's'} still open)` : '';
  }

  protected override readDone(): void {
    const lacking =
      this.openCalls > 0
        ? `${this.openCalls} tool call${this.openCalls === 1 ? '' : 's'} whose input never became available`
        : this.finished
          ? undefined
          : 'no finish chunk';
    if (lacking !== undefined) {
      throw new StreamClosedEarlyError(`frame ${this.frameCount}: [DONE] arrived with ${lacking}`, {
        reason: 'unfinished',
        position: { event: this.frameCount },
      });
    }
    this.endStream();
  }

  private readStart(payload: JsonObject): void {
    const id = this.callId(payload, 'tool-input-start');
    if (payload['providerExecuted'] === true) {
      this.providerCalls.add(id);
      return;
    }
    if (this.calls.has(id) || this.providerCalls.has(id)) throw this.protocolError(`tool call ${id} started twice`, 'invalid-tool-call');
    const start = this.newUiCall(payload, id, 'tool-input-start');
    this.emit({ ...start, arguments: '' });
    this.keepUnmapped(payload, MAPPED_INPUT_START, { choice: 0, call: start.index });
  }

  private readAvailable(payload: JsonObject): void {
    const id = this.callId(payload, 'tool-input-available');
    if (this.providerCalls.has(id) || payload['providerExecuted'] === true) {
      this.providerCalls.add(id);
      return;
    }
    let call = this.calls.get(id);
    const input = payload['input'];
    // The input is the arguments only when no delta carried them: the deltas' text is what the model wrote.
    const args = typeof input === 'string' ? input : this.serialize(input === undefined ? {} : input, 'tool-input-available.input');
    if (call === undefined) {
      this.emit({ ...this.newUiCall(payload, id, 'tool-input-available'), arguments: args });
      call = this.openCall(id, 'tool-input-available');
    } else {
      call = this.openCall(id, 'tool-input-available');
      if (!call.streamed) this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: args });
    }
    call.open = false;
    this.openCalls--;
    // Kept before the end: groupToolCallsByIndex shows the call's metadata on the tool-call it emits there.
    this.keepUnmapped(payload, MAPPED_INPUT_AVAILABLE, { choice: 0, call: call.index });
    this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
  }

  /** A call seen for the first time: numbered, counted as open, its first fragment's fields. */
  private newUiCall(payload: JsonObject, id: string, what: string) {
    const name = nonEmptyString(payload['toolName']);
    if (name === undefined)
      throw this.protocolError(`${what} ${id}: toolName is ${describeValue(payload['toolName'])}`, 'invalid-tool-call');
    const index = this.newCall(0);
    this.calls.set(id, { index, streamed: false, open: true });
    this.openCalls++;
    const custom = payload['inputEncoding'] === 'text' || (what === 'tool-input-available' && typeof payload['input'] === 'string');
    return { type: 'tool-call-delta' as const, choice: 0, index, id, name, ...(custom ? { kind: 'custom' as const } : {}) };
  }

  private openCall(id: string, what: string): UiCall {
    const call = this.calls.get(id);
    if (call === undefined) throw this.protocolError(`${what} for tool call ${id}, which never started`, 'invalid-tool-call');
    if (!call.open) throw this.protocolError(`${what} for tool call ${id}, whose input was already available`, 'invalid-tool-call');
    return call;
  }

  private callId(payload: JsonObject, what: string): string {
    const id = nonEmptyString(payload['toolCallId']);
    if (id === undefined) throw this.protocolError(`${what}: toolCallId is ${describeValue(payload['toolCallId'])}`, 'invalid-tool-call');
    return id;
  }
}

/** The end of a UI message stream: `data: [DONE]`. */
function isFinal(frame: SseFrame): boolean {
  return frame.data === '[DONE]';
}

/**
 * The `ai-sdk-ui` dialect: the AI SDK's UI message stream, as `toUIMessageStreamResponse()` sends it.
 * Not chosen by `auto`: name it.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion, aiSdkUi } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: aiSdkUi }), groupToolCallsByIndex(), finalizeCompletion());
 * ```
 */
export const aiSdkUi = defineDialect({
  name: 'ai-sdk-ui',
  create: (emit, options) => new AiSdkUiParser(emit, options),
  isFinal: isFinal,
  recognizes: isUiMessageChunk,
});

/** The chunk types a UI message stream can open with (`data-*` parts too); `finish` and the like end one. */
const OPENING_CHUNKS: ReadonlySet<string> = new Set([
  'start',
  'start-step',
  'text-start',
  'text-delta',
  'reasoning-start',
  'reasoning-delta',
  'tool-input-start',
  'tool-input-available',
  'message-metadata',
  'source-url',
  'source-document',
  'file',
]);

/**
 * A first chunk of the AI SDK's UI message stream (`{"type":"start","messageId":...}` as `toUIMessageStream`
 * writes it): its `start` names no `id` or `model`, which this library's own `start` event does.
 */
function isUiMessageChunk(payload: JsonObject): boolean {
  const type = payload['type'];
  if (typeof type !== 'string') return false;
  if (type === 'start') return !('id' in payload) && !('model' in payload);
  return OPENING_CHUNKS.has(type) || type.startsWith('data-');
}
