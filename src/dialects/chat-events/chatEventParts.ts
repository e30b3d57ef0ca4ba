import {
  ChatEvent,
  IncompleteToolCall,
  JsonValue,
  OpaqueItem,
  OpaqueItemKind,
  OpaqueItemPart,
  ProviderToolCall,
  Source,
  TokenLogprob,
  ToolRequest,
} from '../../types/events.js';
import { JsonObject, copyJson, isJsonObject } from '../../internal/json.js';
import { EventFields } from './EventFields.js';

/**
 * Reads the events of this library's own stream that carry the parts of a reply beside its text
 * (`toMessageEvents` writes them as JSON): a cut call, log probabilities, a source, audio, a tool the
 * provider ran and its result, what the provider said of a finish, a call that waits for the program
 * (`tool-request`), what the next turn must send back (`opaque-item`), what the provider
 * sent that no field names, an unknown payload passed on. Undefined for another type. Values kept in
 * an event are copies: the payload's objects are reused for the next frame.
 */
export function readReplyPartEvent(type: string, payload: JsonObject, fields: EventFields): ChatEvent | undefined {
  switch (type) {
    case 'tool-call-incomplete': {
      const call = fields.objectField(payload, 'call');
      const kind = call['kind'];
      const cut: IncompleteToolCall = {
        ...(kind === 'custom' || kind === 'function' ? { kind } : {}),
        index: fields.indexField(call, 'call.index'),
        id: fields.textOrNullField(call, 'call.id'),
        name: fields.textOrNullField(call, 'call.name'),
        arguments: fields.textField(call, 'call.arguments'),
      };
      return { type, choice: fields.indexField(payload, 'choice'), call: cut };
    }
    case 'logprobs':
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        ...(payload['content'] === undefined ? {} : { content: tokens(fields, payload, 'content') }),
        ...(payload['refusal'] === undefined ? {} : { refusal: tokens(fields, payload, 'refusal') }),
      };
    case 'source': {
      const source = fields.objectField(payload, 'source');
      const kind = source['kind'];
      if (kind !== 'url' && kind !== 'document') throw fields.fail(`source.kind is ${JSON.stringify(kind)}, not url or document`);
      return { type, choice: fields.indexField(payload, 'choice'), source: copyJson(source) as unknown as Source };
    }
    case 'audio':
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        ...fields.optional(payload, 'id', fields.textField),
        ...fields.optional(payload, 'data', fields.textField),
        ...fields.optional(payload, 'transcript', fields.textField),
        ...fields.optional(payload, 'expiresAt', fields.numberField),
      };
    case 'image-preview':
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        id: fields.textField(payload, 'id'),
        index: fields.indexField(payload, 'index'),
        data: fields.textField(payload, 'data'),
        ...fields.optional(payload, 'format', fields.textField),
      };
    case 'provider-tool-call': {
      const call = fields.objectField(payload, 'call');
      const ran: Omit<ProviderToolCall, 'at'> = {
        id: fields.textField(call, 'call.id'),
        name: fields.textField(call, 'call.name'),
        type: fields.textField(call, 'call.type'),
        input: copyJson(call['input'] ?? null),
        ...(call['result'] === undefined ? {} : { result: copyJson(call['result']) }),
      };
      // Where it came, when the writer said (a relayed completion's call): else the fold here finds it.
      const at = payload['at'] === undefined ? undefined : fields.objectField(payload, 'at');
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        call: ran,
        ...(at === undefined
          ? {}
          : {
              at: {
                reasoning: fields.indexField(at, 'at.reasoning'),
                content: fields.indexField(at, 'at.content'),
                items: fields.indexField(at, 'at.items'),
                calls: fields.indexField(at, 'at.calls'),
              },
            }),
      };
    }
    case 'finish-details': {
      const details = fields.objectField(payload, 'details');
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        details: {
          ...fields.optional(details, 'stopSequence', fields.textField),
          ...fields.optional(details, 'message', fields.textField),
          ...fields.optional(details, 'category', fields.textField),
        },
      };
    }
    case 'provider-tool-result':
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        id: fields.textField(payload, 'id'),
        result: copyJson(payload['result'] ?? null),
      };
    case 'tool-request': {
      const request = fields.objectField(payload, 'request');
      const kind = request['kind'];
      if (kind !== 'approval' && kind !== 'client-tool')
        throw fields.fail(`request.kind is ${JSON.stringify(kind)}, not approval or client-tool`);
      const waiting: ToolRequest = {
        id: fields.textField(request, 'request.id'),
        type: fields.textField(request, 'request.type'),
        kind,
        name: fields.textOrNullField(request, 'request.name'),
        input: copyJson(request['input'] ?? null),
      };
      return { type, choice: fields.indexField(payload, 'choice'), request: waiting };
    }
    case 'opaque-item': {
      const item = fields.objectField(payload, 'item');
      const kind = item['kind'];
      if (typeof kind !== 'string' || !OPAQUE_KINDS.has(kind))
        throw fields.fail(`item.kind is ${JSON.stringify(kind)}, not a kind of opaque item`);
      const part = item['part'];
      if (typeof part !== 'string' || !OPAQUE_PARTS.has(part))
        throw fields.fail(`item.part is ${JSON.stringify(part)}, not a part of a turn`);
      const opaque: Omit<OpaqueItem, 'at'> = {
        provider: fields.textField(item, 'item.provider'),
        kind: kind as OpaqueItemKind,
        type: fields.textField(item, 'item.type'),
        part: part as OpaqueItemPart,
        ...fields.optional(item, 'item.call', fields.indexField),
        ...fields.optional(item, 'item.block', fields.indexField),
        ...(item['span'] === undefined ? {} : { span: readSpan(fields, fields.objectField(item, 'item.span')) }),
        data: copyJson(item['data'] ?? null),
      };
      // Where it arrived, when the writer said: else the fold on this side finds it in the same text.
      const at = payload['at'] === undefined ? undefined : fields.objectField(payload, 'at');
      return {
        type,
        choice: fields.indexField(payload, 'choice'),
        item: opaque,
        ...(at === undefined
          ? {}
          : { at: { reasoning: fields.indexField(at, 'at.reasoning'), content: fields.indexField(at, 'at.content') } }),
      };
    }
    case 'provider-metadata': {
      const fieldsValue = payload['fields'];
      const items = payload['items'];
      if (fieldsValue !== undefined && !isJsonObject(fieldsValue)) throw fields.fail('fields is not an object');
      if (items !== undefined && !Array.isArray(items)) throw fields.fail('items is not an array');
      return {
        type,
        provider: fields.textField(payload, 'provider'),
        ...(payload['choice'] === undefined ? {} : { choice: fields.indexField(payload, 'choice') }),
        ...(payload['call'] === undefined ? {} : { call: fields.indexField(payload, 'call') }),
        ...(fieldsValue === undefined ? {} : { fields: copyJson(fieldsValue) as { [key: string]: JsonValue } }),
        ...(items === undefined ? {} : { items: copyJson(items) as JsonValue[] }),
        ...(payload['capped'] === true ? { capped: true as const } : {}),
      };
    }
    case 'unknown':
      return {
        type,
        ...fields.optional(payload, 'event', fields.textField),
        payload: copyJson(payload['payload'] ?? null),
      };
    default:
      return undefined;
  }
}

