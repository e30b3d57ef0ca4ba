import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject, copyJson, excerpt, isJsonObject } from '../../internal/json.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue, isIndex } from '../base/payloadValues.js';
import { CallItems, CallState } from './responsesCallItems.js';
import { PROVIDER_TOOL_ITEMS, providerToolItem, providerToolMapped } from './responsesProviderTools.js';
import { TOOL_REQUEST_ITEMS, requestOf } from './responsesToolRequests.js';
import {
  CHOICE,
  MAPPED_CALL_EVENT,
  MAPPED_CALL_ITEM,
  MAPPED_ITEM_EVENT,
  MAPPED_MESSAGE_ITEM,
  MAPPED_REASONING_ITEM,
} from './responsesFields.js';

/** The output items that are tool calls the program runs, each with the field that holds its text. */
const CALL_TEXT_FIELDS: ReadonlyMap<string, 'arguments' | 'input'> = new Map([
  ['function_call', 'arguments'],
  ['custom_tool_call', 'input'],
]);

/**
 * The output items of a Responses stream (`response.output_item.added` / `.done` and the fragments
 * of tool calls), for `OpenAiResponsesParser`, which reads the rest of the stream.
 *
 * - `function_call` and `custom_tool_call`: one tool call each, in dense indices in order of
 *   arrival, the item's `call_id` as the call id, its `namespace` on the call, fragments matched by `item_id` (else
 *   `output_index`), so interleaved items assemble. A custom call's fragments say `kind: 'custom'`:
 *   its input is free-form text, never parsed. The finished item closes the call (`tool-call-end`),
 *   unless it finished `incomplete` (the token limit cut it: a `length` finish keeps it apart).
 * - `reasoning`: the finished item's `encrypted_content` is a `reasoning-signature`, and the item
 *   whole an `opaque-item` (`encrypted-reasoning`), as are `compaction` and `program` items (a
 *   program's `fingerprint` must be round-tripped), which are also kept as items of unknown kind.
 * - the tools the provider runs (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `image_generation_call`, `mcp_call`): the finished item is a `provider-tool-call` and, when it
 *   holds one, a `provider-tool-result` (see `providerToolItem`).
 * - the items that wait for the program and are not function calls (`mcp_approval_request`,
 *   `apply_patch_call`, `shell_call` and `local_shell_call`, `computer_call`, a `tool_search_call`
 *   with `execution: "client"`): the finished item is a `tool-request` (see `requestOf`), never a
 *   tool call, so the finish stays `stop` when they are all the reply asks for.
 * - `message`: its text streams in its own events.
 * - any other item (a hosted `shell_call`, a server's `tool_search_call`, a type yet to come): the
 *   finished item is kept whole in `providerMetadata.openai.items` (and counts as output), and both events
 *   are passed on as `unknown` with `unknownEvents`.
 *
 * What a call item and its fragments carry beside what is read is kept on the call; what any other
 * item carries (and its events), on the choice.
 */
export abstract class ResponsesItemsParser extends JsonDialectParser {
  private readonly callItems = new CallItems();

  /** `response.output_item.added`: a tool call item opens its call; other items wait for their end. */
  protected openItem(payload: JsonObject, frame: SseFrame): void {
    const item = this.readItem(payload);
    const kind = item['type'];
    const field = typeof kind === 'string' ? CALL_TEXT_FIELDS.get(kind) : undefined;
    if (field !== undefined) {
      const call = this.openCall(item, payload, kind as string, field);
      return this.keepCallItem(payload, item, call);
    }
    this.keepOtherItem(payload, item, kind);
    if (!this.isReadItem(kind)) this.unknown(payload, frame);
  }

