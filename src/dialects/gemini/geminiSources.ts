import { Source } from '../../types/events.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { Utf8Text } from './geminiUtf8Text.js';
import { isIndex } from '../base/payloadValues.js';

/** What one candidate's sources need kept between chunks. */
interface CandidateSources {
  /** The candidate's answer text, for the byte offsets of grounding segments. */
  readonly content: Utf8Text;
  /** Every source emitted, by its key: cumulative metadata repeats them. */
  readonly seen: Set<string>;
  /** The grounding chunks last listed: a support may point into them from a later chunk. */
  chunks: readonly (Source | undefined)[];
}

/** The url-context statuses of a page the model read (an absent status is taken for one). */
const RETRIEVED = 'URL_RETRIEVAL_STATUS_SUCCESS';

/**
 * Gemini's grounding as `source` events, each distinct source once. A candidate's `groundingMetadata`
 * lists the pages or documents it drew on (`groundingChunks`: `{web: {uri, title}}`,
 * `{retrievedContext: {uri, title, text}}`, `{maps: {uri, title}}`) and which spans of the reply each
 * supports (`groundingSupports`: `{segment: {startIndex, endIndex, text}, groundingChunkIndices}`);
 * `urlContextMetadata.urlMetadata` lists the pages the url-context tool read, and `citationMetadata`
 * the sources the reply quotes at length (see `readCitations`). Gemini may send this
 * metadata on several chunks, repeating what it sent before: every chunk is read, and a source is
 * emitted the first time it is seen, never again.
 *
 * Each grounding chunk is a source (`url` when it has a uri, else a `document` named by its title);
 * each support adds, per chunk it names, that source with the span of the reply it supports. The
 * segment's offsets are UTF-8 byte offsets: the span is their UTF-16 offsets into the candidate's
 * content, given only when they land on characters of the content received so far and, when the
 * segment carries its text, that text is what they enclose (the offsets are documented relative to
 * a part, and a streamed reply's parts are spread over chunks: what cannot be checked is left out).
 */
export class GeminiSources {
  private readonly candidates = new Map<number, CandidateSources>();

  constructor(private readonly fail: (what: string) => Error) {}

  /** Answer text of `choice`, as the content events carried it. */
  appendContent(choice: number, text: string): void {
    this.candidate(choice).content.append(text);
  }

  /** The sources of one candidate's metadata not emitted before, in order. */
  read(choice: number, grounding: unknown, urlContext: unknown, citations: unknown, where: string): Source[] {
    if (!present(grounding) && !present(urlContext) && !present(citations)) return [];
    const candidate = this.candidate(choice);
    const found: Source[] = [];
    if (present(grounding)) this.readGrounding(candidate, this.object(grounding, `${where}.groundingMetadata`), found, where);
    if (present(urlContext)) this.readUrlContext(this.object(urlContext, `${where}.urlContextMetadata`), found, where);
    if (present(citations)) this.readCitations(candidate, this.object(citations, `${where}.citationMetadata`), found, where);
    return found.filter((source) => this.isNew(candidate, source));
  }

  private readGrounding(candidate: CandidateSources, metadata: JsonObject, found: Source[], where: string): void {
    const chunks = this.list(metadata['groundingChunks'], `${where}.groundingMetadata.groundingChunks`);
    if (chunks !== undefined) {
      candidate.chunks = chunks.map(chunkSource);
      for (const source of candidate.chunks) if (source !== undefined) found.push(source);
    }
    const supports = this.list(metadata['groundingSupports'], `${where}.groundingMetadata.groundingSupports`) ?? [];
    for (let k = 0; k < supports.length; k++) {
      const support = supports[k];
      if (!isJsonObject(support)) throw this.fail(`${where}.groundingMetadata.groundingSupports[${k}] is not an object`);
      const span = isJsonObject(support['segment']) ? this.span(candidate.content, support['segment']) : undefined;
      const indices = this.list(
        support['groundingChunkIndices'],
        `${where}.groundingMetadata.groundingSupports[${k}].groundingChunkIndices`,
      );
      for (const index of indices ?? []) {
        const source = isIndex(index) ? candidate.chunks[index] : undefined;
        if (source !== undefined) found.push(span === undefined ? source : { ...source, span });
      }
    }
  }

