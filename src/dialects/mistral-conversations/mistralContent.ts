import type { ChatEvent } from '../../types/events.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import type { MetadataPlace } from '../base/JsonDialectParser.js';

/**
 * What the content reader needs of the parser: its events, its keeping and its text reader (which
 * refuses a field of the wrong type).
 *
 * @example
 * ```ts
 * const host: MistralContentHost = { emit: (event) => events.push(event), keepUnmapped, keepItem, text };
 * ```
 */
export interface MistralContentHost {
  emit(event: ChatEvent): void;
  keepUnmapped(object: JsonObject, mapped: ReadonlySet<string>, place: MetadataPlace): void;
  keepItem(item: unknown, place: MetadataPlace): void;
  text(value: unknown, where: string, field?: string): string | undefined;
}

/** A text chunk (`TextChunk`): its text. */
const MAPPED_TEXT: ReadonlySet<string> = new Set(['type', 'text']);
/** A thinking chunk (`ThinkChunk`): its text chunks, the signature the next turn replays, and `closed` (for prefixing only). */
const MAPPED_THINKING: ReadonlySet<string> = new Set(['type', 'thinking', 'signature', 'closed']);
/** A reference to what a built-in tool found (`ToolReferenceChunk`): a source; `tool`, `favicon` and `description` are kept. */
const MAPPED_REFERENCE: ReadonlySet<string> = new Set(['type', 'url', 'title']);

/** The choice every Conversations event belongs to: the stream has one. */
const CHOICE_0: MetadataPlace = { choice: 0 };

/**
 * The content of a `message.output.delta` (`MessageOutputEvent.content`): a string, or one chunk of
 * `OutputContentChunks`. A `text` chunk is answer text; a `thinking` chunk is reasoning (the text
 * chunks of its `thinking` list) and, with a `signature`, a `reasoning-signature` and an opaque item
 * of the reasoning (the SDK: "signature to replay some reasoning blocks across turns"); a
 * `tool_reference` chunk with a `url` is a `source` (what a built-in tool such as `web_search` found).
 * A chunk of another kind (`tool_file`, `image_url`, `document_url`, one newer than this reader) is
 * kept whole under the choice's `items`. A chunk without `type` (the SDK's chunks make it optional)
 * is told by its fields.
 *
 * @example
 * ```ts
 * readMistralContent(host, { type: 'text', text: 'Hello' }, 'message.output.delta.content'); // a content event
 * ```
 */
export function readMistralContent(host: MistralContentHost, content: unknown, where: string): void {
  if (typeof content === 'string') {
    if (content !== '') host.emit({ type: 'content', choice: 0, text: content });
    return;
  }
  if (content === undefined || content === null) return;
  if (!isJsonObject(content)) return host.keepItem(content, CHOICE_0);
  switch (chunkKind(content)) {
    case 'text': {
      host.keepUnmapped(content, MAPPED_TEXT, CHOICE_0);
      const text = host.text(content['text'], where, 'text');
      if (text) host.emit({ type: 'content', choice: 0, text });
      return;
    }
    case 'thinking':
      return readThinking(host, content, where);
    case 'tool_reference': {
      const url = nonEmptyString(content['url']);
      if (url === undefined) return host.keepItem(content, CHOICE_0);
      host.keepUnmapped(content, MAPPED_REFERENCE, CHOICE_0);
      const title = nonEmptyString(content['title']);
      host.emit({ type: 'source', choice: 0, source: { kind: 'url', url, ...(title === undefined ? {} : { title }) } });
      return;
    }
    default:
      host.keepItem(content, CHOICE_0);
  }
}

/** A chunk's kind: its `type`, or, where it has none, what its fields say. */
function chunkKind(chunk: JsonObject): string | undefined {
  const type = chunk['type'];
  if (typeof type === 'string') return type;
  if (type !== undefined && type !== null) return undefined;
  if ('text' in chunk) return 'text';
  if ('thinking' in chunk) return 'thinking';
  if ('tool' in chunk && 'title' in chunk) return 'tool_reference';
  return undefined;
}

function readThinking(host: MistralContentHost, chunk: JsonObject, where: string): void {
  host.keepUnmapped(chunk, MAPPED_THINKING, CHOICE_0);
  const thinking = chunk['thinking'];
  const parts: readonly unknown[] = Array.isArray(thinking) ? thinking : thinking === undefined || thinking === null ? [] : [thinking];
  for (const part of parts) {
    // Reasoning text, as a string or a text chunk; a reference inside the thinking is kept as it came.
    if (typeof part === 'string') {
      if (part !== '') host.emit({ type: 'reasoning', choice: 0, text: part });
    } else if (isJsonObject(part) && chunkKind(part) === 'text') {
      host.keepUnmapped(part, MAPPED_TEXT, CHOICE_0);
      const text = host.text(part['text'], `${where}.thinking`, 'text');
      if (text) host.emit({ type: 'reasoning', choice: 0, text });
    } else {
      host.keepItem(part, CHOICE_0);
    }
  }
  const signature = nonEmptyString(chunk['signature']);
  if (signature !== undefined) {
    host.emit({ type: 'reasoning-signature', choice: 0, signature });
    host.emit({
      type: 'opaque-item',
      choice: 0,
      item: { provider: 'mistral', kind: 'signature', type: 'signature', part: 'reasoning', data: signature },
    });
  }
}
