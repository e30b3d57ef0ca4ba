import { Hole, STRING_HOLE, Template, fill, holesBetween, makeTemplate, writeHoles } from './jsonTemplate.js';
import { PLAIN_STRING, closingQuote, escapedStringValue, numberEnd, plainInteger, plainStringEnd, plainStringValue } from './jsonTokens.js';
import { templatePattern } from './jsonTemplatePattern.js';
import { detached } from '../internal/detach.js';

/** Options of {@link JsonTemplateParser}. */
export interface JsonTemplateParserOptions {
  /** Templates kept at once (the most recently used first). Default 4. */
  readonly maxTemplates?: number;
  /** The longest text a template is learned from; longer ones are always parsed in full. Default 16 KiB. */
  readonly maxLearnLength?: number;
  /**
   * Return the template's own value with the holes written into it, instead of a copy of the
   * containers on the way to them. Faster (a hit then allocates nothing but the hole values), but a
   * value read through a template is only valid until the next `parse`: for a reader that takes the
   * values it needs out of each text before reading the next, as the dialects do. Default false.
   */
  readonly reuse?: boolean;
}

/** Counts of how texts were read, for benchmarks and tests. */
export interface JsonTemplateStats {
  /** Texts read through a template: only their varying values were parsed. */
  readonly hits: number;
  /** Texts parsed in full by `JSON.parse`. */
  readonly misses: number;
  /** Templates learned so far. */
  readonly learned: number;
}

const MISS: unique symbol = Symbol('miss');
/**
 * A template becomes a regular expression (see `templatePattern`) once it has read `PATTERN_AFTER`
 * texts within `PATTERN_WITHIN_MS`: a stream read in bulk (a reply arriving faster than it can be
 * read, a recording replayed), where reading is the cost. Its compiled code takes some kilobytes,
 * which a reply trickling in at a few chunks a second, one of thousands a process holds open, would
 * pay for nothing: its cost is waiting. Which way a text is read never changes what it reads as.
 */
const PATTERN_AFTER = 64;
const PATTERN_WITHIN_MS = 100;
const MAX_SAMPLES = 4;
/**
 * A template compared by its literals takes the pieces of every `RECENT_EVERY`-th text it reads as
 * the ones to compare the next texts with (`Template.recent`), as copies: a piece cut from a text is
 * a slice that keeps the whole text alive, and with it the chunk the text was cut from (16 KiB at a
 * full read), for as long as the template waits for the next text. Taken once every 32 texts, the
 * copies cost less than the slices taken from every text did (2.4% fewer instructions per text read
 * by literals, one-byte and two-byte alike), and a reply whose texts change representation (see
 * `recent`) compares a character at a time for at most 32 texts. A power of two.
 */
const RECENT_EVERY = 32;
/** Failed checks of a learned template (the server does not write compact JSON) before learning stops. */
const MAX_LEARN_FAILURES = 16;
/** Templates learned before their use is judged, and the hits each must then have earned on average. */
const MIN_LEARNED_BEFORE_JUDGING = 8;
const HITS_PER_TEMPLATE = 8;
const QUOTE = 34;

/**
 * `JSON.parse` for a stream of texts that repeat a few shapes, as streamed LLM replies do: every chunk
 * repeats the same envelope (`{"id":"chatcmpl-…","object":…,"choices":[{"index":0,"delta":{"content":`)
 * around a short varying value. Parsing the envelope again is most of the cost of reading such a
 * stream, so once two texts of one shape have been seen, the parser keeps a template: the text with
 * holes where their values differed. A text that matches the template character for character outside
 * its holes, with one complete string or number token in each hole, has the template's value with
 * those tokens' values in place: only the holes are parsed, and only the containers on the way to
 * them are copied. Anything else is parsed by `JSON.parse`.
 *
 * The result is always the value `JSON.parse(text)` would return, and a text `JSON.parse` rejects
 * throws its `SyntaxError` (a text that matches a template is valid JSON by construction: the
 * template was checked against the text it was learned from). The one difference: values returned
 * for texts of one shape share the parts that did not change, so treat them as read-only (and with
 * `reuse`, the value of a text read through a template is overwritten by the next one).
 *
 * Templates are learned only from texts written as `JSON.stringify` writes them (no spaces, the same
 * escapes), which is what the servers we have recordings of send; others are always parsed in full,
 * and learning stops after a few failed attempts so that they cost no more than `JSON.parse`.
 *
 * @example
 * ```ts
 * import { JsonTemplateParser } from 'rxjs-llm-stream/core';
 *
 * const json = new JsonTemplateParser();
 * json.parse('{"id":"a","delta":{"content":"Hel"}}');
 * json.parse('{"id":"a","delta":{"content":"lo"}}'); // learns the template
 * json.parse('{"id":"a","delta":{"content":"!"}}'); // { id: 'a', delta: { content: '!' } }, only "!" parsed
 * json.stats; // { hits: 1, misses: 2, learned: 1 }
 * ```
 */
