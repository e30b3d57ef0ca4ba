import { JsonValue } from '../events.js';

/**
 * Bounds of a {@link PartialJson}; past either, the preview stops updating (no error: it is display only).
 *
 * @example
 * ```ts
 * import { PartialJson, type PartialJsonOptions } from 'rxjs-llm-stream';
 *
 * const options: PartialJsonOptions = { maxDepth: 16, maxSize: 64 * 1024 };
 * const preview = new PartialJson(options);
 * ```
 */
export interface PartialJsonOptions {
  /** Containers nested deeper than this are not followed. Default {@link DEFAULT_PREVIEW_MAX_DEPTH} (64). */
  readonly maxDepth?: number;
  /** Characters (UTF-16 code units) read at most. Default {@link DEFAULT_PREVIEW_MAX_SIZE} (1 MiB). */
  readonly maxSize?: number;
}

/**
 * Why a {@link PartialJson} stopped updating its preview.
 *
 * @example
 * ```ts
 * import type { PartialJsonStop } from 'rxjs-llm-stream';
 *
 * const notes: Record<PartialJsonStop, string> = { 'invalid-json': 'malformed', 'max-depth': 'too deep', 'max-size': 'too long' };
 * ```
 */
export type PartialJsonStop = 'invalid-json' | 'max-depth' | 'max-size';

/**
 * The default nesting bound of a preview: 64 containers.
 *
 * @example
 * ```ts
 * import { PartialJson, DEFAULT_PREVIEW_MAX_DEPTH } from 'rxjs-llm-stream';
 *
 * const shallow = new PartialJson({ maxDepth: DEFAULT_PREVIEW_MAX_DEPTH / 4 });
 * ```
 */
export const DEFAULT_PREVIEW_MAX_DEPTH = 64;
/**
 * The default size bound of a preview, in characters: 1 MiB (1,048,576).
 *
 * @example
 * ```ts
 * import { PartialJson, DEFAULT_PREVIEW_MAX_SIZE } from 'rxjs-llm-stream';
 *
 * const roomy = new PartialJson({ maxSize: 4 * DEFAULT_PREVIEW_MAX_SIZE });
 * ```
 */
export const DEFAULT_PREVIEW_MAX_SIZE = 1024 * 1024;

type JsonObject = { [key: string]: JsonValue };

/** An open array or object, and for an object the key whose value is being read. */
interface Frame {
  readonly container: JsonValue[] | JsonObject;
  readonly isArray: boolean;
  key: string;
}

// What the next character may be. Plain numbers rather than a `const enum`, which isolated modules
// do not inline across the build.
const VALUE = 0; // a value (at the root, after ':' or after ',' in an array)
const VALUE_OR_CLOSE = 1; // just after '[': a value or ']'
const KEY_OR_CLOSE = 2; // just after '{': a key or '}'
const KEY = 3; // after ',' in an object
const COLON = 4;
const AFTER_VALUE = 5; // ',' or the closing bracket
const STRING = 6;
const ESCAPE = 7; // after a backslash
const UNICODE = 8; // inside \uXXXX
const NUMBER = 9;
const LITERAL = 10; // inside true, false or null
const DONE = 11; // the root value is complete: only whitespace may follow
const STOPPED = 12;

// Where a number is in its grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRACTION = 4;
const N_E = 5;
const N_EXPONENT_SIGN = 6;
const N_EXPONENT = 7;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const LITERALS: Readonly<Record<number, readonly [string, JsonValue]>> = {
  0x74: ['true', true],
  0x66: ['false', false],
  0x6e: ['null', null],
};