  /** `response.output_item.done`: the finished item, whole. */
  protected closeItem(payload: JsonObject, frame: SseFrame): void {
    const item = this.readItem(payload);
    const kind = item['type'];
    const field = typeof kind === 'string' ? CALL_TEXT_FIELDS.get(kind) : undefined;
    if (field !== undefined) return this.closeCall(item, payload, kind as string, field);
    this.keepOtherItem(payload, item, kind);
    if (kind === 'reasoning') {
      // Only the finished item's encrypted_content is whole (the added item's "may be incomplete").
      const encrypted = this.optionalString(item['encrypted_content'], 'item.encrypted_content');
      if (encrypted !== undefined) {
        this.emit({ type: 'reasoning-signature', choice: 0, signature: encrypted });
        // The item whole (its id and summary with the encrypted content): what goes back when nothing is stored.
        this.emitOpaque(payload, item, 'encrypted-reasoning', 'reasoning', 'reasoning');
      }
      return;
    }
    const request = requestOf(item);
    if (request !== undefined) this.emit({ type: 'tool-request', choice: 0, request });
    else if (typeof kind === 'string' && PROVIDER_TOOL_ITEMS.has(kind)) this.readProviderTool(item, payload, frame);
    else if (kind !== 'message') {
      // A compaction item and a program (with its replay fingerprint) go back on the next turn as they came.
      if (kind === 'compaction' || kind === 'program') this.emitOpaque(payload, item, kind, kind, 'turn');
      // An item of a kind this dialect does not read: part of the reply all the same, kept whole.
      this.keepItem(item, CHOICE);
      this.unknown(payload, frame);
    }
  }

  protected readArgumentsDelta(payload: JsonObject, type: string): void {
    const call = this.findCall(payload, type);
    const text = this.readDelta(payload);
    if (text === '') return this.keepUnmapped(payload, MAPPED_CALL_EVENT, call.place);
    call.argumentsArrived = true;
    this.emitDelta(call, undefined, undefined, text);
    this.keepUnmapped(payload, MAPPED_CALL_EVENT, call.place);
  }

  /**
   * `response.function_call_arguments.done` (and `custom_tool_call_input.done`) repeats the whole
   * text: it is the call's text only when no delta came (appending it after deltas would double it).
   */
  protected readArgumentsDone(payload: JsonObject, type: string, field: 'arguments' | 'input'): void {
    const call = this.findCall(payload, type);
    const name = call.hasName ? undefined : this.optionalString(payload['name'], 'name');
    const text = call.argumentsArrived ? '' : (this.readArgumentText(payload[field], field) ?? '');
    if (text !== '') call.argumentsArrived = true;
    if (name !== undefined || text !== '') this.emitDelta(call, undefined, name, text);
    this.keepUnmapped(payload, MAPPED_CALL_EVENT, call.place);
  }

  /** A text delta: a string, else a `ProtocolError`. */
  protected readDelta(payload: JsonObject): string {
    const delta = payload['delta'];
    if (typeof delta !== 'string') throw this.protocolError(`delta is ${describeValue(delta)}, not text`);
    return delta;
  }

  /** An output item as an opaque item of the turn, whole, at its `output_index`. */
  private emitOpaque(
    payload: JsonObject,
    item: JsonObject,
    kind: 'encrypted-reasoning' | 'compaction' | 'program',
    type: string,
    part: 'reasoning' | 'turn',
  ): void {
    const block = payload['output_index'];
    const where = isIndex(block) ? { block } : {};
    this.emit({ type: 'opaque-item', choice: 0, item: { provider: 'openai', kind, type, part, ...where, data: copyJson(item) } });
  }

  /** Items whose `.added` event says nothing: a message streams in its own events, the others are read when done. */
  private isReadItem(kind: unknown): boolean {
    return (
      kind === 'message' ||
      kind === 'reasoning' ||
      (typeof kind === 'string' && (PROVIDER_TOOL_ITEMS.has(kind) || TOOL_REQUEST_ITEMS.has(kind)))
    );
  }

  /** Keeps what a call's item event and item carry beside what is read, on the call. */
  private keepCallItem(payload: JsonObject, item: JsonObject, call: CallState): void {
    this.keepUnmapped(payload, MAPPED_ITEM_EVENT, call.place);
    this.keepUnmapped(item, MAPPED_CALL_ITEM, call.place);
  }

  /**
   * Keeps what the event of an item that is not a call carries beside what is read, and what the item
   * does when its kind is read (a message, reasoning, a built-in tool's item read field by field), on
   * the choice. An item of a kind not read is kept whole when done.
   */
  private keepOtherItem(payload: JsonObject, item: JsonObject, kind: unknown): void {
    this.keepUnmapped(payload, MAPPED_ITEM_EVENT, CHOICE);
    const mapped =
      kind === 'message'
        ? MAPPED_MESSAGE_ITEM
        : kind === 'reasoning'
          ? MAPPED_REASONING_ITEM
          : typeof kind === 'string'
            ? providerToolMapped(kind)
            : undefined;
    if (mapped !== undefined) this.keepUnmapped(item, mapped, CHOICE);
  }

