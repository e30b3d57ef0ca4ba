import { SseFrame } from '../core/SseParser.js';
import { LlmStreamError } from '../errors.js';
import { Usage } from '../events.js';
import { JsonObject, excerpt, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory, dialectFactory } from './Dialect.js';
import { finalByType } from './finalFrames.js';
import { JsonDialectParser } from './JsonDialectParser.js';
import { describeValue, hasError, isIndex } from './payloadValues.js';
import { CallItems, CallState } from './responsesCallItems.js';
import { readResponsesUsage } from './usage.js';

/** The events that end a Responses stream. */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The output item types that are tool calls the client runs (built-in tool calls run on the server). */
const CALL_ITEM_TYPES = new Set(['function_call', 'custom_tool_call']);

/**
 * The OpenAI Responses API stream (`POST /v1/responses`, `stream: true`) and the servers that copy it
 * (vLLM, llama.cpp, LM Studio): named events whose `data.type` repeats the event name, ending with
 * `response.completed`, `response.incomplete` or `response.failed` and no `[DONE]`.
 *
 * Dispatch is on `data.type`, so a proxy that drops the `event:` lines loses nothing. Text comes from
 * `response.output_text.delta` (content), `response.refusal.delta` (refusal),
 * `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` (reasoning). A new
 * reasoning part (another summary part, another reasoning item) that follows earlier reasoning text
 * is joined to it with `"\n\n"`, so summary sections stay separate paragraphs. Each
 * `function_call` or `custom_tool_call` item is one tool call: dense indices in order of
 * `response.output_item.added`, the item's `call_id` as the call id (the id the next request sends
 * back), fragments matched by `item_id` (else `output_index`), never by "the current item", so
 * interleaved items assemble. `response.output_item.done` closes a call (`tool-call-end`) and yields a
 * reasoning item's `encrypted_content` as a `reasoning-signature`.
 *
 * The finish reason is derived from the terminal event: `response.completed` gives raw `completed`
 * (`tool_calls` when the reply made calls, else `stop`); `response.incomplete` gives raw
 * `incomplete_details.reason` (`max_output_tokens` is `length`, `content_filter` stays); then the
 * terminal's `response.usage`, then `done`. `response.failed` and `error` events (flat and nested) are
 * a `ProviderError`. Events after the terminal one are ignored.
 *
 * Events of one frame come in this order: `start` (once, from the first `response` object with an
 * id), then the frame's own events; at the terminal event `finish`, `usage`, `done`.
 *
 * Quirks absorbed (they lose nothing): no `event:` lines, `keepalive` events, missing
 * `sequence_number`s, calls whose arguments come only in `response.function_call_arguments.done` or
 * in the finished item, a call whose `output_item.added` never came (opened by its `.done`). `strict`
 * requires `data.type` and `sequence_number`s that count up by one from 0.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, openaiResponses } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: openaiResponses }));
 * ```
 */
export class OpenAiResponsesParser extends JsonDialectParser {
  protected readonly endSignal = 'response.completed, response.incomplete or response.failed';
  // The terminal event is the last word on this reply: the connection should close after it.
  protected override readonly afterEnd = 'ignore';
  private started = false;
  private lastSequence: number | undefined = undefined;
  private readonly callItems = new CallItems();
  /** Which reasoning part the latest reasoning text belonged to (to separate parts). */
  private reasoningPart: string | undefined = undefined;

