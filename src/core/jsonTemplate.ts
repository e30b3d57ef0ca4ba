/**
 * The templates `JsonTemplateParser` reads texts through: how the holes of a shape are found (the
 * values in which two texts of one shape differ), how a template's literals are written, how its
 * value is filled in with the holes of a text, and the token scanning that finds a hole's end.
 */

/** What a hole holds; its token in the text is checked against this before it is parsed. */
export type HoleKind = typeof STRING_HOLE | typeof NUMBER_HOLE;
export const STRING_HOLE = 0;
export const NUMBER_HOLE = 1;

/** A value in which two texts of one shape differ. */
export interface Hole {
  readonly path: readonly (string | number)[];
  readonly kind: HoleKind;
  /** The value in the text the template was learned from, to check the template against it. */
  readonly value: string | number;
}

/** One step of the copy made for each text: the containers on the way from the root to the holes. */
export interface CopyStep {
  readonly key: string | number;
  /** The hole whose value goes at `key`, or -1 for a container to copy and descend into. */
  readonly hole: number;
  readonly children: readonly CopyStep[];
}

/** A shape of text: the literals between its holes, and the value to fill in with the holes' values. */
export interface Template {
  /** `literals.length === holes + 1`: the text is literals[0] hole literals[1] hole ... literals[n]. */
  readonly literals: readonly string[];
  readonly kinds: readonly HoleKind[];
  /** The value the template was learned from; a hit returns a copy of it with the holes filled in. */
  readonly root: object;
  readonly steps: readonly CopyStep[];
}

const MAX_HOLES = 8;
/** Containers and values compared when looking for holes; bigger values are not templated. */
const MAX_COMPARED = 512;
const BACKSLASH = 92;

/**
 * The string and number values in which `a` and `b` differ, when both have the same shape: the same
 * keys in the same order, the same array lengths, and every other value equal. Undefined when they
 * differ in anything else, in more than a few values, or are too big to compare.
 */
export function holesBetween(a: unknown, b: unknown): Hole[] | undefined {
  const holes: Hole[] = [];
  return findHoles(a, b, [], holes, { left: MAX_COMPARED }) ? holes : undefined;
}

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

/** Marks a hole in the text written to find the literals: no server sends these control characters in keys. */
const MARKER = '\u0000\u0001hole';
const WRITTEN_MARKER = JSON.stringify(MARKER).slice(1, -1);

/**
 * The template of `value` with `holes`, as `JSON.stringify` writes it, or undefined when it cannot
 * be written or its holes cannot be told from its literals. The literals come from `JSON.stringify`
 * of the value with a marker string in each hole. The template is not yet checked against the text
 * `value` was read from: the text may not be written as `JSON.stringify` would write it, which only
 * matching the template against it shows (every literal exactly in the text, each hole holding the
 * value it should).
 */
export function makeTemplate(value: object, holes: readonly Hole[]): Template | undefined {
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
  return { literals, kinds: holes.map((hole) => hole.kind), root: value, steps };
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
export function fill(steps: readonly CopyStep[], source: object, values: readonly unknown[]): object {
  const copy = (Array.isArray(source) ? source.slice() : { ...source }) as Record<string | number, unknown>;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    copy[step.key] =
      step.hole >= 0 ? values[step.hole] : fill(step.children, (source as Record<string | number, object>)[step.key]!, values);
  }
  return copy;
}

/** Writes `values` at the holes of `target` itself. */
export function fillInPlace(steps: readonly CopyStep[], target: object, values: readonly unknown[]): void {
  const container = target as Record<string | number, unknown>;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    if (step.hole >= 0) container[step.key] = values[step.hole];
    else fillInPlace(step.children, container[step.key] as object, values);
  }
}

/** The index of the quote that closes the string whose text starts at `from`, or -1. */
export function closingQuote(text: string, from: number): number {
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
export function numberEnd(text: string, from: number): number {
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