  private readItem(payload: JsonObject): JsonObject {
    const item = payload['item'];
    if (!isJsonObject(item)) throw this.protocolError('item is not an object');
    return item;
  }

  /**
   * What a call item's fragments name it by: its id, else its `call_id` (llama.cpp's items have no
   * id, and its fragments name the `call_id` as their `item_id`).
   */
  private callKey(item: JsonObject): string | undefined {
    return this.optionalString(item['id'], 'item.id') ?? this.optionalString(item['call_id'], 'item.call_id');
  }

  private openCall(item: JsonObject, payload: JsonObject, kind: string, field: 'arguments' | 'input'): CallState {
    const itemId = this.callKey(item);
    const outputIndex = this.optionalIndex(payload['output_index'], 'output_index');
    if (itemId === undefined && outputIndex === undefined) {
      throw this.protocolError(`a ${kind} item has no id, call_id or output_index to match its fragments by`, 'invalid-tool-call');
    }
    if (itemId !== undefined && this.callItems.hasItem(itemId)) {
      throw this.protocolError(`item ${excerpt(itemId)} was added twice`, 'invalid-tool-call');
    }
    const call = this.callItems.add(this.newCall(0), itemId, outputIndex, kind === 'custom_tool_call');

    const id = this.optionalString(item['call_id'], 'item.call_id');
    const name = this.optionalString(item['name'], 'item.name');
    const namespace = this.optionalString(item['namespace'], 'item.namespace');
    const text = this.readArgumentText(item[field], `item.${field}`) ?? '';
    call.hasId = id !== undefined;
    call.hasName = name !== undefined;
    // OpenAI sends "" here; a server that sends the whole call at once has its arguments here.
    call.argumentsArrived = text !== '';
    this.emitDelta(call, id, name, text, namespace);
    return call;
  }

  private closeCall(item: JsonObject, payload: JsonObject, kind: string, field: 'arguments' | 'input'): void {
    const outputIndex = this.optionalIndex(payload['output_index'], 'output_index');
    // A finished call whose added event never came is whole: open it from this item.
    const call = this.callItems.find(this.callKey(item), outputIndex) ?? this.openCall(item, payload, kind, field);
    // A repeated done for a closed call adds nothing (what it carries beside is kept, as from any event).
    this.keepCallItem(payload, item, call);
    if (call.closed) return;

    // Whatever the stream has not yet said about the call, the finished item says.
    const id = call.hasId ? undefined : this.optionalString(item['call_id'], 'item.call_id');
    const name = call.hasName ? undefined : this.optionalString(item['name'], 'item.name');
    const namespace = call.hasNamespace ? undefined : this.optionalString(item['namespace'], 'item.namespace');
    const text = call.argumentsArrived ? '' : (this.readArgumentText(item[field], `item.${field}`) ?? '');
    if (id !== undefined || name !== undefined || namespace !== undefined || text !== '') this.emitDelta(call, id, name, text, namespace);
    call.closed = true;
    // An item the token limit cut finishes `incomplete`: its text is not whole, so no end closes it.
    if (item['status'] !== 'incomplete') this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
  }

  /** A finished built-in tool item: the call and its result; one without an id is passed on as unknown. */
  private readProviderTool(item: JsonObject, payload: JsonObject, frame: SseFrame): void {
    const tool = providerToolItem(item);
    if (tool === undefined) return this.unknown(payload, frame);
    this.emit({ type: 'provider-tool-call', choice: 0, call: tool.call });
    if (tool.result !== undefined) this.emit({ type: 'provider-tool-result', choice: 0, id: tool.call.id, result: tool.result });
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

  private emitDelta(call: CallState, id: string | undefined, name: string | undefined, text: string, namespace?: string): void {
    if (id !== undefined) call.hasId = true;
    if (name !== undefined) call.hasName = true;
    if (namespace !== undefined) call.hasNamespace = true;
    // `id` and `name` appear only on the fragment that carries them: absent, not undefined-valued.
    this.emit({
      type: 'tool-call-delta',
      choice: 0,
      index: call.index,
      ...(id === undefined ? {} : { id }),
      ...(name === undefined ? {} : { name }),
      arguments: text,
      ...(call.custom ? { kind: 'custom' as const } : {}),
      ...(namespace === undefined ? {} : { namespace }),
    });
  }

  /** Argument text as sent; an object is serialized, never concatenated. */
  private readArgumentText(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'object') return this.serialize(value, where);
    throw this.protocolError(`${where} is ${describeValue(value)}, not text`);
  }
}
