import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, ProviderError, StreamClosedEarlyError } from '../../errors/errors.js';
import { JsonObject, copyJson, nonEmptyString } from '../../internal/json.js';
import { normalizeFinishReason } from '../../internal/finishReason.js';
import { ChatEvent, JsonValue } from '../../types/events.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
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
/** `tool-output-available` and `tool-output-error`: the call's id and its output are read; kept on the choice. */
const MAPPED_OUTPUT: ReadonlySet<string> = new Set(['type', 'toolCallId', 'output']);
const MAPPED_OUTPUT_ERROR: ReadonlySet<string> = new Set(['type', 'toolCallId', 'errorText']);
/** `tool-approval-request`: the call it is for and the id its answer names; the rest (`reason`, `signature`) is the choice's. */
const MAPPED_APPROVAL_REQUEST: ReadonlySet<string> = new Set(['type', 'toolCallId', 'approvalId']);

/** What a call's chunk carried beside the fields read, copied, to keep on the call once it is numbered. */
interface KeptFields {
  readonly object: JsonObject;
  readonly mapped: ReadonlySet<string>;
}

/**
 * A call of the stream, by its `toolCallId`, until the stream says whose it is: its input as it
 * came, and what its chunks carried beside.
 */
interface UiCall {
  readonly id: string;
  readonly name: string;
  readonly custom: boolean;
  /** The part type the AI SDK gives the call (`tool-<name>`, `dynamic-tool`): a provider tool's `type`. */
  readonly partType: string;
  /** Ran by the provider (`providerExecuted`): its call is emitted once its input is whole. */
  providerExecuted: boolean;
  /** The input text of its deltas, and whether any came. */
  text: string;
  streamed: boolean;
  /** Its `tool-input-available` came: the input is whole. */
  available: boolean;
  input: JsonValue;
  readonly kept: KeptFields[];
  /** Emitted: as the program's call, the provider's (or the server's), or a request. */
  settled: boolean;
}