export class JsonTemplateParser {
  private readonly maxTemplates: number;
  private readonly maxLearnLength: number;
  private readonly reuse: boolean;
  private readonly templates: Template[] = [];
  /** The values of recent texts parsed in full, to learn a template from when the next one has their shape. */
  private readonly samples: object[] = [];
  /** The values of the holes of the text being matched. */
  private readonly values: unknown[] = [];
  /** The template the last text was read through; undefined when it was parsed in full. */
  private last: Template | undefined = undefined;
  private learnFailures = 0;
  private hits = 0;
  private misses = 0;
  private learned = 0;

  constructor(options: JsonTemplateParserOptions = {}) {
    this.maxTemplates = options.maxTemplates ?? 4;
    this.maxLearnLength = options.maxLearnLength ?? 16 * 1024;
    this.reuse = options.reuse === true;
  }

  get stats(): JsonTemplateStats {
    return { hits: this.hits, misses: this.misses, learned: this.learned };
  }

  /**
   * The template the last text was read through, undefined when it was parsed in full: the same
   * object for every text of one shape, for a reader that keeps what it learned of a shape (which of
   * its values can change, with `mayChange`) on the shape.
   */
  get lastTemplate(): Template | undefined {
    return this.last;
  }

  /** The value of `text` as `JSON.parse` reads it; throws `JSON.parse`'s `SyntaxError` if it is not JSON. */
  parse(text: string): unknown {
    const templates = this.templates;
    for (let t = 0; t < templates.length; t++) {
      const template = templates[t]!;
      const value = this.match(template, text);
      if (value !== MISS) {
        this.hits++;
        this.last = template;
        if (t > 0) {
          templates.splice(t, 1);
          templates.unshift(template);
        }
        return value;
      }
    }
    this.last = undefined;
    const value: unknown = JSON.parse(text);
    this.misses++;
    if (text.length <= this.maxLearnLength && typeof value === 'object' && value !== null && this.learning()) this.learnFrom(text, value);
    return value;
  }

  /**
   * Whether learning still pays: it stops after repeated failed checks (a server that does not write
   * compact JSON), or when templates are learned but seldom used (a field that changes in a way no
   * template captures), so that a stream without repeating shapes costs about what `JSON.parse` does.
   */
  private learning(): boolean {
    return (
      this.learnFailures < MAX_LEARN_FAILURES &&
      (this.learned < MIN_LEARNED_BEFORE_JUDGING || this.hits >= this.learned * HITS_PER_TEMPLATE)
    );
  }

  /** The template's value with the holes of `text` filled in, or MISS when `text` does not fit it. */
  private match(template: Template, text: string): unknown {
    if (template.pattern !== undefined) return this.matchPattern(template, template.pattern, text);
    const value = this.matchLiterals(template, text);
    if (value !== MISS && ++template.hits % PATTERN_AFTER === 0) {
      // The clock is read once every PATTERN_AFTER texts: nothing next to reading them.
      const now = Date.now();
      if (now - template.since <= PATTERN_WITHIN_MS) {
        template.pattern = templatePattern(template.literals, template.kinds);
        // The pieces of a recent text are no longer compared: let them go.
        template.recent.length = 0;
      }
      template.since = now;
    }
    return value;
  }

  /**
   * `match` through the template's regular expression: one test checks the literals and that each
   * hole holds one JSON token of its kind; the holes are then found from the literals' lengths.
   */
  private matchPattern(template: Template, pattern: RegExp, text: string): unknown {
    if (!pattern.test(text)) return MISS;
    const literals = template.literals;
    const kinds = template.kinds;
    const holes = kinds.length;
    const values = this.values;
    let position = literals[0]!.length;
    // The first backslash at or after `position`: a string hole before it has no escape.
    let backslash = -2;
    for (let h = 0; h < holes; h++) {
      const start = position;
      let end: number;
      if (kinds[h] === STRING_HOLE) {
        // The pattern ends with the last literal: the last hole ends where it begins, found without a search.
        end = h === holes - 1 ? text.length - literals[holes]!.length : closingQuote(text, start + 1) + 1;
        if (backslash !== -1 && backslash < start) backslash = text.indexOf('\\', start);
        const short = end - start - 2 <= PLAIN_STRING;
        if (short && (backslash === -1 || backslash >= end)) values[h] = plainStringValue(text, start, end);
        else {
          const escaped = short ? escapedStringValue(text, start, end) : undefined;
          if (escaped !== undefined) values[h] = escaped;
          else if (!this.parseToken(text, start, end, h)) return MISS;
        }
      } else {
        end = numberEnd(text, start);
        const integer = plainInteger(text, start, end);
        if (integer >= 0) values[h] = integer;
        else if (!this.parseToken(text, start, end, h)) return MISS;
      }
      position = end + literals[h + 1]!.length;
    }
    if (!this.reuse) return fill(template.steps, template.root, values);
    writeHoles(template, values);
    return template.root;
  }

