import { Source } from '../../types/events.js';
import { JsonObject, finiteNumber, nonEmptyString } from '../../internal/json.js';

/** A source as a citation gives it, before the span of its text block is known. */
export type CitedSource = Omit<Source, 'span'>;

/** The citation types that point into a document of the request (its `document_index`). */
const DOCUMENT_LOCATIONS: ReadonlySet<string> = new Set(['char_location', 'page_location', 'content_block_location']);

/**
 * The source an Anthropic citation names (a `citations_delta`'s `citation`, or an entry of a text
 * block's `citations`), or undefined for a citation type this library does not know.
 *
 * - `web_search_result_location`: a web page (`url`, `title`);
 * - `char_location`, `page_location`, `content_block_location`: a document of the request, by its
 *   `document_index` (as a string) and `document_title`;
 * - `search_result_location`: a search result block of the request, by its `search_result_index`,
 *   with its `title` and its `source` (the URL or identifier the request gave it) as `url`.
 *
 * Every one keeps its `cited_text`. A field of the wrong type is left out rather than refused: a
 * citation is a pointer beside the reply, and a malformed one must not cost the reply itself.
 */
export function citedSource(citation: JsonObject): CitedSource | undefined {
  const type = citation['type'];
  if (type === 'web_search_result_location') {
    return withOptional({ kind: 'url' }, { url: citation['url'], title: citation['title'], citedText: citation['cited_text'] });
  }
  if (typeof type === 'string' && DOCUMENT_LOCATIONS.has(type)) {
    return withOptional(
      { kind: 'document' },
      { documentId: indexId(citation['document_index']), title: citation['document_title'], citedText: citation['cited_text'] },
    );
  }
  if (type === 'search_result_location') {
    return withOptional(
      { kind: 'document' },
      {
        documentId: indexId(citation['search_result_index']),
        url: citation['source'],
        title: citation['title'],
        citedText: citation['cited_text'],
      },
    );
  }
  return undefined;
}

/** A document index as the id of its document (`0` is `"0"`). */
function indexId(value: unknown): string | undefined {
  const index = finiteNumber(value);
  return index === undefined ? undefined : String(index);
}

/** `source` with each field of `fields` that is a non-empty string (null and absent fields are left out). */
function withOptional(
  source: Pick<Source, 'kind'>,
  fields: { readonly [K in 'url' | 'title' | 'documentId' | 'citedText']?: unknown },
): CitedSource {
  const result: { -readonly [K in keyof CitedSource]: CitedSource[K] } = { ...source };
  for (const key of ['url', 'title', 'documentId', 'citedText'] as const) {
    const value = nonEmptyString(fields[key]);
    if (value !== undefined) result[key] = value;
  }
  return result;
}