const ESCAPED: Readonly<Record<number, string>> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/**
 * An incremental, tolerant JSON reader for previews: push the text of a value in pieces and read,
 * at any moment, the value so far with its open strings, arrays and objects closed. For display
 * only (the arguments of a tool call as the model writes them), never for execution.
 *
 * Think of it as `JSON.parse` that can be asked "what do you have so far?" halfway through.
 *
 * ```
 * push('{"city":"Zü')      value: { city: 'Zü' }
 * push('rich","days":[1')  value: { city: 'Zürich', days: [] }     (the 1 may still grow into 10)
 * push(',2]}')             value: { city: 'Zürich', days: [1, 2] }
 * ```
 *
 * The rules, chosen so that every preview is a prefix of the final value (see below):
 *
 * - **Built in place.** The root object or array is created once and updated as text arrives; each
 *   character is examined once (one that ends a number, twice) and never re-read with later pieces,
 *   so a whole value costs time linear in its length, however it is cut. Consumers must not mutate the value, and must expect it to change under them: copy it
 *   (`structuredClone`) to keep a snapshot, and do not rely on its identity to detect changes.
 * - **Strings** appear at their opening quote, as `''`, and grow as their text arrives (an escape
 *   appears once whole).
 * - **Numbers** appear once complete: when the character after them arrives (`,`, `]`, `}`,
 *   whitespace). A number that is the whole text appears at {@link end}. A literal (`true`, `false`,
 *   `null`) appears at its last letter. Neither ever shows a value it will not keep.
 * - **Keys** appear once the key string is complete and its value has begun (for a number or a
 *   literal, once that value is complete), never with a placeholder.
 * - Keys such as `__proto__`, `constructor` and `prototype` become own data properties of plain
 *   objects, as `JSON.parse` makes them: no prototype is changed, in this library or elsewhere.
 *
 * "Prefix" means: every string is a prefix of the string at the same place in the final value,
 * every array holds at most the final elements (all but its last already equal to them), every
 * object holds a subset of the final keys, and every number, boolean and null is final. (With a
 * duplicate key, the last value wins as in `JSON.parse`, so an earlier preview may have shown the
 * earlier one.)
 *
 * **Bounds and faults.** At the first character that breaks JSON, past `maxDepth` nested
 * containers or past `maxSize` characters, the preview stops updating and keeps what it had;
 * {@link stopped} says why. No error is thrown: whether the arguments are valid is decided when the
 * call is whole, by `JSON.parse`.
 *
 * @example
 * ```ts
 * import { PartialJson } from 'rxjs-llm-stream';
 *
 * const preview = new PartialJson();
 * preview.push('{"query":"weather in Zü');
 * preview.value; // { query: 'weather in Zü' }
 * preview.push('rich"}');
 * preview.value; // { query: 'weather in Zürich' } (the same object, updated)
 * ```
 */
export class PartialJson {
  private readonly maxDepth: number;
  private readonly maxSize: number;
  private mode = VALUE;
  private readonly stack: Frame[] = [];
  private root: JsonValue | undefined = undefined;
  private size = 0;
  private examined = 0;
  private stopReason: PartialJsonStop | null = null;
  // The string being read. Appended with `+=` (a rope in V8), so growing it costs O(piece).
  private text = '';
  private textIsKey = false;
  private unicodeDigits = 0;
  private unicodeCode = 0;
  // The number being read: its text so far (it may span pieces) and where it is in the grammar.
  private numberText = '';
  private numberState = N_MINUS;
  private literalWord = '';
  private literalValue: JsonValue = null;
  private literalAt = 0;

  constructor(options: PartialJsonOptions = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_PREVIEW_MAX_DEPTH;
    this.maxSize = options.maxSize ?? DEFAULT_PREVIEW_MAX_SIZE;
  }

  /**
   * The value so far: `undefined` until one has begun. The same object or array throughout (for a
   * root string, the text so far); updated in place by {@link push}.
   */
  get value(): JsonValue | undefined {
    return this.root;
  }

  /** Why the preview stopped updating, or `null` while it follows the text. */
  get stopped(): PartialJsonStop | null {
    return this.stopReason;
  }

  /**
   * How many times a character was looked at, in total: at most twice the length of the text read
   * (a character that ends a number is looked at again in its own right). For tests and benchmarks
   * that check the cost stays linear.
   */
  get charactersExamined(): number {
    return this.examined;
  }