/** The step being read: what it streamed, the calls it started, what it holds until it ends. */
interface OpenStep {
  /** Characters of content and of reasoning it streamed. */
  content: number;
  reasoning: number;
  /** The ids of the calls it started. */
  calls: string[];
  /** Its parts beside the text, emitted when it ends. */
  held: (() => void)[];
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
 * `tool_calls` after calls); `done` at `[DONE]`; at `reset-step`, a `retract` of the step's text, and
 * the step's other parts (held until it ends) dropped. Calls the server ran itself (`providerExecuted`)
 * are not the client's to run and are left out. Any other chunk but the parts' start and end chunks
 * and the steps (tool outputs, data parts but transient ones, files, `message-metadata`) is kept whole as an item of
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
  /** The calls of the stream, by `toolCallId`, in the order they started. */
  private readonly calls = new Map<string, UiCall>();
  /** Calls whose input has not become available. */
  private openCalls = 0;
  /** A call that was not the program's (the server's, the provider's, a request) was settled. */
  private othersSettled = false;
  private named = false;
  private finished = false;
  /**
   * The step being read (since the last `start-step`, or the stream's start): the text it streamed,
   * the calls it started, and its other parts, held until the step ends, so that a `reset-step`
   * can take all of them back (the text by a `retract` event: it has streamed already).
   */
  private readonly step: OpenStep = { content: 0, reasoning: 0, calls: [], held: [] };

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    const type = payload['type'];
    if (type !== 'error' && type !== 'abort' && frame.event !== 'error') return undefined;
    // What the step holds had arrived: the error's partial shows it.
    this.endStep();
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
        if (type === 'text-delta') this.step.content += text.length;
        else this.step.reasoning += text.length;
        this.keepUnmapped(payload, MAPPED_DELTA, { choice: 0 });
        break;
      }
      case 'tool-input-start':
        this.readStart(payload);
        break;
      case 'tool-input-delta': {
        const call = this.openCall(this.callId(payload, type), type);
        const text = this.text(payload['inputTextDelta'], type, 'inputTextDelta') ?? '';
        call.text += text;
        call.streamed ||= text !== '';
        call.kept.push({ object: copyJson(payload) as JsonObject, mapped: MAPPED_INPUT_DELTA });
        break;
      }
      case 'tool-input-available':
        this.readAvailable(payload);
        break;
      case 'tool-input-error':
        this.readInputError(payload, frame);
        break;
      case 'tool-output-available':
      case 'tool-output-error':
        this.readOutput(payload, type, frame);
        break;
      case 'tool-approval-request':
        this.readApprovalRequest(payload, frame);
        break;
      case 'source-url': {
        const url = this.text(payload['url'], type, 'url') ?? '';
        const title = this.optionalString(payload['title'], 'source-url.title');
        this.hold({ type: 'source', choice: 0, source: { kind: 'url', url, ...(title === undefined ? {} : { title }) } });
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
        // The calls no chunk claimed for the server or for an approval are the program's.
        this.settleClientCalls();
        this.endStep();
        if (!this.finished) this.finishWith(raw ?? 'stop');
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
        // A step's calls are settled by its end: a tool the server runs has given its output within it.
        if (type === 'finish-step') this.settleClientCalls();
        this.endStep();
        this.keepUnmapped(payload, MAPPED_STEP, { choice: 0 });
        this.unknown(payload, frame);
        break;
      case 'reset-step':
        this.resetStep();
        this.keepUnmapped(payload, MAPPED_STEP, { choice: 0 });
        this.unknown(payload, frame);
        break;
      default:
        if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
        // Any other chunk (a file, a data part, a document source, a tool's output, the message's
        // metadata) is part of the reply: kept whole. A transient data part is not: the client's
        // `onData` has it, the message never does.
        if (payload['transient'] !== true || !type.startsWith('data-')) this.keepItem(payload, { choice: 0 });
        this.unknown(payload, frame);
    }
  }

  override end(): void {
    // A stream cut inside a step: what the step holds had arrived, and the error's partial shows it.
    this.endStep();
    super.end();
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
    this.endStep();
    this.endStream();
  }

  /** An event of the step's parts beside its text: held until the step ends (see `step`). */
  private hold(event: ChatEvent): void {
    this.step.held.push(() => this.emit(event));
  }

  /** Keeps an item of the step (copied now: the payload is reused for the next frame), once the step ends. */
  protected override keepItem(item: unknown, place?: MetadataPlace): void {
    const copy = copyJson(item);
    this.step.held.push(() => super.keepItem(copy, place));
  }

  /** The step ended: what it held is the reply's. */
  private endStep(): void {
    const { held } = this.step;
    this.step.held = [];
    this.step.content = 0;
    this.step.reasoning = 0;
    this.step.calls = [];
    for (const release of held) release();
  }

  /**
   * `reset-step`: the step's parts are not the reply. Its text has streamed and is retracted; its
   * other parts were held and are dropped; its calls are forgotten, whatever they had received.
   */
  private resetStep(): void {
    const { content, reasoning } = this.step;
    if (content > 0 || reasoning > 0) this.emit({ type: 'retract', choice: 0, content, reasoning });
    for (const id of this.step.calls) {
      const call = this.calls.get(id);
      if (call === undefined) continue;
      if (!call.available) this.openCalls--;
      this.calls.delete(id);
    }
    this.step.held = [];
    this.step.content = 0;
    this.step.reasoning = 0;
    this.step.calls = [];
  }

  private readStart(payload: JsonObject): void {
    const id = this.callId(payload, 'tool-input-start');
    if (this.calls.has(id)) throw this.protocolError(`tool call ${id} started twice`, 'invalid-tool-call');
    const call = this.newUiCall(payload, id, 'tool-input-start');
    call.kept.push({ object: copyJson(payload) as JsonObject, mapped: MAPPED_INPUT_START });
  }

  private readAvailable(payload: JsonObject): void {
    const id = this.callId(payload, 'tool-input-available');
    const call = this.calls.has(id) ? this.openCall(id, 'tool-input-available') : this.newUiCall(payload, id, 'tool-input-available');
    const input = payload['input'];
    call.input = input === undefined ? {} : copyJson(input);
    call.available = true;
    call.providerExecuted ||= payload['providerExecuted'] === true;
    this.openCalls--;
    call.kept.push({ object: copyJson(payload) as JsonObject, mapped: MAPPED_INPUT_AVAILABLE });
    // A tool the provider runs is known to be its own: its call is whole now, its output follows.
    if (call.providerExecuted) this.settleProviderCall(call);
  }

  /**
   * `tool-input-error`: the model wrote input the tool refuses (it does not parse, or fails the
   * schema). No call to run: the chunk (its tool, input and `errorText`) is kept whole on the choice.
   */
  private readInputError(payload: JsonObject, frame: SseFrame): void {
    const id = this.callId(payload, 'tool-input-error');
    const call = this.calls.get(id);
    if (call !== undefined && !call.settled) {
      if (!call.available) this.openCalls--;
      this.calls.delete(id);
    }
    this.keepItem(payload, { choice: 0 });
    this.unknown(payload, frame);
  }

  /**
   * `tool-output-available` (`tool-output-error`): a tool the server or the provider ran gave its
   * output (failed): the provider tool call and its result. The output of a call this stream did not
   * make (an approved call of an earlier message) is kept whole on the choice.
   */
  private readOutput(payload: JsonObject, type: string, frame: SseFrame): void {
    const id = this.callId(payload, type);
    const call = this.calls.get(id);
    if (call === undefined || !call.available || (call.settled && !call.providerExecuted)) {
      this.keepItem(payload, { choice: 0 });
      return this.unknown(payload, frame);
    }
    if (!call.settled) this.settleProviderCall(call);
    const result: JsonValue =
      type === 'tool-output-error'
        ? { error: this.text(payload['errorText'], type, 'errorText') ?? '' }
        : payload['output'] === undefined
          ? null
          : copyJson(payload['output']);
    this.hold({ type: 'provider-tool-result', choice: 0, id, result });
    this.keepUnmapped(payload, type === 'tool-output-error' ? MAPPED_OUTPUT_ERROR : MAPPED_OUTPUT, { choice: 0 });
  }

  /** `tool-approval-request`: the call waits for the user's approval, which names `approvalId`. */
  private readApprovalRequest(payload: JsonObject, frame: SseFrame): void {
    const id = this.callId(payload, 'tool-approval-request');
    const approvalId = nonEmptyString(payload['approvalId']);
    if (approvalId === undefined) {
      throw this.protocolError(`tool-approval-request ${id}: approvalId is ${describeValue(payload['approvalId'])}`, 'invalid-tool-call');
    }
    const call = this.calls.get(id);
    if (call === undefined || !call.available || call.settled) {
      this.keepItem(payload, { choice: 0 });
      return this.unknown(payload, frame);
    }
    call.settled = true;
    this.othersSettled = true;
    this.hold({
      type: 'tool-request',
      choice: 0,
      request: { id: approvalId, type: 'tool-approval-request', kind: 'approval', name: call.name, input: call.input },
    });
    this.keepKept(call, { choice: 0 });
    this.keepUnmapped(payload, MAPPED_APPROVAL_REQUEST, { choice: 0 });
  }

  /** A call the provider or the server ran: its call, whole, and what its chunks carried on the choice. */
  private settleProviderCall(call: UiCall): void {
    call.settled = true;
    this.othersSettled = true;
    this.hold({ type: 'provider-tool-call', choice: 0, call: { id: call.id, name: call.name, type: call.partType, input: call.input } });
    this.keepKept(call, { choice: 0 });
  }

  /** The calls whose input is whole and that no chunk claimed: the program's, numbered in the order they started. */
  private settleClientCalls(): void {
    for (const call of this.calls.values()) {
      if (call.settled || !call.available) continue;
      call.settled = true;
      const index = this.newCall(0);
      this.emit({
        type: 'tool-call-delta',
        choice: 0,
        index,
        id: call.id,
        name: call.name,
        arguments: '',
        ...(call.custom ? { kind: 'custom' as const } : {}),
      });
      // The input is the arguments only when no delta carried them: the deltas' text is what the model wrote.
      const input = call.input;
      const args = call.streamed ? call.text : typeof input === 'string' ? input : this.serialize(input, 'tool-input-available.input');
      if (args !== '') this.emit({ type: 'tool-call-delta', choice: 0, index, arguments: args });
      // Kept before the end: groupToolCallsByIndex shows the call's metadata on the tool-call it emits there.
      this.keepKept(call, { choice: 0, call: index });
      this.emit({ type: 'tool-call-end', choice: 0, index });
    }
  }

  private keepKept(call: UiCall, place: MetadataPlace): void {
    for (const { object, mapped } of call.kept) this.keepUnmapped(object, mapped, place);
    call.kept.length = 0;
  }

  /** The finish: a tool-calls reason when no call is the program's (the server ran them, or they wait) is `other`. */
  private finishWith(raw: string): void {
    if (this.othersSettled && this.callsMade(0) === 0 && normalizeFinishReason(raw, false) === 'tool_calls') {
      return this.emit({ type: 'finish', choice: 0, reason: 'other', raw });
    }
    this.finish(0, raw);
  }

  /** A call seen for the first time, counted as open until its input is available. */
  private newUiCall(payload: JsonObject, id: string, what: string): UiCall {
    const name = nonEmptyString(payload['toolName']);
    if (name === undefined)
      throw this.protocolError(`${what} ${id}: toolName is ${describeValue(payload['toolName'])}`, 'invalid-tool-call');
    const custom = payload['inputEncoding'] === 'text' || (what === 'tool-input-available' && typeof payload['input'] === 'string');
    const call: UiCall = {
      id,
      name,
      custom,
      partType: payload['dynamic'] === true ? 'dynamic-tool' : `tool-${name}`,
      providerExecuted: payload['providerExecuted'] === true,
      text: '',
      streamed: false,
      available: false,
      input: {},
      kept: [],
      settled: false,
    };
    this.calls.set(id, call);
    this.step.calls.push(id);
    this.openCalls++;
    return call;
  }

  private openCall(id: string, what: string): UiCall {
    const call = this.calls.get(id);
    if (call === undefined) throw this.protocolError(`${what} for tool call ${id}, which never started`, 'invalid-tool-call');
    if (call.available) throw this.protocolError(`${what} for tool call ${id}, whose input was already available`, 'invalid-tool-call');
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
