import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, StreamClosedEarlyError } from '../../errors/errors.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue, hasError } from '../base/payloadValues.js';

/**
 * The fields this dialect reads in each kind of event (`type` names the event). Every other field is
 * kept as `providerMetadata['typed-events']`: a `text` event's on the choice (the format has one),
 * a call event's on the call it names.
 */
const MAPPED_TEXT: ReadonlySet<string> = new Set(['type', 'delta']);
const MAPPED_CALL_START: ReadonlySet<string> = new Set(['type', 'index', 'id', 'name']);
const MAPPED_CALL_DELTA: ReadonlySet<string> = new Set(['type', 'index', 'args']);
const MAPPED_CALL_END: ReadonlySet<string> = new Set(['type', 'index']);

/**
 * A small typed-event stream: each SSE `data:` is one JSON event,
 * `{"type":"text","delta"}`, `{"type":"tool_call_start","index","id","name"}`,
 * `{"type":"tool_call_delta","index","args"}`, `{"type":"tool_call_end","index"}`, and the stream
 * ends with `data: [DONE]`.
 *
 * Events: `content` per text delta; a `tool-call-delta` with the id and name at a call's start and
 * one per argument fragment; `tool-call-end` at its end; at `[DONE]` a `finish` (the format has no
 * finish field: `tool_calls` when any call was made, else `stop`, the raw value the same) and
 * `done`. The format has no id, so there is no `start`. Calls are numbered 0, 1, 2 in the order
 * they start, whatever indices the stream gives them; their fragments may interleave.
 *
 * Errors: a stream without `[DONE]`, or with a call still open at `[DONE]` (the stream was cut
 * inside the call), is a `StreamClosedEarlyError`; a delta or an end for a call that never started,
 * a second start of one index, or a fragment after a call ended is a `ProtocolError`; an error
 * payload (`{"type":"error"}`, `{"error": ...}`, `event: error`) is a `ProviderError`. Unknown event
 * types are ignored; fields an event has beside the ones read are kept as
 * `providerMetadata['typed-events']` of the choice (`text`) or of the call (`tool_call_*`). Frames
 * after `[DONE]` are ignored (under `strict`, a `ProtocolError`).
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, typedEvents } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: typedEvents }));
 * ```
 */
export class TypedEventsParser extends JsonDialectParser {
  protected readonly endSignal = '[DONE]';
  protected override readonly provider = 'typed-events';
  protected override readonly doneFrame = 'end';
  /** Each stream index's dense call index, and whether that call is still open. */
  private readonly calls = new Map<number, { readonly index: number; open: boolean }>();
  private openCalls = 0;

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    return frame.event === 'error' || payload['type'] === 'error' || hasError(payload) ? this.providerError(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['type'];
    switch (type) {
      case 'text': {
        const delta = payload['delta'];
        if (typeof delta !== 'string') throw this.protocolError(`text.delta is ${describeValue(delta)}, not text`);
        if (delta !== '') this.emit({ type: 'content', choice: 0, text: delta });
        this.keepUnmapped(payload, MAPPED_TEXT, { choice: 0 });
        break;
      }
      case 'tool_call_start':
        this.readStart(payload);
        break;
      case 'tool_call_delta':
        this.readDelta(payload);
        break;
      case 'tool_call_end': {
        const call = this.openCall(payload, 'tool_call_end');
        call.open = false;
        this.openCalls--;
        // Kept before the end: groupToolCallsByIndex shows the call's metadata on the tool-call it emits there.
        this.keepUnmapped(payload, MAPPED_CALL_END, { choice: 0, call: call.index });
        this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
        break;
      }
      default:
        if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
        // Event types newer than this parser: ignored, or passed on with `unknownEvents`.
        this.unknown(payload, frame);
    }
  }

  protected override openAtEnd(): string {
    return this.openCalls > 0 ? ` (${this.openCalls} tool call${this.openCalls === 1 ? '' : 's'} still open)` : '';
  }

  protected override readDone(): void {
    if (this.openCalls > 0) {
      // A call the stream never closed was cut short: its arguments may look whole and still be a prefix.
      throw new StreamClosedEarlyError(
        `frame ${this.frameCount}: [DONE] arrived with ${this.openCalls} tool call${this.openCalls === 1 ? '' : 's'} never ended`,
        { reason: 'unfinished', position: { event: this.frameCount } },
      );
    }
    // The format has no finish field: the calls made say why the reply stopped.
    this.finish(0, this.calls.size > 0 ? 'tool_calls' : 'stop');
    this.endStream();
  }

  private readStart(payload: JsonObject): void {
    const streamIndex = this.streamIndex(payload, 'tool_call_start');
    if (this.calls.has(streamIndex)) throw this.protocolError(`tool call ${streamIndex} started twice`, 'invalid-tool-call');
    const id = nonEmptyString(payload['id']);
    if (id === undefined)
      throw this.protocolError(`tool_call_start ${streamIndex}: id is ${describeValue(payload['id'])}`, 'invalid-tool-call');
    const name = nonEmptyString(payload['name']);
    if (name === undefined)
      throw this.protocolError(`tool_call_start ${streamIndex}: name is ${describeValue(payload['name'])}`, 'invalid-tool-call');
    const index = this.newCall(0);
    this.calls.set(streamIndex, { index, open: true });
    this.openCalls++;
    this.emit({ type: 'tool-call-delta', choice: 0, index, id, name, arguments: '' });
    this.keepUnmapped(payload, MAPPED_CALL_START, { choice: 0, call: index });
  }

  private readDelta(payload: JsonObject): void {
    const call = this.openCall(payload, 'tool_call_delta');
    const args = payload['args'];
    let fragment: string;
    if (typeof args === 'string') fragment = args;
    else if (args === undefined || args === null) fragment = '';
    // Arguments sent whole as an object are serialized, never concatenated as "[object Object]".
    else if (isJsonObject(args)) fragment = this.serialize(args, `tool_call_delta ${call.index}: args`);
    else throw this.protocolError(`tool_call_delta ${call.index}: args is ${describeValue(args)}`);
    this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: fragment });
    this.keepUnmapped(payload, MAPPED_CALL_DELTA, { choice: 0, call: call.index });
  }

  private openCall(payload: JsonObject, what: string): { readonly index: number; open: boolean } {
    const streamIndex = this.streamIndex(payload, what);
    const call = this.calls.get(streamIndex);
    if (call === undefined) throw this.protocolError(`${what} for tool call ${streamIndex}, which never started`, 'invalid-tool-call');
    if (!call.open) throw this.protocolError(`${what} for tool call ${streamIndex}, which had ended`, 'invalid-tool-call');
    return call;
  }

  private streamIndex(payload: JsonObject, what: string): number {
    return this.index(payload['index'], `${what}.index`, 'a tool-call index');
  }
}

/** The end of a typed-event stream: `data: [DONE]`. */
function isFinal(frame: SseFrame): boolean {
  return frame.data === '[DONE]';
}

/**
 * The `typed-events` dialect: `text`, `tool_call_start`, `tool_call_delta`, `tool_call_end` events
 * ending with `[DONE]`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, typedEvents } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: typedEvents }), finalizeCompletion());
 * ```
 */
export const typedEvents = defineDialect({
  name: 'typed-events',
  create: (emit, options) => new TypedEventsParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => {
    const type = payload['type'];
    return typeof type === 'string' && (type === 'text' || type.startsWith('tool_call_'));
  },
});