  /** Reads the next piece of the text and updates {@link value}. */
  push(fragment: string): void {
    if (this.mode === STOPPED || fragment.length === 0) return;
    let end = fragment.length;
    const overflow = end > this.maxSize - this.size;
    if (overflow) end = this.maxSize - this.size;
    this.size += end;
    // Where the current string run (or number) began in this piece: text is copied in runs, not
    // character by character, and a run that continues into the next piece is flushed at the end.
    let runStart = 0;
    let i = 0;
    while (i < end) {
      switch (this.mode) {
        case STRING: {
          // The common case, kept tight: plain characters up to a quote, a backslash or a control
          // character.
          let c = fragment.charCodeAt(i);
          this.examined++;
          while (c !== QUOTE && c !== BACKSLASH && c >= 0x20) {
            if (++i === end) break;
            c = fragment.charCodeAt(i);
            this.examined++;
          }
          if (i === end) break;
          this.text += fragment.slice(runStart, i);
          i++;
          if (c === QUOTE) this.endString();
          else if (c === BACKSLASH) this.mode = ESCAPE;
          else return this.stop('invalid-json'); // a raw control character, which JSON.parse refuses
          break;
        }
        case ESCAPE: {
          const c = fragment.charCodeAt(i++);
          this.examined++;
          if (c === 0x75) {
            this.mode = UNICODE;
            this.unicodeDigits = 0;
            this.unicodeCode = 0;
            break;
          }
          const escaped = ESCAPED[c];
          if (escaped === undefined) return this.stop('invalid-json');
          this.text += escaped;
          this.mode = STRING;
          runStart = i;
          break;
        }
        case UNICODE: {
          const digit = hexValue(fragment.charCodeAt(i++));
          this.examined++;
          if (digit < 0) return this.stop('invalid-json');
          this.unicodeCode = this.unicodeCode * 16 + digit;
          if (++this.unicodeDigits === 4) {
            // A lone surrogate is kept as JSON.parse keeps it; a pair's halves join in the string.
            this.text += String.fromCharCode(this.unicodeCode);
            this.mode = STRING;
            runStart = i;
          }
          break;
        }
        case NUMBER: {
          const c = fragment.charCodeAt(i);
          this.examined++;
          if (this.advanceNumber(c)) {
            i++;
            break;
          }
          // Only a character that may follow a number completes it (`1.5.`, `01`, `12a` are
          // refused here, before a number the text will not keep could appear).
          if (!isNumberEnd(this.numberState) || !this.endsNumber(c)) return this.stop('invalid-json');
          // That character is then read again in its own right (the one character examined twice).
          this.numberText += fragment.slice(runStart, i);
          this.begin(Number(this.numberText));
          this.afterValue();
          break;
        }
        case LITERAL: {
          const c = fragment.charCodeAt(i++);
          this.examined++;
          if (c !== this.literalWord.charCodeAt(this.literalAt)) return this.stop('invalid-json');
          if (++this.literalAt === this.literalWord.length) {
            this.begin(this.literalValue);
            this.afterValue();
          }
          break;
        }
        default: {
          // Between tokens.
          const c = fragment.charCodeAt(i++);
          this.examined++;
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
          if (!this.structural(c)) return this.stop('invalid-json');
          if (this.mode === STOPPED) return; // the depth bound
          // A string or a number starting here is copied from the next character (a string) or
          // from this one (a number).
          runStart = this.mode === NUMBER ? i - 1 : i;
        }
      }
    }
    // The piece ends inside a string or a number: keep what it had of it.
    if (this.mode === STRING || this.mode === ESCAPE || this.mode === UNICODE) {
      if (this.mode === STRING) this.text += fragment.slice(runStart, end);
      // An open string's text so far goes to its slot once per piece, not once per character (an
      // escape cut in two appears with the next piece).
      if (!this.textIsKey) this.update(this.text);
    } else if (this.mode === NUMBER) {
      this.numberText += fragment.slice(runStart, end);
    }
    if (overflow) this.stop('max-size');
  }

  /**
   * Says the text is complete. Only a number that is the whole text changes the preview (it
   * appears now, since no character will follow to complete it); anything still open stays as it is.
   */
  end(): void {
    if (this.mode === NUMBER && this.stack.length === 0 && isNumberEnd(this.numberState)) {
      this.begin(Number(this.numberText));
      this.mode = DONE;
    }
  }

  /** Reads a character between tokens; false when JSON allows none here. */
  private structural(c: number): boolean {
    switch (this.mode) {
      case VALUE_OR_CLOSE:
        if (c === 0x5d) return this.close();
        return this.startValue(c);
      case VALUE:
        return this.startValue(c);
      case KEY_OR_CLOSE:
        if (c === 0x7d) return this.close();
        return this.startKey(c);
      case KEY:
        return this.startKey(c);
      case COLON:
        if (c !== 0x3a) return false;
        this.mode = VALUE;
        return true;
      case AFTER_VALUE: {
        const frame = this.stack[this.stack.length - 1]!;
        if (c === 0x2c) {
          this.mode = frame.isArray ? VALUE : KEY;
          return true;
        }
        if (c === (frame.isArray ? 0x5d : 0x7d)) return this.close();
        return false;
      }
      default:
        // DONE: only whitespace may follow a complete value.
        return false;
    }
  }

