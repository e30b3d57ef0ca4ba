import type { ChatEvent, Source } from '../../types/events.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import type { MetadataPlace } from '../base/JsonDialectParser.js';

/** What the content reader needs of the parser: its events, its keeping and its text reader. */
export interface InteractionHost {
  emit(event: ChatEvent): void;
  keepUnmapped(object: JsonObject, mapped: ReadonlySet<string>, place: MetadataPlace): void;
  keepItem(item: unknown, place: MetadataPlace): void;
  text(value: unknown, where: string, field?: string): string | undefined;
}

/** The choice every interaction event belongs to: the stream has one. */
export const CHOICE_0: MetadataPlace = { choice: 0 };

/** A text content block (`TextContent`): its text and its citations. */
const MAPPED_TEXT: ReadonlySet<string> = new Set(['type', 'text', 'annotations']);
/** A citation read as a source; its other fields (`start_index`, `end_index`: byte offsets) are kept on the choice. */
const MAPPED_URL_CITATION: ReadonlySet<string> = new Set(['type', 'url', 'title']);
const MAPPED_PLACE_CITATION: ReadonlySet<string> = new Set(['type', 'url', 'name']);
const MAPPED_FILE_CITATION: ReadonlySet<string> = new Set(['type', 'document_uri', 'file_name']);

/**
 * One content block of a step (`Content`: `TextContent`, `ImageContent`, ...): a text block's text is
 * `content`, or `reasoning` in a thought's summary, and its `annotations` sources; any other block
 * (an image, audio, a document, a video) is kept whole under the choice's `items`.
 *
 * @example
 * ```ts
 * readInteractionContent(host, { type: 'text', text: 'Hello' }, 'content', 'step 1.content[0]'); // a content event
 * ```
 */
export function readInteractionContent(host: InteractionHost, block: unknown, as: 'content' | 'reasoning', where: string): void {
  if (!isJsonObject(block) || block['type'] !== 'text') return host.keepItem(block, CHOICE_0);
  host.keepUnmapped(block, MAPPED_TEXT, CHOICE_0);
  const text = host.text(block['text'], where, 'text');
  if (text) host.emit({ type: as, choice: 0, text });
  readAnnotations(host, block['annotations']);
}

/**
 * Citations (`Annotation`) as sources: a `url_citation` or a `place_citation` (Google Maps) with a
 * `url` is a `url` source (its `title`, or the place's `name`); a `file_citation` a `document` source
 * (its `document_uri`, else its `file_name`). Their offsets count bytes of the reply and are not a
 * span. Any other annotation (a `speech_annotation`, word timings) is kept whole under `items`.
 *
 * @example
 * ```ts
 * readAnnotations(host, [{ type: 'url_citation', url: 'https://example.com', title: 'Example' }]); // a source event
 * ```
 */
export function readAnnotations(host: InteractionHost, annotations: unknown): void {
  if (annotations === undefined || annotations === null) return;
  const list: readonly unknown[] = Array.isArray(annotations) ? annotations : [annotations];
  for (const annotation of list) {
    const source = isJsonObject(annotation) ? sourceOf(host, annotation) : undefined;
    if (source === undefined) host.keepItem(annotation, CHOICE_0);
    else host.emit({ type: 'source', choice: 0, source });
  }
}

function sourceOf(host: InteractionHost, annotation: JsonObject): Source | undefined {
  const type = annotation['type'];
  if (type === 'url_citation' || type === 'place_citation') {
    const url = nonEmptyString(annotation['url']);
    if (url === undefined) return undefined;
    host.keepUnmapped(annotation, type === 'url_citation' ? MAPPED_URL_CITATION : MAPPED_PLACE_CITATION, CHOICE_0);
    const title = nonEmptyString(annotation[type === 'url_citation' ? 'title' : 'name']);
    return { kind: 'url', url, ...(title === undefined ? {} : { title }) };
  }
  if (type === 'file_citation') {
    const name = nonEmptyString(annotation['file_name']);
    const documentId = nonEmptyString(annotation['document_uri']) ?? name;
    if (documentId === undefined) return undefined;
    host.keepUnmapped(annotation, MAPPED_FILE_CITATION, CHOICE_0);
    return { kind: 'document', documentId, ...(name === undefined ? {} : { title: name }) };
  }
  return undefined;
}