/** A range of a text: two offsets. */
function readSpan(fields: EventFields, span: JsonObject): { start: number; end: number } {
  return { start: fields.indexField(span, 'item.span.start'), end: fields.indexField(span, 'item.span.end') };
}

/** The kinds of opaque item and the parts of a turn this version knows: another is a newer version's, refused. */
const OPAQUE_KINDS: ReadonlySet<string> = new Set<OpaqueItemKind>([
  'signature',
  'redacted-reasoning',
  'encrypted-reasoning',
  'reasoning-detail',
  'compaction',
  'container',
  'continuation',
  'program',
]);
const OPAQUE_PARTS: ReadonlySet<string> = new Set<OpaqueItemPart>(['reasoning', 'content', 'tool-call', 'turn']);

/** A list of token log probabilities: an array of objects with a token and a number, copied. */
function tokens(fields: EventFields, payload: JsonObject, path: string): TokenLogprob[] {
  const list = payload[path];
  if (!Array.isArray(list)) throw fields.fail(`${path} is not an array`);
  for (const [i, entry] of list.entries()) {
    const item = fields.objectField({ [`${path}[${i}]`]: entry }, `${path}[${i}]`);
    fields.textField(item, `${path}[${i}].token`);
    fields.numberField(item, `${path}[${i}].logprob`);
  }
  return copyJson(list) as unknown as TokenLogprob[];
}