  private startValue(c: number): boolean {
    if (c === QUOTE) {
      this.text = '';
      this.textIsKey = false;
      this.begin(''); // the slot (and its key) appears with the opening quote
      this.mode = STRING;
      return true;
    }
    if (c === 0x7b) return this.open({});
    if (c === 0x5b) return this.open([]);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.numberText = '';
      this.numberState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      this.mode = NUMBER;
      return true;
    }
    const literal = LITERALS[c];
    if (literal === undefined) return false;
    [this.literalWord, this.literalValue] = literal;
    this.literalAt = 1;
    this.mode = LITERAL;
    return true;
  }

  private startKey(c: number): boolean {
    if (c !== QUOTE) return false;
    this.text = '';
    this.textIsKey = true;
    this.mode = STRING;
    return true;
  }

  private endString(): void {
    if (this.textIsKey) {
      this.stack[this.stack.length - 1]!.key = this.text;
      this.mode = COLON;
    } else {
      this.update(this.text);
      this.afterValue();
    }
    this.text = ''; // do not keep a long string alive twice
  }

  /** True for a character that may follow a number here: whitespace, or inside a container ',' or its closing bracket. */
  private endsNumber(c: number): boolean {
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return true;
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return false;
    return c === 0x2c || c === (frame.isArray ? 0x5d : 0x7d);
  }

  /** Moves a number one character on in its grammar; false when the character is not part of it. */
  private advanceNumber(c: number): boolean {
    const digit = c >= 0x30 && c <= 0x39;
    switch (this.numberState) {
      case N_MINUS:
        if (!digit) return false;
        this.numberState = c === 0x30 ? N_ZERO : N_INT;
        return true;
      case N_ZERO:
      case N_INT:
        if (digit && this.numberState === N_INT) return true;
        if (c === 0x2e) this.numberState = N_DOT;
        else if (c === 0x65 || c === 0x45) this.numberState = N_E;
        else return false; // a digit after a leading 0 ends the number, and is then refused
        return true;
      case N_DOT:
        if (!digit) return false;
        this.numberState = N_FRACTION;
        return true;
      case N_FRACTION:
        if (digit) return true;
        if (c !== 0x65 && c !== 0x45) return false;
        this.numberState = N_E;
        return true;
      case N_E:
        if (c === 0x2b || c === 0x2d) {
          this.numberState = N_EXPONENT_SIGN;
          return true;
        }
        if (!digit) return false;
        this.numberState = N_EXPONENT;
        return true;
      default:
        // N_EXPONENT_SIGN, N_EXPONENT
        if (!digit) return false;
        this.numberState = N_EXPONENT;
        return true;
    }
  }

  private open(container: JsonValue[] | JsonObject): boolean {
    if (this.stack.length >= this.maxDepth) {
      this.stop('max-depth');
      return true;
    }
    this.begin(container);
    const isArray = Array.isArray(container);
    this.stack.push({ container, isArray, key: '' });
    this.mode = isArray ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
    return true;
  }

  private close(): boolean {
    this.stack.pop();
    this.afterValue();
    return true;
  }

  private afterValue(): void {
    this.mode = this.stack.length === 0 ? DONE : AFTER_VALUE;
  }

  /** Puts a value that has just begun into a new slot of the open container (or at the root). */
  private begin(value: JsonValue): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) this.root = value;
    else if (frame.isArray) (frame.container as JsonValue[]).push(value);
    else defineOwn(frame.container as JsonObject, frame.key, value);
  }

  /** Replaces the value in the slot last begun (a growing string). */
  private update(value: JsonValue): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) {
      this.root = value;
    } else if (frame.isArray) {
      const array = frame.container as JsonValue[];
      array[array.length - 1] = value;
    } else {
      // A plain assignment is safe here, even to `__proto__`: `begin` made the key an own data
      // property, and an assignment finds that before any setter on the prototype.
      (frame.container as JsonObject)[frame.key] = value;
    }
  }

  private stop(reason: PartialJsonStop): void {
    // A string value open here keeps the text it had up to this point.
    const inString = this.mode === STRING || this.mode === ESCAPE || this.mode === UNICODE;
    if (inString && !this.textIsKey) this.update(this.text);
    this.mode = STOPPED;
    this.stopReason = reason;
    // Nothing more will be read: drop the state that only reading needed.
    this.stack.length = 0;
    this.text = '';
    this.numberText = '';
  }
}

/**
 * Sets `key` as an own, enumerable data property, as `JSON.parse` does: an assignment to
 * `__proto__` would change the object's prototype instead.
 */
function defineOwn(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function isNumberEnd(state: number): boolean {
  return state === N_ZERO || state === N_INT || state === N_FRACTION || state === N_EXPONENT;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}
