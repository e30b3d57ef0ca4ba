import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, StreamClosedEarlyError } from '../../errors/errors.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';
import { finalByType } from '../base/finalFrames.js';
import { readRealtimeUsage } from '../base/usage.js';

/** Where what an event or an item carries beside what is read is kept: the reply's one choice. */
const CHOICE: MetadataPlace = { choice: 0 };

/**
 * The fields of every Realtime server event that address it or say nothing of the reply: its
 * `type`, `event_id` (new with every event), the response, item, output and part it belongs to, and
 * the text of a delta (read where the event is).
 */
const MAPPED_EVENT: ReadonlySet<string> = new Set(['type', 'event_id', 'response_id', 'item_id', 'output_index', 'content_index', 'delta']);
/**
 * `RealtimeResponse`: its `id` (the start), `status` and `status_details` (the finish), `usage`, its
 * `object` (always `realtime.response`) and `output` (the items again, read as they streamed). The
 * rest (`conversation_id`, `output_modalities`, `max_output_tokens`, `audio`, `metadata`) is kept on
 * the reply.
 */
const MAPPED_RESPONSE: ReadonlySet<string> = new Set(['id', 'object', 'status', 'status_details', 'usage', 'output']);
/** A lifecycle event (`response.created`, `response.done`): its envelope and its `response`. */
const MAPPED_LIFECYCLE: ReadonlySet<string> = new Set([...MAPPED_EVENT, 'response']);
/** An item event (`response.output_item.added` / `.done`): its envelope and its `item`. */
const MAPPED_ITEM_EVENT: ReadonlySet<string> = new Set([...MAPPED_EVENT, 'item']);
/** A `function_call` item: its address, its call and its state; anything else is kept on the call. */
const MAPPED_CALL_ITEM: ReadonlySet<string> = new Set(['id', 'object', 'type', 'status', 'call_id', 'name', 'arguments']);
/** A call's argument events: the call they belong to and its text (`.done` repeats it whole). */
const MAPPED_CALL_EVENT: ReadonlySet<string> = new Set([...MAPPED_EVENT, 'call_id', 'name', 'arguments']);

/**
 * The events of a reply that only frame text read in its deltas: the parts opened and finished, and
 * the `.done` events that repeat a part's whole text or transcript (and the audio's end). Read for
 * nothing.
 */
const PART_EVENTS: ReadonlySet<string> = new Set([
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.output_audio.done',
  'response.output_audio_transcript.done',
]);

/**
 * The prefixes of the Realtime server events, for `auto`: every one carries an `event_id`, which no
 * Responses event has (its events carry `sequence_number`), so a Realtime `response.output_text.delta`
 * is told from the Responses event of the same name.
 */
const REALTIME_PREFIXES = [
  'response.',
  'session.',
  'conversation.',
  'input_audio_buffer.',
  'output_audio_buffer.',
  'rate_limits.',
  'mcp_list_tools.',
];

/** The events after which the reply is over: its `response.done`, or an `error`. */
const FINAL_EVENTS: ReadonlySet<string> = new Set(['response.done', 'error']);

interface RealtimeCall {
  readonly index: number;
  /** An argument delta came: the `.done` event and the finished item repeat the text, and are not read again. */
  argumentsArrived: boolean;
  closed: boolean;
}

/**
 * One reply of an OpenAI Realtime session (`wss://api.openai.com/v1/realtime`, the server events of
 * `openai` 7's `RealtimeServerEvent`): the events of one `response.create`, from `response.created`
 * to `response.done`, each a JSON text message of the socket (the frame's `data`).
 *
 * Read: `response.created` (the start: the response's `id`; the Realtime response names no model),
 * `response.output_text.delta` (content), `response.output_audio_transcript.delta` (the transcript of
 * the reply's `audio`) and `response.output_audio.delta` (its base64 data, passed on as it came,
 * never decoded: `audio` events and `Completion.audio.data`), `response.output_item.added` / `.done`
 * and `response.function_call_arguments.delta` / `.done` (tool calls: the item's `call_id` is the
 * call's id, fragments matched by `item_id`; the finished item closes the call unless it is
 * `incomplete`), `response.done` (the finish, from `response.status`: `completed`; `incomplete` with
 * `status_details.reason`, `max_output_tokens` a `length`; `cancelled` (the user spoke over the reply,
 * or the app cancelled it) is a `StreamClosedEarlyError` with `reason: 'unfinished'` whose partial is
 * what had come, so that no call it cut is run; `failed` a `ProviderError` from
 * `status_details.error`; then its `usage`), and `error` events (a `ProviderError`).
 *
 * Ignored: the part events and the `.done` events that repeat text already read (`PART_EVENTS`);
 * the events of the session around the reply (`session.*`, `conversation.*`, `input_audio_buffer.*`,
 * `output_audio_buffer.*`, `rate_limits.updated`, `mcp_list_tools.*`) and the MCP progress events
 * (`response.mcp_call*`): the reply's MCP items are kept whole at their end. All are passed on as
 * `unknown` with `unknownEvents`. A finished item of another kind than `message` and `function_call`
 * is kept whole in `providerMetadata.openai.items`. What an event, the response or an item carries
 * beside what is read is kept under `providerMetadata.openai`.
 *
 * @example
 * ```ts
 * import { map } from 'rxjs';
 * import { assembleChunks, finalizeCompletion, groupToolCallsByIndex, openaiRealtime } from 'rxjs-llm-stream';
 *
 * messages$.pipe(
 *   map((data: string) => ({ event: 'message', data, id: '' })),
 *   assembleChunks({ dialect: openaiRealtime }),
 *   groupToolCallsByIndex(),
 *   finalizeCompletion(),
 * );
 * ```
 */
