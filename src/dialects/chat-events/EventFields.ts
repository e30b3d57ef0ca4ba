import { ProtocolError } from '../../errors/errors.js';
import type {
  ChatEvent,
  CustomToolCall,
  FunctionToolCall,
  IncompleteToolCall,
  OpaqueItem,
  ProviderToolCall,
  ToolRequest,
} from '../../types/events.js';
import { JsonObject, isJsonObject } from '../../internal/json.js';
import { describeValue, isIndex } from '../base/payloadValues.js';

/** Every field of `T`, each named once: a field added to the type and missing here does not compile. */
type EveryField<T> = { readonly [K in keyof T]-?: true };

/**
 * The fields of each event as this version's types declare them, which `toMessageEvents` writes: the
 * reader reads them, or knows them to carry nothing a client needs again. `tool-call-delta`'s `call`
 * is the progress `groupToolCallsByIndex` adds on the server (a client's own makes it again from the
 * fragments); `tool-call`'s `call.providerMetadata` is read with the call. Any other field is a newer
 * version's, kept as `providerMetadata['chat-events']` of the place the event names.
 */
const EVENT_FIELDS: { readonly [T in ChatEvent['type']]: EveryField<Extract<ChatEvent, { readonly type: T }>> } = {
  start: { type: true, id: true, model: true },
  progress: { type: true, progress: true },
  reasoning: { type: true, choice: true, text: true, reasoningTokens: true },
  'reasoning-signature': { type: true, choice: true, signature: true },
  content: { type: true, choice: true, text: true },
  refusal: { type: true, choice: true, text: true },
  retract: { type: true, choice: true, content: true, reasoning: true },
  'tool-call-delta': {
    type: true,
    choice: true,
    index: true,
    id: true,
    name: true,
    arguments: true,
    kind: true,
    namespace: true,
    call: true,
  },
  'tool-call-end': { type: true, choice: true, index: true },
  'tool-call': { type: true, choice: true, call: true },
  'tool-call-incomplete': { type: true, choice: true, call: true },
  logprobs: { type: true, choice: true, content: true, refusal: true },
  source: { type: true, choice: true, source: true },
  audio: { type: true, choice: true, id: true, data: true, transcript: true, expiresAt: true },
  'image-preview': { type: true, choice: true, id: true, index: true, data: true, format: true },
  'provider-tool-call': { type: true, choice: true, call: true, at: true },
  'provider-tool-result': { type: true, choice: true, id: true, result: true },
  'tool-request': { type: true, choice: true, request: true },
  'opaque-item': { type: true, choice: true, item: true, at: true },
  'provider-metadata': { type: true, provider: true, choice: true, call: true, fields: true, items: true, capped: true },
  unknown: { type: true, event: true, payload: true },
  finish: { type: true, choice: true, reason: true, raw: true },
  'finish-details': { type: true, choice: true, details: true },
  usage: { type: true, usage: true },
  timings: { type: true, timings: true },
  'reply-timings': { type: true, timings: true },
  done: { type: true },
};

/** The fields of each event, as sets (see `EVENT_FIELDS`). */
export const MAPPED_EVENT: { readonly [T in ChatEvent['type']]: ReadonlySet<string> } = setsOf(EVENT_FIELDS);

function setsOf<K extends string>(lists: { readonly [T in K]: object }): { readonly [T in K]: ReadonlySet<string> } {
  const sets = {} as { [T in K]: ReadonlySet<string> };
  for (const key of Object.keys(lists) as K[]) sets[key] = new Set(Object.keys(lists[key]));
  return sets;
}

const TOOL_CALL_FIELDS: EveryField<FunctionToolCall> & EveryField<CustomToolCall> = {
  kind: true,
  index: true,
  id: true,
  name: true,
  arguments: true,
  args: true,
  namespace: true,
  providerMetadata: true,
};
const INCOMPLETE_CALL_FIELDS: EveryField<IncompleteToolCall> = { kind: true, index: true, id: true, name: true, arguments: true };
const PROVIDER_TOOL_CALL_FIELDS: EveryField<Omit<ProviderToolCall, 'at'>> = { id: true, name: true, type: true, input: true, result: true };
const TOOL_REQUEST_FIELDS: EveryField<ToolRequest> = { id: true, type: true, kind: true, name: true, input: true };
const OPAQUE_ITEM_FIELDS: EveryField<Omit<OpaqueItem, 'at'>> = {
  provider: true,
  kind: true,
  type: true,
  part: true,
  call: true,
  block: true,
  span: true,
  data: true,
};

/**
 * The fields of the `call` of `tool-call`, `tool-call-incomplete` and `provider-tool-call`, and of the
 * `request` of `tool-request`, and of the `item` of `opaque-item`: any other is kept as `providerMetadata['chat-events']` of that call (of
 * the choice, for a call the provider ran and for a request).
 * Inside the other objects an event carries (`usage`, `progress`, `timings`, a `source`), nothing is
 * kept apart: they are read whole.
 */
export const MAPPED_TOOL_CALL: ReadonlySet<string> = new Set(Object.keys(TOOL_CALL_FIELDS));
export const MAPPED_INCOMPLETE_CALL: ReadonlySet<string> = new Set(Object.keys(INCOMPLETE_CALL_FIELDS));
export const MAPPED_PROVIDER_TOOL_CALL: ReadonlySet<string> = new Set(Object.keys(PROVIDER_TOOL_CALL_FIELDS));
export const MAPPED_TOOL_REQUEST: ReadonlySet<string> = new Set(Object.keys(TOOL_REQUEST_FIELDS));
export const MAPPED_OPAQUE_ITEM: ReadonlySet<string> = new Set(Object.keys(OPAQUE_ITEM_FIELDS));

/**
 * Reads the fields of one of this library's own events as `toMessageEvents` wrote them, each of the
 * type it must have; a field of another type is a `ProtocolError` naming its path (`call.id`).
 */
export class EventFields {
  constructor(
    /** The error for a field of the wrong type, with `what` said of it. */
    readonly fail: (what: string) => ProtocolError,
  ) {}

  field(payload: JsonObject, path: string): unknown {
    return payload[path.slice(path.lastIndexOf('.') + 1)];
  }

  textField(payload: JsonObject, path: string): string {
    const value = this.field(payload, path);
    if (typeof value !== 'string') throw this.fail(`${path} is ${describeValue(value)}, not text`);
    return value;
  }

  textOrNullField(payload: JsonObject, path: string): string | null {
    return this.field(payload, path) === null ? null : this.textField(payload, path);
  }

  numberField(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.fail(`${path} is ${describeValue(value)}, not a number`);
    return value;
  }

  countField(payload: JsonObject, path: string): number | null {
    return this.field(payload, path) === null ? null : this.numberField(payload, path);
  }

  indexField(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (!isIndex(value)) throw this.fail(`${path} is ${describeValue(value)}, not an index`);
    return value;
  }

  objectField(payload: JsonObject, path: string): JsonObject {
    const value = this.field(payload, path);
    if (!isJsonObject(value)) throw this.fail(`${path} is ${describeValue(value)}, not an object`);
    return value;
  }

  /** An optional field: absent stays absent, present is read by `read`. */
  optional<K extends string, V>(payload: JsonObject, path: K, read: (payload: JsonObject, path: string) => V): { [P in K]?: V } {
    return (this.field(payload, path) === undefined ? {} : { [path.slice(path.lastIndexOf('.') + 1)]: read.call(this, payload, path) }) as {
      [P in K]?: V;
    };
  }
}
