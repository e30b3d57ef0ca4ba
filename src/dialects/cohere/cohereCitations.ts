import { Source } from '../../types/events.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { isIndex } from '../base/payloadValues.js';

/** A lone or paired UTF-16 surrogate: a piece without one has as many code points as units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The text of one content block, as the `content` events carried it. */
interface TextBlock {
  /** Where the block's text starts in the reply's content (UTF-16 units). */
  readonly start: number;
  text: string;
  /** Its length in code points, as Python counts a string. */
  points: number;
  /** The code-point positions of its characters outside the BMP (two UTF-16 units each), ascending. */
  readonly astral: number[];
}

/** What one citation gives: its sources, and whether it named a source of a type this library does not know. */
export interface CitationSources {
  readonly sources: readonly Source[];
  readonly unknownSource: boolean;
}

/**
 * The citations of a Cohere v2 stream as `source` events. A `citation-start` carries one citation,
 * `delta.message.citations` (the SDK's `Citation`: `start`, `end`, `text`, `sources`, `content_index`,
 * `type`); each of its sources becomes a source:
 *
 * - `{type: "document", id, document}`: a document of the request (RAG): `documentId` its `id`
 *   (`doc:0`; else the document's own `id`), with the document's `title` and `url` when it has them;
 * - `{type: "tool", id, tool_output}`: a tool result the reply drew on, as Cohere treats tool
 *   results as documents: `documentId` its `id` (`get_weather_m3kdvxncg1p8:0`). The output itself
 *   is the program's own (it sent it), and is not copied.
 *
 * `start` and `end` are offsets of the cited words (`text`) in the reply's answer; each source gets
 * them as its `span`, in UTF-16 units of the choice's content, only when they can be checked: the
 * citation is of the answer (`type` `TEXT_CONTENT`, or none; a `PLAN` or `THINKING_CONTENT` citation
 * points into the tool plan or the thinking, which are reasoning, not content), its content block
 * (`content_index`, else the last block that had text) has the text that far, and `text`, when
 * given, is what the offsets enclose. The offsets are read as code points first (Python counts a
 * string so, and the SDK does not say), then as UTF-16 units; for text inside the BMP both readings
 * are the same. Cohere's `text` is words of the reply, not of the source: it is not a `citedText`.
 *
 * A field of the wrong type inside a source is left out rather than refused: a citation is a pointer
 * beside the reply, and a malformed one must not cost the reply itself.
 *
 * @example
 * ```ts
 * const citations = new CohereCitations();
 * citations.appendText(0, 'It is currently 24°C in Madrid.');
 * const sources = [{ type: 'tool', id: 'get_weather_1:0' }];
 * citations.read({ start: 16, end: 20, text: '24°C', sources, type: 'TEXT_CONTENT' }, sources);
 * // { sources: [{ kind: 'document', documentId: 'get_weather_1:0', span: { start: 16, end: 20 } }], unknownSource: false }
 * ```
 */
export class CohereCitations {
  /** Text blocks by their content index. */
  private readonly blocks = new Map<number, TextBlock>();
  /** The block that last received text: the one a citation without `content_index` is of. */
  private last: TextBlock | undefined = undefined;
  /** The reply's content so far (UTF-16 units): where a new block starts. */
  private contentLength = 0;

  /** Answer text of the content block `index`, as the `content` event carried it. */
  appendText(index: number, piece: string): void {
    let block = this.blocks.get(index);
    if (block === undefined) this.blocks.set(index, (block = { start: this.contentLength, text: '', points: 0, astral: [] }));
    this.contentLength += piece.length;
    this.last = block;
    block.text += piece;
    if (!SURROGATE.test(piece)) {
      block.points += piece.length;
      return;
    }
    for (const char of piece) {
      if (char.length === 2) block.astral.push(block.points);
      block.points++;
    }
  }

  /**
   * The sources of one citation, in order, each with the span it supports when that can be checked.
   * The caller has checked that `sources` is an array of objects.
   */
  read(citation: JsonObject, sources: readonly JsonObject[]): CitationSources {
    const span = this.span(citation);
    const found: Source[] = [];
    let unknownSource = false;
    for (const entry of sources) {
      const source = citedSource(entry);
      if (source === undefined) unknownSource = true;
      else found.push(span === undefined ? source : { ...source, span });
    }
    return { sources: found, unknownSource };
  }

  private span(citation: JsonObject): Source['span'] {
    const type = citation['type'];
    if (type !== undefined && type !== null && type !== 'TEXT_CONTENT') return undefined;
    const start = citation['start'];
    const end = citation['end'];
    if (!isIndex(start) || !isIndex(end) || end <= start) return undefined;
    const contentIndex = citation['content_index'];
    const block = isIndex(contentIndex) ? this.blocks.get(contentIndex) : this.last;
    if (block === undefined) return undefined;
    const text = typeof citation['text'] === 'string' ? citation['text'] : undefined;
    const byPoints = { start: unitsAt(block, start), end: unitsAt(block, end) };
    if (encloses(block, byPoints, text)) return { start: block.start + byPoints.start!, end: block.start + byPoints.end! };
    // Only text outside the BMP tells the two readings apart: then UTF-16 units, as JavaScript counts.
    if (block.astral.length > 0 && encloses(block, { start, end }, text)) return { start: block.start + start, end: block.start + end };
    return undefined;
  }
}

/** The UTF-16 offset of code point `point` of the block's text; undefined past its end. */
function unitsAt(block: TextBlock, point: number): number | undefined {
  if (point > block.points) return undefined;
  // Each character outside the BMP before `point` takes one unit more than its one code point.
  let low = 0;
  let high = block.astral.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (block.astral[middle]! < point) low = middle + 1;
    else high = middle;
  }
  return point + low;
}

/** True when the offsets fall on the block's text and enclose `text` (when it is given). */
function encloses(block: TextBlock, offsets: { start: number | undefined; end: number | undefined }, text: string | undefined): boolean {
  const { start, end } = offsets;
  if (start === undefined || end === undefined || end > block.text.length) return false;
  return text === undefined || block.text.slice(start, end) === text;
}

/** The source a citation's source names, before its span; undefined for a type this library does not know. */
function citedSource(source: JsonObject): Source | undefined {
  const type = source['type'];
  const id = nonEmptyString(source['id']);
  if (type === 'tool') return id === undefined ? { kind: 'document' } : { kind: 'document', documentId: id };
  if (type !== 'document') return undefined;
  const document = isJsonObject(source['document']) ? source['document'] : {};
  const documentId = id ?? nonEmptyString(document['id']);
  const title = nonEmptyString(document['title']);
  const url = nonEmptyString(document['url']);
  return {
    kind: 'document',
    ...(url === undefined ? {} : { url }),
    ...(title === undefined ? {} : { title }),
    ...(documentId === undefined ? {} : { documentId }),
  };
}