  /**
   * Both error shapes, the SDK's flat `{type:"error", code, message}` and the nested `{type:"error",
   * error:{...}}` seen in recordings, and a gateway's bare `{"error": ...}` (a typed event's own
   * `error` field, as in `response.failed`, is read with its event).
   */
  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    const type = payload['type'];
    return frame.event === 'error' || type === 'error' || (type === undefined && hasError(payload))
      ? this.providerError(payload)
      : undefined;
  }

  protected override checkEnded(): void {
    if (!this.started) throw this.protocolError('no event carried a response id');
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const rawType = payload['type'];
    if (rawType !== undefined && typeof rawType !== 'string') throw this.protocolError(`type is ${describeValue(rawType)}`);
    if (this.strict) this.checkStrict(rawType, payload['sequence_number']);
    // Servers that omit the type still name the event; a proxy that drops event: lines keeps the type.
    const type = rawType ?? (frame.event === 'message' ? undefined : frame.event);

    const response = payload['response'];
    if (response !== undefined && response !== null && !isJsonObject(response)) {
      throw this.protocolError('response is not an object');
    }
    if (isJsonObject(response)) this.readStart(response);

    switch (type) {
      case 'response.output_item.added':
        this.openItem(this.readItem(payload), payload);
        return;
      case 'response.output_item.done':
        this.closeItem(this.readItem(payload), payload);
        return;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        this.readArgumentsDelta(payload, type);
        return;
      case 'response.function_call_arguments.done':
        this.readArgumentsDone(payload, type, 'arguments');
        return;
      case 'response.custom_tool_call_input.done':
        this.readArgumentsDone(payload, type, 'input');
        return;
      case 'response.output_text.delta': {
        const text = this.readDelta(payload);
        if (text) this.emit({ type: 'content', choice: 0, text });
        return;
      }
      case 'response.refusal.delta': {
        const text = this.readDelta(payload);
        if (text) this.emit({ type: 'refusal', choice: 0, text });
        return;
      }
      case 'response.reasoning_summary_text.delta':
        this.readReasoning(payload, 'summary', payload['summary_index']);
        return;
      case 'response.reasoning_text.delta':
        this.readReasoning(payload, 'text', payload['content_index']);
        return;
      case 'response.completed':
        this.terminate('completed', response);
        return;
      case 'response.incomplete':
        this.terminate(this.incompleteReason(response), response);
        return;
      case 'response.failed':
        // `response.error` holds {code, message}; without a response, the payload is all there is.
        throw this.providerError(isJsonObject(response) ? response : payload);
      default:
        // keepalive, response.in_progress / queued, content_part.*, the *.done text events (their full
        // text repeats the deltas), annotations, built-in tool progress, and types yet to come.
        return;
    }
  }

  private checkStrict(type: string | undefined, sequence: unknown): void {
    if (type === undefined) throw this.protocolError('the event has no type', 'strict');
    if (!isIndex(sequence)) throw this.protocolError(`sequence_number is ${describeValue(sequence)}`, 'strict');
    const expected = this.lastSequence === undefined ? 0 : this.lastSequence + 1;
    if (sequence !== expected) throw this.protocolError(`sequence_number is ${sequence}, expected ${expected}`, 'strict');
    this.lastSequence = sequence;
  }

  private readStart(response: JsonObject): void {
    if (this.started) return;
    const id = nonEmptyString(response['id']);
    if (id === undefined) return;
    this.started = true;
    this.emit({ type: 'start', id, model: nonEmptyString(response['model']) ?? null });
  }

  private readItem(payload: JsonObject): JsonObject {
    const item = payload['item'];
    if (!isJsonObject(item)) throw this.protocolError('item is not an object');
    return item;
  }

  /** `response.output_item.added`: a function or custom tool call item opens a call. */
  private openItem(item: JsonObject, payload: JsonObject): CallState | undefined {
    const kind = item['type'];
    if (typeof kind !== 'string' || !CALL_ITEM_TYPES.has(kind)) return undefined;
    const itemId = this.optionalString(item['id'], 'item.id');
    const outputIndex = this.optionalIndex(payload['output_index'], 'output_index');
    if (itemId === undefined && outputIndex === undefined) {
      throw this.protocolError(`a ${kind} item has neither an id nor an output_index to match its fragments by`, 'invalid-tool-call');
    }
    if (itemId !== undefined && this.callItems.hasItem(itemId)) {
      throw this.protocolError(`item ${excerpt(itemId)} was added twice`, 'invalid-tool-call');
    }
    const call = this.callItems.add(this.newCall(0), itemId, outputIndex);

    const id = this.optionalString(item['call_id'], 'item.call_id');
    const name = this.optionalString(item['name'], 'item.name');
    const field = kind === 'function_call' ? 'arguments' : 'input';
    const text = this.readArgumentText(item[field], `item.${field}`) ?? '';
    call.hasId = id !== undefined;
    call.hasName = name !== undefined;
    // OpenAI sends "" here; a server that sends the whole call at once has its arguments here.
    call.argumentsArrived = text !== '';
    this.emitDelta(call, id, name, text);
    return call;
  }

  /** `response.output_item.done`: closes a call; a reasoning item yields its encrypted content. */
  private closeItem(item: JsonObject, payload: JsonObject): void {
    const kind = item['type'];
    if (kind === 'reasoning') {
      // Only the finished item's encrypted_content is whole (the added item's "may be incomplete").
      const encrypted = this.optionalString(item['encrypted_content'], 'item.encrypted_content');
      if (encrypted !== undefined) this.emit({ type: 'reasoning-signature', choice: 0, signature: encrypted });
      return;
    }
    if (typeof kind !== 'string' || !CALL_ITEM_TYPES.has(kind)) return;
    const itemId = this.optionalString(item['id'], 'item.id');
    const outputIndex = this.optionalIndex(payload['output_index'], 'output_index');
    // A finished call whose added event never came is whole: open it from this item.
    const call = this.callItems.find(itemId, outputIndex) ?? this.openItem(item, payload)!;
    // A repeated done for a closed call adds nothing.
    if (call.closed) return;

    // Whatever the stream has not yet said about the call, the finished item says.
    const id = call.hasId ? undefined : this.optionalString(item['call_id'], 'item.call_id');
    const name = call.hasName ? undefined : this.optionalString(item['name'], 'item.name');
    const field = kind === 'function_call' ? 'arguments' : 'input';
    const text = call.argumentsArrived ? '' : (this.readArgumentText(item[field], `item.${field}`) ?? '');
    if (id !== undefined || name !== undefined || text !== '') this.emitDelta(call, id, name, text);
    call.closed = true;
    this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
  }

  private readArgumentsDelta(payload: JsonObject, type: string): void {
    const call = this.findCall(payload, type);
    const text = this.readDelta(payload);
    if (text === '') return;
    call.argumentsArrived = true;
    this.emitDelta(call, undefined, undefined, text);
  }

  /**
   * `response.function_call_arguments.done` repeats the whole text: it is the call's arguments only
   * when no delta came (appending it after deltas would double them).
   */
  private readArgumentsDone(payload: JsonObject, type: string, field: 'arguments' | 'input'): void {
    const call = this.findCall(payload, type);
    const name = call.hasName ? undefined : this.optionalString(payload['name'], 'name');
    const text = call.argumentsArrived ? '' : (this.readArgumentText(payload[field], field) ?? '');
    if (text !== '') call.argumentsArrived = true;
    if (name !== undefined || text !== '') this.emitDelta(call, undefined, name, text);
  }

  /** The call a fragment belongs to, by `item_id`, else by `output_index`. */
  private findCall(payload: JsonObject, type: string): CallState {
    const itemId = this.optionalString(payload['item_id'], 'item_id');
    const outputIndex = this.optionalIndex(payload['output_index'], 'output_index');
    if (itemId === undefined && outputIndex === undefined) {
      throw this.protocolError(`${type} has neither an item_id nor an output_index`, 'invalid-tool-call');
    }
    const call = this.callItems.find(itemId, outputIndex);
    const which = itemId !== undefined ? `item ${excerpt(itemId)}` : `output_index ${outputIndex}`;
    if (call === undefined) throw this.protocolError(`${type} for ${which}, which is no open tool call`, 'invalid-tool-call');
    if (call.closed) throw this.protocolError(`${type} for ${which} after its response.output_item.done`, 'invalid-tool-call');
    return call;
  }

  private emitDelta(call: CallState, id: string | undefined, name: string | undefined, text: string): void {
    if (id !== undefined) call.hasId = true;
    if (name !== undefined) call.hasName = true;
    // `id` and `name` appear only on the fragment that carries them: absent, not undefined-valued.
    this.emit({
      type: 'tool-call-delta',
      choice: 0,
      index: call.index,
      ...(id === undefined ? {} : { id }),
      ...(name === undefined ? {} : { name }),
      arguments: text,
    });
  }

  private readReasoning(payload: JsonObject, kind: 'summary' | 'text', partIndex: unknown): void {
    const delta = this.readDelta(payload);
    if (delta === '') return;
    const item = typeof payload['item_id'] === 'string' ? payload['item_id'] : String(payload['output_index']);
    // Constant size per delta: the key names the part, not the text.
    const part = `${kind}\n${item}\n${String(partIndex)}`;
    const text = this.reasoningPart !== undefined && this.reasoningPart !== part ? `\n\n${delta}` : delta;
    this.reasoningPart = part;
    this.emit({ type: 'reasoning', choice: 0, text });
  }

  private readDelta(payload: JsonObject): string {
    const delta = payload['delta'];
    if (typeof delta !== 'string') throw this.protocolError(`delta is ${describeValue(delta)}, not text`);
    return delta;
  }

  private incompleteReason(response: JsonObject | null | undefined): string {
    const details = response?.['incomplete_details'];
    if (details === undefined || details === null) return 'incomplete';
    if (!isJsonObject(details)) throw this.protocolError('response.incomplete_details is not an object');
    return this.optionalString(details['reason'], 'response.incomplete_details.reason') ?? 'incomplete';
  }

  /** The terminal event: the finish, the response's usage, the end. */
  private terminate(raw: string, response: JsonObject | null | undefined): void {
    const rawUsage = response?.['usage'];
    let usage: Usage | undefined;
    if (isJsonObject(rawUsage)) usage = readResponsesUsage(rawUsage);
    else if (rawUsage !== undefined && rawUsage !== null) throw this.protocolError('response.usage is not an object');
    this.finish(0, raw);
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    this.endStream();
  }

  /** Argument text as sent; an object is serialized, never concatenated. */
  private readArgumentText(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'object') return this.serialize(value, where);
    throw this.protocolError(`${where} is ${describeValue(value)}, not text`);
  }
}

/**
 * The `openai-responses` dialect: the OpenAI Responses API stream, for `assembleChunks`.
 *
 * @example
 * ```ts
 * import { assembleChunks, openaiResponses } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks({ dialect: openaiResponses }));
 * ```
 */
export const openaiResponses: DialectFactory = dialectFactory(
  (emit, options) => new OpenAiResponsesParser(emit, options),
  finalByType(TERMINAL_EVENTS),
);
