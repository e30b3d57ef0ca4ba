import { JsonValue } from '../types/events.js';
import { ESCAPED, LITERALS, NOT_NUMBER, advanceNumber, digitsKeepState, hexValue, isNumberEnd, numberStart } from './jsonGrammar.js';
import { DEFAULT_PREVIEW_MAX_DEPTH, DEFAULT_PREVIEW_MAX_CHARS } from './PartialJsonOptions.js';
import type { PartialJsonOptions, PartialJsonStop } from './PartialJsonOptions.js';
import { KEY_START, PUNCTUATION, PartialJsonTree, VALUE_START } from './PartialJsonTree.js';

export * from './PartialJsonOptions.js';

// A lexer over the tokens (strings, numbers, literals); the punctuation and the value are its `PartialJsonTree`'s.
// What the next character is part of (plain numbers: isolated modules do not inline a `const enum` across the build).
const BETWEEN = 0; // between tokens: whitespace, or what the tree allows (punctuation, a value, a key)
const STRING = 1;
const ESCAPE = 2; // after a backslash
const UNICODE = 3; // inside \uXXXX
const NUMBER = 4;
const LITERAL = 5; // inside true, false or null
const STOPPED = 6;

// The characters the string loop looks for: here, since the CommonJS build reads an import at every use.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * An incremental, tolerant JSON reader for previews: push the text of a value in pieces and read, at any moment, the value so
 * far with its open strings, arrays and objects closed. For display only (the arguments of a tool call as the model writes
 * them), never for execution.
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
 * - **Built in place.** The root object or array is created once and updated as text arrives; each character is examined once
 *   (one that ends a number, twice) and never re-read with later pieces, so a whole value costs time linear in its length,
 *   however it is cut. Consumers must not mutate the value, and must expect it to change under them: copy it
 *   (`structuredClone`) to keep a snapshot, and do not rely on its identity to detect changes.
 * - **Strings** appear at their opening quote, as `''`, and grow as their text arrives (an escape appears once whole).
 * - **Numbers** appear once complete: when the character after them arrives (`,`, `]`, `}`, whitespace). A number that is the
 *   whole text appears at {@link end}. A literal (`true`, `false`, `null`) appears at its last letter. Neither ever shows a
 *   value it will not keep.
 * - **Keys** appear once the key string is complete and its value has begun (for a number or a literal, once that value is
 *   complete), never with a placeholder.
 * - Keys such as `__proto__`, `constructor` and `prototype` become own data properties of plain objects, as `JSON.parse` makes
 *   them: no prototype is changed, in this library or elsewhere.
 *
 * "Prefix" means: every string is a prefix of the string at the same place in the final value, every array holds at most the
 * final elements (all but its last already equal to them), every object holds a subset of the final keys, and every number,
 * boolean and null is final. (With a duplicate key, the last value wins as in `JSON.parse`, so an earlier preview may have
 * shown the earlier one.)
 *
 * **Bounds and faults.** At the first character that breaks JSON, past `maxDepth` nested containers or past `maxSize`
 * characters, the preview stops updating and keeps what it had; {@link stopped} says why. No error is thrown: whether the
 * arguments are valid is decided when the call is whole, by `JSON.parse`.
 *
 * @example
 * ```ts
 * import { PartialJson } from 'rxjs-llm-stream/core';
 *
 * const preview = new PartialJson();
 * preview.push('{"query":"weather in Zü');
 * preview.value; // { query: 'weather in Zü' }
 * preview.push('rich"}');
 * preview.value; // { query: 'weather in Zürich' } (the same object, updated)
 * ```
 */
export class PartialJson {
  readonly #maxDepth: number;
  readonly #maxSize: number;
  #mode = BETWEEN;
  protected readonly tree = new PartialJsonTree();
  #size = 0;
  #examined = 0;
  #stopReason: PartialJsonStop | null = null;
  // The string being read. Appended with `+=` (a rope in V8), so growing it costs O(piece).
  #text = '';
  #textIsKey = false;
  #unicodeDigits = 0;
  #unicodeCode = 0;
  // The number being read: its text so far (it may span pieces) and where it is in the grammar.
  #numberText = '';
  #numberState = NOT_NUMBER;
  #literalWord = '';
  #literalValue: JsonValue = null;
  #literalAt = 0;

