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
  /**
   * The literals as a recent text read through the template held them: the same characters, copied
   * from that text (every few texts: `RECENT_EVERY` in `JsonTemplateParser`; copied, since a piece
   * cut from it would keep the text's whole chunk alive). V8 compares two strings of one
   * representation (one byte per character, or two) with a `memcmp`, and strings of different ones
   * character by character, several times slower; the decoder makes a chunk two-byte as soon as it
   * holds one character past U+00FF (中, an emoji), and every line cut from it shares that
   * representation. The next text mostly has the representation of the recent ones: compared against
   * these, its envelope costs a `memcmp`.
   */
  readonly recent: string[];
  readonly kinds: readonly HoleKind[];
  /** The value the template was learned from; a hit returns a copy of it with the holes filled in. */
  readonly root: object;
  readonly steps: readonly CopyStep[];
  /** The object or array in `root` that holds each hole, and the hole's key in it: where `reuse` writes. */
  readonly containers: readonly Container[];
  readonly keys: readonly (string | number)[];
  /** Texts read through the template so far (counted until it gets its `pattern`). */
  hits: number;
  /** When (`Date.now()`) the template was made, or last read a multiple of `PATTERN_AFTER` texts. */
  since: number;
  /** The template as one regular expression, made once it has read enough texts (see `templatePattern`). */
  pattern: RegExp | undefined;
  /**
   * What the reader of the values keeps with the shape, undefined until it sets it: `JsonDialectParser`
   * notes there what the payloads of the shape keep, once it found that it cannot change.
   */
  note: unknown;
  /** The containers of `root`, and those on the way to a hole: found at the first `mayChange`. */
  parts: TemplateParts | undefined;
}

/** The containers of a template's value: all of them, and those a text read through it can change. */
interface TemplateParts {
  readonly all: ReadonlySet<object>;
  /** The containers on the way from the root to a hole: a copy of one can hold another value. */
  readonly onHolePaths: ReadonlySet<object>;
}

/** An object or array of a parsed value, written to by key. */
export type Container = Record<string | number, unknown>;

const MAX_HOLES = 8;
/** Containers and values compared when looking for holes; bigger values are not templated. */
const MAX_COMPARED = 512;

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
  const containers = holes.map((hole) => containerOf(value, hole.path));
  const keys = holes.map((hole) => hole.path[hole.path.length - 1]!);
  return {
    literals,
    recent: literals.slice(),
    kinds: holes.map((hole) => hole.kind),
    root: value,
    steps,
    containers,
    keys,
    hits: 0,
    since: Date.now(),
    pattern: undefined,
    note: undefined,
    parts: undefined,
  };
}

/**
 * Whether `container[key]`, in a value read through `template` with `reuse`, can hold another value in
 * the next text read through it: when the key is a hole, when its value holds one, or when the
 * container is not part of the template's value (found elsewhere: nothing is known of it). A value
 * that cannot change is written in the template's literals, the same for every text it reads.
 */
export function mayChange(template: Template, container: object, key: string | number): boolean {
  const parts = (template.parts ??= partsOf(template));
  if (!parts.all.has(container)) return true;
  const containers = template.containers;
  for (let h = 0; h < containers.length; h++) if (containers[h] === container && template.keys[h] === key) return true;
  const value = (container as Container)[key];
  return typeof value === 'object' && value !== null && parts.onHolePaths.has(value);
}

function partsOf(template: Template): TemplateParts {
  const all = new Set<object>();
  const pending: unknown[] = [template.root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null || all.has(value)) continue;
    all.add(value);
    for (const child of Object.values(value)) pending.push(child);
  }
  const onHolePaths = new Set<object>();
  const walk = (steps: readonly CopyStep[], container: Container): void => {
    onHolePaths.add(container);
    for (const step of steps) if (step.hole < 0) walk(step.children, container[step.key] as Container);
  };
  walk(template.steps, template.root as Container);
  return { all, onHolePaths };
}

/** The container of the value at `path` in `root` (the path has at least one key: the root is an object). */
function containerOf(root: object, path: readonly (string | number)[]): Container {
  let container = root as Container;
  for (let depth = 0; depth < path.length - 1; depth++) container = container[path[depth]!] as Container;
  return container;
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

/**
 * Writes `values` at the holes of the template's own value, in the containers found when it was
 * made. Written out hole by hole: each store then sees one object shape and one key (a store in a
 * loop sees them all, and costs ten times as much).
 */
export function writeHoles(template: Template, values: readonly unknown[]): void {
  const containers = template.containers;
  const keys = template.keys;
  const holes = containers.length;
  if (holes > 0) containers[0]![keys[0]!] = values[0];
  if (holes > 1) containers[1]![keys[1]!] = values[1];
  if (holes > 2) containers[2]![keys[2]!] = values[2];
  if (holes > 3) containers[3]![keys[3]!] = values[3];
  for (let h = 4; h < holes; h++) containers[h]![keys[h]!] = values[h];
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}
