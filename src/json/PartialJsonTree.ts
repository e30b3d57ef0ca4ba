/**
 * The value a `PartialJson` builds in place as it reads, and where in it the reading is: the root,
 * the stack of the arrays and objects still open, and which punctuation may come next. The reader
 * reads the tokens (strings, numbers, literals) and says where each value begins and ends; this
 * puts each in its slot and reads the `[ ] { } : ,` between them. Not exported from the package.
 */
import type { JsonPath, JsonValue } from '../types/replyParts.js';

type JsonObject = { [key: string]: JsonValue };

/** An open array or object, and for an object the key whose value is being read. */
interface Frame {
  readonly container: JsonValue[] | JsonObject;
  readonly isArray: boolean;
  key: string;
  /** Whether this container sits on the watched path (see {@link PartialJsonTree.watch}): its path is a prefix of it. */
  readonly onPath: boolean;
}

// What may come next between tokens. Plain numbers rather than a `const enum`, which isolated
// modules do not inline across the build.
const VALUE = 0; // a value (at the root, after ':' or after ',' in an array)
const VALUE_OR_CLOSE = 1; // just after '[': a value or ']'
const KEY_OR_CLOSE = 2; // just after '{': a key or '}'
const KEY = 3; // after ',' in an object
const COLON = 4;
const AFTER_VALUE = 5; // ',' or the closing bracket
const DONE = 6; // the root value is complete: only whitespace may follow

// What `PartialJsonTree.punctuate` found a character between tokens to be.
/** Punctuation where JSON allows it, now read. */
export const PUNCTUATION = 0;
/** The first character of a value, where a value may begin (the reader checks it starts one). */
export const VALUE_START = 1;
/** The first character of a key, where a key may begin (the reader checks it is a quote). */
export const KEY_START = 2;
/** A character JSON does not allow here. */
export const REFUSED = 3;

/**
 * A JSON value under construction. Each value read goes into a new slot of the innermost open
 * container (or at the root) when it begins: {@link begin} for a scalar, {@link open} for an array
 * or object, which then holds the values that follow until its closing bracket. A growing string
 * is put in its slot again with {@link update}. Object keys become own data properties, as
 * `JSON.parse` makes them, whatever their name.
 */
export class PartialJsonTree {
  readonly #stack: Frame[] = [];
  // The stack's last frame, which every value reads: kept apart, so that reading it is one load
  // and no bounds check (measured: 1.5% of the instructions of a 1 MB read).
  #top: Frame | undefined = undefined;
  #root: JsonValue | undefined = undefined;
  #expected = VALUE;
  // The array whose elements are counted as they complete, by its path: `null` when none is watched.
  #watchedPath: JsonPath | null = null;
  #watchedArray: JsonValue[] | undefined = undefined;
  #elementsDone = 0;
  // The path that was open when reading stopped (`release`), which nothing will complete any more.
  #frozenPath: JsonPath | null | undefined = undefined;

  /** The value so far: `undefined` until one has begun. */
  get value(): JsonValue | undefined {
    return this.#root;
  }

  /**
   * Counts the elements of the array at `path` as each completes ({@link finishedElements}). Set
   * before reading begins. With a duplicate key the array at the path is the last one opened.
   */
  watch(path: JsonPath): void {
    this.#watchedPath = path;
  }

  /** The watched array, once it has begun (the same array throughout). */
  get watched(): JsonValue[] | undefined {
    return this.#watchedArray;
  }

  /** How many elements of the watched array are complete: they are its first ones, and will not change. */
  get finishedElements(): number {
    return this.#elementsDone;
  }