export class OpenAiRealtimeParser extends JsonDialectParser {
  protected readonly endSignal = 'response.done';
  protected override readonly provider = 'openai';
  // One response.create is one reply: what the session sends after its response.done is another's.
  protected override readonly afterEnd = 'ignore';
  private responseId: string | undefined = undefined;
  private readonly calls = new Map<string, RealtimeCall>();

  /** Only an `error` event: other session events carry an `error` of their own (a user's audio that failed to transcribe). */
  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    return frame.event === 'error' || payload['type'] === 'error' ? this.providerError(payload) : undefined;
  }

  protected override checkEnded(): void {
    if (this.responseId === undefined) throw this.protocolError('no event carried a response id');
  }

  protected override openAtEnd(): string {
    const open = [...this.calls.values()].filter((call) => !call.closed).length;
    return open > 0 ? ` (${open} tool call${open === 1 ? '' : 's'} still open)` : '';
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['type'];
    if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
    switch (type) {
      case 'response.created':
        this.readStart(this.readResponse(payload));
        return this.keepUnmapped(payload, MAPPED_LIFECYCLE);
      case 'response.output_text.delta': {
        const text = this.readDelta(payload);
        if (text !== '') this.emit({ type: 'content', choice: 0, text });
        return this.keepUnmapped(payload, MAPPED_EVENT, CHOICE);
      }
      case 'response.output_audio_transcript.delta':
      case 'response.output_audio.delta': {
        const text = this.readDelta(payload);
        const id = nonEmptyString(payload['item_id']);
        const piece = type === 'response.output_audio.delta' ? { data: text } : { transcript: text };
        if (text !== '') this.emit({ type: 'audio', choice: 0, ...(id === undefined ? {} : { id }), ...piece });
        return this.keepUnmapped(payload, MAPPED_EVENT, CHOICE);
      }
      case 'response.output_item.added':
        return this.readItem(payload, false);
      case 'response.output_item.done':
        return this.readItem(payload, true);
      case 'response.function_call_arguments.delta':
        return this.readArgumentsDelta(payload);
      case 'response.function_call_arguments.done':
        return this.readArgumentsDone(payload);
      case 'response.done':
        return this.readResponseDone(payload);
      default:
        if (PART_EVENTS.has(type)) return;
        this.unknown(payload, frame);
    }
  }

  private readResponse(payload: JsonObject): JsonObject {
    const response = payload['response'];
    if (!isJsonObject(response)) throw this.protocolError(`${String(payload['type'])}: response is ${describeValue(response)}`);
    this.keepUnmapped(response, MAPPED_RESPONSE);
    return response;
  }

  private readStart(response: JsonObject): void {
    if (this.responseId !== undefined) return;
    const id = nonEmptyString(response['id']);
    if (id === undefined) return;
    this.responseId = id;
    this.emit({ type: 'start', id, model: null });
  }

  private readDelta(payload: JsonObject): string {
    const delta = payload['delta'];
    if (typeof delta !== 'string') throw this.protocolError(`${String(payload['type'])}: delta is ${describeValue(delta)}, not text`);
    return delta;
  }

  /** An output item: a `function_call` opens (or, done, closes) its call; another kind but a message is kept whole when done. */
  private readItem(payload: JsonObject, done: boolean): void {
    const item = payload['item'];
    if (!isJsonObject(item)) throw this.protocolError(`${String(payload['type'])}: item is ${describeValue(item)}`);
    this.keepUnmapped(payload, MAPPED_ITEM_EVENT, CHOICE);
    const kind = item['type'];
    if (kind === 'function_call') {
      const call = this.callOf(payload, item);
      this.keepUnmapped(item, MAPPED_CALL_ITEM, { choice: 0, call: call.index });
      if (!done) return;
      const text = call.argumentsArrived ? undefined : this.argumentsOf(item['arguments'], 'item.arguments');
      if (text !== undefined && text !== '') {
        call.argumentsArrived = true;
        this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: text });
      }
      call.closed = true;
      // An incomplete call (the reply was cut) stays open: a `length` finish keeps it apart, never to be run.
      if (item['status'] !== 'incomplete') this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
      return;
    }
    if (done && kind !== 'message') this.keepItem(item, CHOICE);
  }

  /** The call of a `function_call` item (by its `id`, else its `call_id`), opened at its first sight. */
  private callOf(payload: JsonObject, item: JsonObject): RealtimeCall {
    const key = nonEmptyString(item['id']) ?? nonEmptyString(item['call_id']);
    if (key === undefined)
      throw this.protocolError(`${String(payload['type'])}: a function_call item with no id or call_id`, 'invalid-tool-call');
    const known = this.calls.get(key);
    if (known !== undefined) {
      if (known.closed) throw this.protocolError(`${String(payload['type'])}: function call ${key} had ended`, 'invalid-tool-call');
      return known;
    }
    return this.openCall(key, nonEmptyString(item['call_id']), item['name'], `${String(payload['type'])}`);
  }

  private openCall(key: string, callId: string | undefined, rawName: unknown, where: string): RealtimeCall {
    const name = nonEmptyString(rawName);
    if (name === undefined) throw this.protocolError(`${where}: function call ${key} has no name`, 'invalid-tool-call');
    const call: RealtimeCall = { index: this.newCall(0), argumentsArrived: false, closed: false };
    this.calls.set(key, call);
    this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, id: callId ?? key, name, arguments: '' });
    return call;
  }

  private readArgumentsDelta(payload: JsonObject): void {
    const call = this.argumentsCall(payload, 'response.function_call_arguments.delta');
    const text = this.readDelta(payload);
    if (text !== '') {
      call.argumentsArrived = true;
      this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: text });
    }
    this.keepUnmapped(payload, MAPPED_CALL_EVENT, { choice: 0, call: call.index });
  }

  /** `response.function_call_arguments.done` repeats the whole text: read only when no delta came. */
  private readArgumentsDone(payload: JsonObject): void {
    const call = this.argumentsCall(payload, 'response.function_call_arguments.done');
    const text = call.argumentsArrived ? undefined : this.argumentsOf(payload['arguments'], 'arguments');
    if (text !== undefined && text !== '') {
      call.argumentsArrived = true;
      this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: text });
    }
    this.keepUnmapped(payload, MAPPED_CALL_EVENT, { choice: 0, call: call.index });
  }

  /** The call an argument event belongs to, by its `item_id`; a `.done` of a call never announced opens it (it names the function). */
  private argumentsCall(payload: JsonObject, where: string): RealtimeCall {
    const key = nonEmptyString(payload['item_id']) ?? nonEmptyString(payload['call_id']);
    const call = key === undefined ? undefined : this.calls.get(key);
    if (call !== undefined && !call.closed) return call;
    if (call === undefined && key !== undefined && where.endsWith('.done')) {
      return this.openCall(key, nonEmptyString(payload['call_id']), payload['name'], where);
    }
    throw this.protocolError(
      `${where} for ${key ?? 'no item'}, ${call === undefined ? 'which no item announced' : 'which had ended'}`,
      'invalid-tool-call',
    );
  }

  private argumentsOf(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.protocolError(`${where} is ${describeValue(value)}, not text`, 'invalid-tool-call');
    return value;
  }

  /** `response.done`: the finish its status says, its usage, the end. */
  private readResponseDone(payload: JsonObject): void {
    const response = this.readResponse(payload);
    this.readStart(response);
    this.keepUnmapped(payload, MAPPED_LIFECYCLE);
    const status = response['status'];
    const details = isJsonObject(response['status_details']) ? response['status_details'] : undefined;
    const reason = nonEmptyString(details?.['reason']);
    switch (status) {
      case 'completed':
        this.finish(0, 'completed');
        break;
      case 'incomplete':
        this.finish(0, reason ?? 'incomplete');
        break;
      case 'cancelled':
        throw new StreamClosedEarlyError(
          `frame ${this.frameCount}: the response was cancelled (${reason ?? 'no reason given'}) before it was whole`,
          {
            reason: 'unfinished',
            position: { event: this.frameCount },
          },
        );
      case 'failed':
        throw this.providerError(isJsonObject(details?.['error']) ? { error: details['error'] } : response);
      default:
        throw this.protocolError(`response.done: status is ${describeValue(status)}`);
    }
    const usage = isJsonObject(response['usage']) ? readRealtimeUsage(response['usage']) : undefined;
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    this.endStream();
  }
}

/**
 * The `openai-realtime` dialect: one reply of an OpenAI Realtime session, for `assembleChunks`. `auto`
 * chooses it for a Realtime server event (an `event_id` beside a Realtime `type`), which no other
 * format sends; it is asked before `openai-responses`, whose event names it shares.
 *
 * @example
 * ```ts
 * import { assembleChunks, openaiRealtime } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks({ dialect: openaiRealtime }));
 * ```
 */
export const openaiRealtime = defineDialect({
  name: 'openai-realtime',
  create: (emit, options) => new OpenAiRealtimeParser(emit, options),
  isFinal: finalByType(FINAL_EVENTS),
  recognizes: (payload) => {
    const type = payload['type'];
    return (
      typeof type === 'string' && typeof payload['event_id'] === 'string' && REALTIME_PREFIXES.some((prefix) => type.startsWith(prefix))
    );
  },
});