  constructor(options: PartialJsonOptions = {}) {
    this.#maxDepth = options.maxDepth ?? DEFAULT_PREVIEW_MAX_DEPTH;
    this.#maxSize = options.maxSize ?? DEFAULT_PREVIEW_MAX_CHARS;
  }

  /**
   * The value so far: `undefined` until one has begun. The same object or array throughout (for a root string, the text so
   * far); updated in place by {@link push}.
   */
  get value(): JsonValue | undefined {
    return this.tree.value;
  }

  /** Why the preview stopped updating, or `null` while it follows the text. */
  get stopped(): PartialJsonStop | null {
    return this.#stopReason;
  }

  /**
   * How many times a character was looked at, in total: at most twice the length of the text read (a character that ends a
   * number is looked at again in its own right). For tests and benchmarks that check the cost stays linear.
   */
  get charactersExamined(): number {
    return this.#examined;
  }

  /** Reads the next piece of the text and updates {@link value}. */
  push(fragment: string): void {
    if (this.#mode === STOPPED || fragment.length === 0) return;
    let end = fragment.length;
    const overflow = end > this.#maxSize - this.#size;
    if (overflow) end = this.#maxSize - this.#size;
    this.#size += end;
    // Where the current string run (or number) began in this piece: text is copied in runs, not
    // character by character, and a run that continues into the next piece is flushed at the end.
    let runStart = 0;
    let i = 0;
    while (i < end) {
      switch (this.#mode) {
        case STRING: {
          // The common case, kept tight: plain characters up to a quote, a backslash or a control
          // character.
          let c = fragment.charCodeAt(i);
          this.#examined++;
          while (c !== QUOTE && c !== BACKSLASH && c >= 0x20) {
            if (++i === end) break;
            c = fragment.charCodeAt(i);
            this.#examined++;
          }
          if (i === end) break;
          this.#text += fragment.slice(runStart, i);
          i++;
          if (c === QUOTE) this.#endString();
          else if (c === BACKSLASH) this.#mode = ESCAPE;
          else return this.#stop('invalid-json'); // a raw control character, which JSON.parse refuses
          break;
        }
        case ESCAPE: {
          const c = fragment.charCodeAt(i++);
          this.#examined++;
          if (c === 0x75) {
            this.#mode = UNICODE;
            this.#unicodeDigits = 0;
            this.#unicodeCode = 0;
            break;
          }
          const escaped = ESCAPED[c];
          if (escaped === undefined) return this.#stop('invalid-json');
          this.#text += escaped;
          this.#mode = STRING;
          runStart = i;
          break;
        }
        case UNICODE: {
          const digit = hexValue(fragment.charCodeAt(i++));
          this.#examined++;
          if (digit < 0) return this.#stop('invalid-json');
          this.#unicodeCode = this.#unicodeCode * 16 + digit;
          if (++this.#unicodeDigits === 4) {
            // A lone surrogate is kept as JSON.parse keeps it; a pair's halves join in the string.
            this.#text += String.fromCharCode(this.#unicodeCode);
            this.#mode = STRING;
            runStart = i;
          }
          break;
        }
        case NUMBER: {
          let c = fragment.charCodeAt(i);
          this.#examined++;
          // Digits that only lengthen the number are the common case, kept tight as in strings.
          if (digitsKeepState(this.#numberState)) {
            while (c >= 0x30 && c <= 0x39) {
              if (++i === end) break;
              c = fragment.charCodeAt(i);
              this.#examined++;
            }
            if (i === end) break;
          }
          const next = advanceNumber(this.#numberState, c);
          if (next !== NOT_NUMBER) {
            this.#numberState = next;
            i++;
            break;
          }
          // Only a character that may follow a number completes it (`1.5.`, `01`, `12a` are
          // refused here, before a number the text will not keep could appear).
          if (!isNumberEnd(this.#numberState) || !this.#endsNumber(c)) return this.#stop('invalid-json');
          // That character is then read again in its own right (the one character examined twice).
          this.#numberText += fragment.slice(runStart, i);
          this.#scalar(Number(this.#numberText));
          break;
        }
        case LITERAL: {
          const c = fragment.charCodeAt(i++);
          this.#examined++;
          if (c !== this.#literalWord.charCodeAt(this.#literalAt)) return this.#stop('invalid-json');
          if (++this.#literalAt === this.#literalWord.length) this.#scalar(this.#literalValue);
          break;
        }
        default: {
          // Between tokens.
          const c = fragment.charCodeAt(i++);
          this.#examined++;
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
          if (!this.#between(c)) return this.#stop('invalid-json');
          if (this.#mode === STOPPED) return; // the depth bound
          // A string or a number starting here is copied from the next character (a string) or
          // from this one (a number).
          runStart = this.#mode === NUMBER ? i - 1 : i;
        }
      }
    }
    // The piece ends inside a string or a number: keep what it had of it.
    if (this.#mode === STRING || this.#mode === ESCAPE || this.#mode === UNICODE) {
      if (this.#mode === STRING) this.#text += fragment.slice(runStart, end);
      // An open string's text so far goes to its slot once per piece, not once per character (an
      // escape cut in two appears with the next piece).
      if (!this.#textIsKey) this.tree.update(this.#text);
    } else if (this.#mode === NUMBER) {
      this.#numberText += fragment.slice(runStart, end);
    }
    if (overflow) this.#stop('max-size');
  }

  /**
   * Says the text is complete. Only a number that is the whole text changes the preview (it appears now, since no character
   * will follow to complete it); anything still open stays as it is.
   */
  end(): void {
    if (this.#mode === NUMBER && this.tree.depth === 0 && isNumberEnd(this.#numberState)) this.#scalar(Number(this.#numberText));
  }

  /** Reads a character between tokens (not whitespace); false when JSON allows none here. */
  #between(c: number): boolean {
    const found = this.tree.punctuate(c);
    if (found === VALUE_START) return this.#startValue(c);
    if (found === KEY_START) return this.#startKey(c);
    return found === PUNCTUATION;
  }

  #startValue(c: number): boolean {
    if (c === QUOTE) {
      this.#text = '';
      this.#textIsKey = false;
      this.tree.begin(''); // the slot (and its key) appears with the opening quote
      this.#mode = STRING;
      return true;
    }
    if (c === 0x7b) return this.#open(false);
    if (c === 0x5b) return this.#open(true);
    const numberState = numberStart(c);
    if (numberState !== NOT_NUMBER) {
      this.#numberText = '';
      this.#numberState = numberState;
      this.#mode = NUMBER;
      return true;
    }
    const literal = LITERALS[c];
    if (literal === undefined) return false;
    [this.#literalWord, this.#literalValue] = literal;
    this.#literalAt = 1;
    this.#mode = LITERAL;
    return true;
  }

  // A method of its own, though small: written out in `startValue`, it made nested text 3% slower to read.
  #open(isArray: boolean): boolean {
    if (this.tree.depth >= this.#maxDepth) this.#stop('max-depth');
    else this.tree.open(isArray);
    return true;
  }

  #startKey(c: number): boolean {
    if (c !== QUOTE) return false;
    this.#text = '';
    this.#textIsKey = true;
    this.#mode = STRING;
    return true;
  }

  #endString(): void {
    if (this.#textIsKey) this.tree.setKey(this.#text);
    else {
      this.tree.update(this.#text);
      this.tree.complete();
    }
    this.#mode = BETWEEN;
    this.#text = ''; // do not keep a long string alive twice
  }

  /** True for a character that may follow a number here: whitespace, or inside a container ',' or its closing bracket. */
  #endsNumber(c: number): boolean {
    return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || this.tree.followsValue(c);
  }

  /** A number or literal, read whole: it appears now, and punctuation may follow. */
  #scalar(value: JsonValue): void {
    this.tree.begin(value);
    this.tree.complete();
    this.#mode = BETWEEN;
  }

  /** True while a string value (not a key) is being read, in the slot last begun. */
  protected inStringValue(): boolean {
    return (this.#mode === STRING || this.#mode === ESCAPE || this.#mode === UNICODE) && !this.#textIsKey;
  }

  #stop(reason: PartialJsonStop): void {
    // A string value open here keeps the text it had up to this point.
    const inString = this.inStringValue();
    if (inString) this.tree.update(this.#text);
    this.#mode = STOPPED;
    this.#stopReason = reason;
    // Nothing more will be read: drop the state that only reading needed.
    this.tree.release(inString);
    this.#text = '';
    this.#numberText = '';
  }
}