  /**
   * The path of the innermost value still being read, `null` when none is (nothing has begun, or
   * the root is complete). Every value present in {@link value} whose path is not a prefix of it is
   * complete. `inString`: a string value is being read, in the slot last begun.
   */
  openPath(inString: boolean): JsonPath | null {
    if (this.#frozenPath !== undefined) return this.#frozenPath;
    const stack = this.#stack;
    if (stack.length === 0) return inString ? [] : null;
    const path: (string | number)[] = [];
    for (let i = 1; i < stack.length; i++) path.push(slotOf(stack[i - 1]!));
    if (inString) path.push(slotOf(this.#top!));
    return path;
  }

  /** How many arrays and objects are open: 0 at the root. */
  get depth(): number {
    return this.#stack.length;
  }

  /**
   * Reads a character between tokens (not whitespace): punctuation is read here; a character
   * where a value or key may begin is left to the reader. Answers {@link PUNCTUATION},
   * {@link VALUE_START}, {@link KEY_START} or {@link REFUSED}.
   */
  punctuate(c: number): number {
    switch (this.#expected) {
      case VALUE_OR_CLOSE:
        if (c === 0x5d) return this.#close();
        return VALUE_START;
      case VALUE:
        return VALUE_START;
      case KEY_OR_CLOSE:
        if (c === 0x7d) return this.#close();
        return KEY_START;
      case KEY:
        return KEY_START;
      case COLON:
        if (c !== 0x3a) return REFUSED;
        this.#expected = VALUE;
        return PUNCTUATION;
      case AFTER_VALUE: {
        const frame = this.#top!;
        if (c === 0x2c) {
          this.#expected = frame.isArray ? VALUE : KEY;
          return PUNCTUATION;
        }
        if (c === (frame.isArray ? 0x5d : 0x7d)) return this.#close();
        return REFUSED;
      }
      default:
        // DONE: only whitespace may follow a complete value.
        return REFUSED;
    }
  }

  /** True for a character that may follow a value inside a container: ',' or its closing bracket. */
  followsValue(c: number): boolean {
    const frame = this.#top;
    if (frame === undefined) return false;
    return c === 0x2c || c === (frame.isArray ? 0x5d : 0x7d);
  }

  /** Names the slot of the next value in the innermost open container, an object: a ':' comes next. */
  setKey(key: string): void {
    this.#top!.key = key;
    this.#expected = COLON;
  }

  /** Puts a value that has just begun into a new slot of the open container (or at the root). */
  begin(value: JsonValue): void {
    const frame = this.#top;
    if (frame === undefined) this.#root = value;
    else if (frame.isArray) (frame.container as JsonValue[]).push(value);
    else defineOwn(frame.container as JsonObject, frame.key, value);
  }

  /** Replaces the value in the slot last begun (a growing string). */
  update(value: JsonValue): void {
    const frame = this.#top;
    if (frame === undefined) {
      this.#root = value;
    } else if (frame.isArray) {
      const array = frame.container as JsonValue[];
      array[array.length - 1] = value;
    } else {
      // A plain assignment is safe here, even to `__proto__`: `begin` made the key an own data
      // property, and an assignment finds that before any setter on the prototype.
      (frame.container as JsonObject)[frame.key] = value;
    }
  }

  /** Says the value last begun is complete: a ',' or a closing bracket comes next (or nothing, at the root). */
  complete(): void {
    const frame = this.#top;
    this.#expected = frame === undefined ? DONE : AFTER_VALUE;
    if (frame !== undefined && frame.container === this.#watchedArray) this.#elementsDone++;
  }

  /** Begins an empty array or object, which then holds the values that begin until its closing bracket. */
  open(isArray: boolean): void {
    const container: JsonValue[] | JsonObject = isArray ? [] : {};
    this.begin(container);
    const onPath = this.#watchedPath !== null && this.#leadsToWatched();
    if (onPath && isArray && this.#stack.length === this.#watchedPath!.length) {
      this.#watchedArray = container as JsonValue[];
      this.#elementsDone = 0;
    }
    this.#top = { container, isArray, key: '', onPath };
    this.#stack.push(this.#top);
    this.#expected = isArray ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
  }

  /**
   * Forgets the open containers, once nothing more will be read; the value keeps what it has, and
   * {@link openPath} stays what it was (`inString` as there).
   */
  release(inString: boolean): void {
    this.#frozenPath = this.openPath(inString);
    this.#stack.length = 0;
    this.#top = undefined;
  }

  /** Whether a container opening now, in the slot last begun, has a path that is a prefix of the watched path. */
  #leadsToWatched(): boolean {
    const parent = this.#top;
    if (parent === undefined) return true; // the root: the path [] is a prefix of every path
    // The new container will be stack[depth]: its path has `depth` segments, the last its slot in the parent.
    const depth = this.#stack.length;
    return parent.onPath && depth <= this.#watchedPath!.length && this.#watchedPath![depth - 1] === slotOf(parent);
  }

  #close(): number {
    this.#stack.pop();
    this.#top = this.#stack[this.#stack.length - 1];
    this.complete();
    return PUNCTUATION;
  }
}

/** The key or index, in a container, of the value last begun there. */
function slotOf(frame: Frame): string | number {
  return frame.isArray ? (frame.container as JsonValue[]).length - 1 : frame.key;
}

/**
 * Sets `key` as an own, enumerable data property, as `JSON.parse` does: an assignment to
 * `__proto__` would change the object's prototype instead.
 */
function defineOwn(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}
