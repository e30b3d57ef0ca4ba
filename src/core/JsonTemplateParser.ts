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

/** What a hole holds; its token in the text is checked against this before it is parsed. */
type HoleKind = typeof STRING_HOLE | typeof NUMBER_HOLE;
const STRING_HOLE = 0;
const NUMBER_HOLE = 1;

interface Hole {
  readonly path: readonly (string | number)[];
  readonly kind: HoleKind;
  /** The value in the text the template was learned from, to check the template against it. */
  readonly value: string | number;
}

/** One step of the copy made for each text: the containers on the way from the root to the holes. */
interface CopyStep {
  readonly key: string | number;
  /** The hole whose value goes at `key`, or -1 for a container to copy and descend into. */
  readonly hole: number;
  readonly children: readonly CopyStep[];
}

interface Template {
  /** `literals.length === holes + 1`: the text is literals[0] hole literals[1] hole ... literals[n]. */
  readonly literals: readonly string[];
  readonly kinds: readonly HoleKind[];
  /** The value the template was learned from; a hit returns a copy of it with the holes filled in. */
  readonly root: object;
  readonly steps: readonly CopyStep[];
}

const MISS: unique symbol = Symbol('miss');
const MAX_HOLES = 8;
const MAX_SAMPLES = 4;
/** Containers and values compared when looking for holes; bigger values are not templated. */
const MAX_COMPARED = 512;
/** Failed checks of a learned template (the server does not write compact JSON) before learning stops. */
const MAX_LEARN_FAILURES = 16;
/** Templates learned before their use is judged, and the hits each must then have earned on average. */
const MIN_LEARNED_BEFORE_JUDGING = 8;
const HITS_PER_TEMPLATE = 8;
const QUOTE = 34;
const BACKSLASH = 92;

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
 * import { JsonTemplateParser } from 'rxjs-llm-stream';
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

  /** The value of `text` as `JSON.parse` reads it; throws `JSON.parse`'s `SyntaxError` if it is not JSON. */
  parse(text: string): unknown {
    const templates = this.templates;
    for (let t = 0; t < templates.length; t++) {
      const template = templates[t]!;
      const value = this.match(template, text);
      if (value !== MISS) {
        this.hits++;
        if (t > 0) {
          templates.splice(t, 1);
          templates.unshift(template);
        }
        return value;
      }
    }
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
    return this.learnFailures < MAX_LEARN_FAILURES && (this.learned < MIN_LEARNED_BEFORE_JUDGING || this.hits >= this.learned * HITS_PER_TEMPLATE);
  }

  /** The template's value with the holes of `text` filled in, or MISS when `text` does not fit it. */
  private match(template: Template, text: string): unknown {
    const literals = template.literals;
    const kinds = template.kinds;
    const first = literals[0]!;
    const last = literals[kinds.length]!;
    // Most misses are another kind of chunk: they differ in the first few characters, or the last.
    // (`slice` and `===` compare a block at once: `startsWith` goes character by character, which
    // made the comparison cost as much as the parse it saves.)
    if (text.slice(0, first.length) !== first || text.slice(text.length - last.length) !== last) return MISS;
    const values = this.values;
    let position = first.length;
    for (let h = 0; h < kinds.length; h++) {
      const start = position;
      let end: number;
      if (kinds[h] === STRING_HOLE) {
        if (text.charCodeAt(start) !== QUOTE) return MISS;
        end = closingQuote(text, start + 1) + 1;
        if (end === 0) return MISS;
      } else {
        end = numberEnd(text, start);
        if (end === start) return MISS;
      }
      const literal = literals[h + 1]!;
      if (text.slice(end, end + literal.length) !== literal) return MISS;
      try {
        // The token alone: a string's escapes and a number's form are checked exactly as in the whole text.
        values[h] = JSON.parse(text.slice(start, end));
      } catch {
        return MISS;
      }
      position = end + literal.length;
    }
    if (position !== text.length) return MISS;
    if (kinds.length === 0) return template.root;
    if (!this.reuse) return fill(template.steps, template.root, values);
    fillInPlace(template.steps, template.root, values);
    return template.root;
  }

  private learnFrom(text: string, value: object): void {
    const samples = this.samples;
    for (let s = 0; s < samples.length; s++) {
      const holes: Hole[] = [];
      const budget = { left: MAX_COMPARED };
      if (!findHoles(samples[s], value, [], holes, budget)) continue;
      samples.splice(s, 1);
      const template = this.makeTemplate(text, value, holes);
      if (template === undefined) {
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
   * The template of `text` (whose value is `value`) with `holes`, or undefined when `text` is not
   * written as `JSON.stringify` would write it. The literals come from `JSON.stringify` of the value
   * with a marker string in each hole; the template is then matched against `text` itself, which
   * checks that every literal is exactly in the text and each hole holds the value it should.
   */
  private makeTemplate(text: string, value: object, holes: readonly Hole[]): Template | undefined {
    const steps = copySteps(holes);
    const markers = holes.map((_, h) => `${MARKER}${h}`);
    let written: string;
    try {
      written = JSON.stringify(holes.length === 0 ? value : fill(steps, value, markers));
    } catch {
      return undefined;
    }
    const literals: string[] = [];
    let from = 0;
    for (let h = 0; h < holes.length; h++) {
      const token = JSON.stringify(markers[h]);
      const at = written.indexOf(token, from);
      if (at === -1) return undefined;
      literals.push(written.slice(from, at));
      from = at + token.length;
    }
    literals.push(written.slice(from));
    // A marker found inside a literal would put a hole in the wrong place: markers must occur once each.
    if (countOccurrences(written, WRITTEN_MARKER) !== holes.length) return undefined;
    const template: Template = { literals, kinds: holes.map((hole) => hole.kind), root: value, steps };
    const check = this.match(template, text);
    if (check === MISS) return undefined;
    for (let h = 0; h < holes.length; h++) if (this.values[h] !== holes[h]!.value) return undefined;
    return template;
  }
}

/** Marks a hole in the text written to find the literals: no server sends these control characters in keys. */
const MARKER = '\u0000\u0001hole';
const WRITTEN_MARKER = JSON.stringify(MARKER).slice(1, -1);

/**
 * Adds to `holes` the string and number values in which `a` and `b` differ, when both have the same
 * shape: the same keys in the same order, the same array lengths, and every other value equal.
 * Returns false when they differ in anything else or the comparison runs over its budget.
 */
function findHoles(a: unknown, b: unknown, path: (string | number)[], holes: Hole[], budget: { left: number }): boolean {
  if (--budget.left < 0) return false;
  if (a === b) return true;
  const type = typeof b;
  if (typeof a !== type) return false;
  if (type === 'string' || type === 'number') {
    if (holes.length === MAX_HOLES) return false;
    holes.push({ path: path.slice(), kind: type === 'string' ? STRING_HOLE : NUMBER_HOLE, value: b as string | number });
    return true;
  }
  if (type !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      path.push(i);
      const same = findHoles(a[i], b[i], path, holes, budget);
      path.pop();
      if (!same) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const objectA = a as Record<string, unknown>;
  const objectB = b as Record<string, unknown>;
  const keys = Object.keys(objectB);
  const keysA = Object.keys(objectA);
  if (keys.length !== keysA.length) return false;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    // `copy[key] = value` would set the prototype instead of the property.
    if (key !== keysA[k] || key === '__proto__') return false;
    path.push(key);
    const same = findHoles(objectA[key], objectB[key], path, holes, budget);
    path.pop();
    if (!same) return false;
  }
  return true;
}

/** The containers to copy for `holes`, as a tree from the root: each copied once per text. */
function copySteps(holes: readonly Hole[]): CopyStep[] {
  interface Draft {
    key: string | number;
    hole: number;
    children: Draft[];
  }
  const root: Draft[] = [];
  holes.forEach((hole, h) => {
    let level = root;
    hole.path.forEach((key, depth) => {
      const last = depth === hole.path.length - 1;
      let step = level.find((candidate) => candidate.key === key);
      if (step === undefined) {
        step = { key, hole: last ? h : -1, children: [] };
        level.push(step);
      }
      level = step.children;
    });
  });
  return root;
}

/** A copy of `source` with `values` at the holes: the containers on the way are copied, the rest shared. */
function fill(steps: readonly CopyStep[], source: object, values: readonly unknown[]): object {
  const copy = (Array.isArray(source) ? source.slice() : { ...source }) as Record<string | number, unknown>;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    copy[step.key] = step.hole >= 0 ? values[step.hole] : fill(step.children, (source as Record<string | number, object>)[step.key]!, values);
  }
  return copy;
}

/** Writes `values` at the holes of `target` itself. */
function fillInPlace(steps: readonly CopyStep[], target: object, values: readonly unknown[]): void {
  const container = target as Record<string | number, unknown>;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    if (step.hole >= 0) container[step.key] = values[step.hole];
    else fillInPlace(step.children, container[step.key] as object, values);
  }
}

/** The index of the quote that closes the string whose text starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1) {
    let backslashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if ((backslashes & 1) === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The end of the run of number characters (`-+.eE0-9`) that starts at `from`. */
function numberEnd(text: string, from: number): number {
  let end = from;
  for (;;) {
    const code = text.charCodeAt(end);
    if ((code >= 48 && code <= 57) || code === 45 || code === 43 || code === 46 || code === 101 || code === 69) end++;
    else return end;
  }
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}