  private readUrlContext(metadata: JsonObject, found: Source[], where: string): void {
    const pages = this.list(metadata['urlMetadata'], `${where}.urlContextMetadata.urlMetadata`) ?? [];
    for (const page of pages) {
      if (!isJsonObject(page)) continue;
      const url = nonEmptyString(page['retrievedUrl']);
      const status = page['urlRetrievalStatus'];
      if (url !== undefined && (status === undefined || status === null || status === RETRIEVED)) found.push({ kind: 'url', url });
    }
  }

  /**
   * `citationMetadata.citations` (`Citation` {startIndex, endIndex, uri, title, license,
   * publicationDate}): the sources the reply quotes at length. Each with a uri is a `url` source,
   * one with a title only a `document`, with the span of the reply it quotes when its byte offsets
   * land on the content received so far; the license and date stay in the open reply, where the
   * whole `citationMetadata` is kept as it came.
   */
  private readCitations(candidate: CandidateSources, metadata: JsonObject, found: Source[], where: string): void {
    const citations = this.list(metadata['citations'], `${where}.citationMetadata.citations`) ?? [];
    for (const citation of citations) {
      if (!isJsonObject(citation)) continue;
      const url = nonEmptyString(citation['uri']);
      const title = nonEmptyString(citation['title']);
      if (url === undefined && title === undefined) continue;
      const source: Source = {
        kind: url === undefined ? 'document' : 'url',
        ...(url === undefined ? {} : { url }),
        ...(title === undefined ? {} : { title }),
      };
      const span = this.span(candidate.content, citation);
      found.push(span === undefined ? source : { ...source, span });
    }
  }

  /**
   * A segment's span as UTF-16 offsets into the content, when its byte offsets land on characters
   * of it and enclose the segment's text (a missing `startIndex` is 0: the wire leaves zeros out).
   */
  private span(content: Utf8Text, segment: JsonObject): Source['span'] {
    const startByte = segment['startIndex'] ?? 0;
    const endByte = segment['endIndex'];
    if (!isIndex(startByte) || !isIndex(endByte) || endByte <= startByte) return undefined;
    const text = segment['text'];
    const partIndex = segment['partIndex'] ?? 0;
    if (typeof text !== 'string' && partIndex !== 0) return undefined;
    const start = content.unitAt(startByte);
    const end = content.unitAt(endByte);
    if (start === undefined || end === undefined) return undefined;
    if (typeof text === 'string' && content.slice(start, end) !== text) return undefined;
    return { start, end };
  }

  /** True the first time a source is seen for the candidate. */
  private isNew(candidate: CandidateSources, source: Source): boolean {
    const key = JSON.stringify([
      source.kind,
      source.url,
      source.title,
      source.documentId,
      source.citedText,
      source.span?.start,
      source.span?.end,
    ]);
    if (candidate.seen.has(key)) return false;
    candidate.seen.add(key);
    return true;
  }

  private candidate(choice: number): CandidateSources {
    let candidate = this.candidates.get(choice);
    if (candidate === undefined) this.candidates.set(choice, (candidate = { content: new Utf8Text(), seen: new Set(), chunks: [] }));
    return candidate;
  }

  private object(value: unknown, where: string): JsonObject {
    if (!isJsonObject(value)) throw this.fail(`${where} is not an object`);
    return value;
  }

  private list(value: unknown, where: string): readonly unknown[] | undefined {
    if (!present(value)) return undefined;
    if (!Array.isArray(value)) throw this.fail(`${where} is not an array`);
    return value;
  }
}

/** The source a grounding chunk names: a page (`web`, `maps`, a retrieved context with a uri) or a document. */
function chunkSource(chunk: unknown): Source | undefined {
  if (!isJsonObject(chunk)) return undefined;
  const found = [chunk['web'], chunk['retrievedContext'], chunk['maps']].find(isJsonObject);
  if (found === undefined) return undefined;
  const url = nonEmptyString(found['uri']);
  const title = nonEmptyString(found['title']);
  const citedText = found === chunk['retrievedContext'] ? nonEmptyString(found['text']) : undefined;
  const documentId = nonEmptyString(found['documentName']);
  if (url === undefined && title === undefined && documentId === undefined) return undefined;
  return {
    kind: url === undefined ? 'document' : 'url',
    ...(url === undefined ? {} : { url }),
    ...(title === undefined ? {} : { title }),
    ...(url === undefined && documentId !== undefined ? { documentId } : {}),
    ...(citedText === undefined ? {} : { citedText }),
  };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}
