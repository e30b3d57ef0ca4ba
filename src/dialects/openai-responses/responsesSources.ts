import { Source } from '../../types/events.js';
import { JsonObject, nonEmptyString } from '../../internal/json.js';
import { isIndex } from '../base/payloadValues.js';

/** The source an annotation names, and the span it covers within its own content part, when it says. */
export interface AnnotatedSource {
  readonly source: Source;
  readonly span: { readonly start: number; readonly end: number } | undefined;
}

/**
 * The source a Responses annotation names (`response.output_text.annotation.added`), or undefined for
 * an annotation type this library does not know, or one without the URL or file id it is about:
 *
 * - `url_citation`: a web page (`url`, `title`), with the span `start_index`..`end_index`;
 * - `file_citation`, `file_path`: a file of the request, `documentId` its `file_id`, `title` its
 *   `filename` (their `index` is a position, not a span: left out);
 * - `container_file_citation`: a file the code interpreter made, the same way, with its span.
 *
 * Only strings and numbers are taken, so nothing of the payload is kept.
 */
export function annotationSource(annotation: JsonObject): AnnotatedSource | undefined {
  const type = annotation['type'];
  if (type === 'url_citation') {
    const url = nonEmptyString(annotation['url']);
    return url === undefined ? undefined : { source: withTitle({ kind: 'url', url }, annotation['title']), span: spanOf(annotation) };
  }
  if (type === 'file_citation' || type === 'file_path' || type === 'container_file_citation') {
    const documentId = nonEmptyString(annotation['file_id']);
    if (documentId === undefined) return undefined;
    return { source: withTitle({ kind: 'document', documentId }, annotation['filename']), span: spanOf(annotation) };
  }
  return undefined;
}

function withTitle(source: Source, title: unknown): Source {
  const text = nonEmptyString(title);
  return text === undefined ? source : { ...source, title: text };
}

function spanOf(annotation: JsonObject): AnnotatedSource['span'] {
  const start = annotation['start_index'];
  const end = annotation['end_index'];
  return isIndex(start) && isIndex(end) && end >= start ? { start, end } : undefined;
}

/**
 * Where each content part of the reply begins in the choice's content, and which annotations each
 * part has had. An annotation's span counts from the start of its own part, while a source's span
 * counts in the choice's content, which joins every part of every message item (a commentary then a
 * final answer, say): the part's start is added. Servers repeat annotations (in `output_text.done`,
 * `content_part.done`, the finished item, `response.completed`): only `.added` events are read, and
 * an `annotation_index` a part already had is skipped.
 */
export class ContentParts {
  /** The content so far, in UTF-16 code units. */
  private length = 0;
  private readonly starts = new Map<string, number>();
  private readonly annotated = new Set<string>();
  /** The part of the latest text, so that a run of deltas of one part costs no lookup. */
  private lastItem: string | number | undefined = undefined;
  private lastPart: number | undefined = undefined;

  /** Counts content text of the part (`item`, its item id or output index; `part`, its content index). */
  addText(item: string | number | undefined, part: number | undefined, length: number): void {
    if (this.starts.size === 0 || item !== this.lastItem || part !== this.lastPart) {
      const key = partKey(item, part);
      if (!this.starts.has(key)) this.starts.set(key, this.length);
      this.lastItem = item;
      this.lastPart = part;
    }
    this.length += length;
  }

  /** Where the part begins in the choice's content (a part with no text yet begins at its end). */
  startOf(item: string | number | undefined, part: number | undefined): number {
    return this.starts.get(partKey(item, part)) ?? this.length;
  }

  /** False for an annotation index the part has had already; true the first time (and without an index). */
  isNew(item: string | number | undefined, part: number | undefined, annotationIndex: unknown): boolean {
    if (!isIndex(annotationIndex)) return true;
    const key = `${partKey(item, part)}\n${annotationIndex}`;
    if (this.annotated.has(key)) return false;
    this.annotated.add(key);
    return true;
  }
}

function partKey(item: string | number | undefined, part: number | undefined): string {
  return `${String(item)}\n${String(part)}`;
}