  /**
   * `match` by comparing the template's literals with the text. Each literal is compared against the
   * piece of a recent text that matched (`recent`: the same characters, so the comparison is as
   * exact), which is what lets it run as a `memcmp`.
   */
  private matchLiterals(template: Template, text: string): unknown {
    const recent = template.recent;
    // Whether this text's pieces become `recent` (see RECENT_EVERY).
    const renew = (template.hits & (RECENT_EVERY - 1)) === 0;
    const kinds = template.kinds;
    const holes = kinds.length;
    const first = recent[0]!;
    const last = recent[holes]!;
    // Most misses are another kind of chunk: they differ in the first few characters, or the last.
    // (`slice` and `===` compare a block at once: `startsWith` goes character by character, which
    // made the comparison cost as much as the parse it saves.)
    const head = text.slice(0, first.length);
    if (head !== first) return MISS;
    if (holes === 0) return text.length === first.length ? template.root : MISS;
    const tailStart = text.length - last.length;
    if (tailStart <= first.length) return MISS;
    const tail = text.slice(tailStart);
    if (tail !== last) return MISS;
    if (renew) {
      recent[0] = detached(head);
      recent[holes] = detached(tail);
    }
    const values = this.values;
    let position = first.length;
    for (let h = 0; h < holes; h++) {
      const start = position;
      let end: number;
      if (kinds[h] === STRING_HOLE) {
        if (text.charCodeAt(start) !== QUOTE) return MISS;
        end = plainStringEnd(text, start);
        if (end > 0) values[h] = plainStringValue(text, start, end);
        else {
          end = closingQuote(text, start + 1) + 1;
          if (end === 0 || !this.parseToken(text, start, end, h)) return MISS;
        }
      } else {
        end = numberEnd(text, start);
        if (end === start) return MISS;
        const integer = plainInteger(text, start, end);
        if (integer >= 0) values[h] = integer;
        else if (!this.parseToken(text, start, end, h)) return MISS;
      }
      if (h === holes - 1) {
        // The last literal is the tail, compared above: the hole must end where it begins.
        if (end !== tailStart) return MISS;
        break;
      }
      const literalLength = recent[h + 1]!.length;
      const piece = text.slice(end, end + literalLength);
      if (piece !== recent[h + 1]) return MISS;
      if (renew) recent[h + 1] = detached(piece);
      position = end + literalLength;
    }
    if (!this.reuse) return fill(template.steps, template.root, values);
    writeHoles(template, values);
    return template.root;
  }

  /** Parses the token `text[start, end)` into hole `h`; false when `JSON.parse` refuses it. */
  private parseToken(text: string, start: number, end: number, h: number): boolean {
    try {
      // The token alone: a string's escapes and a number's form are checked exactly as in the whole text.
      this.values[h] = JSON.parse(text.slice(start, end));
      return true;
    } catch {
      return false;
    }
  }

  private learnFrom(text: string, value: object): void {
    const samples = this.samples;
    for (let s = 0; s < samples.length; s++) {
      const holes = holesBetween(samples[s], value);
      if (holes === undefined) continue;
      samples.splice(s, 1);
      const template = makeTemplate(value, holes);
      if (template === undefined || !this.reads(template, text, holes)) {
        this.learnFailures++;
        return;
      }
      this.learned++;
      this.templates.unshift(template);
      if (this.templates.length > this.maxTemplates) this.templates.pop();
      return;
    }
    samples.unshift(value);
    if (samples.length > MAX_SAMPLES) samples.pop();
  }

  /**
   * Whether `template` reads `text`, the text it was made from, back: matching it against the text
   * itself checks that every literal is exactly in the text and each hole holds the value it should,
   * which fails when `text` is not written as `JSON.stringify` would write it.
   */
  private reads(template: Template, text: string, holes: readonly Hole[]): boolean {
    if (this.match(template, text) === MISS) return false;
    for (let h = 0; h < holes.length; h++) if (this.values[h] !== holes[h]!.value) return false;
    return true;
  }
}
