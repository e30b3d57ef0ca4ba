/**
 * What `TextSmoother` releases at a time: a word (with the spaces and punctuation after it, and any
 * before the first word) or a line (with its line break).
 *
 * @example
 * ```ts
 * import { smoothText, type SmoothChunking } from 'rxjs-llm-stream';
 *
 * const chunking: SmoothChunking = 'line';
 * events$.pipe(smoothText({ chunking })).subscribe(render);
 * ```
 */
export type SmoothChunking = 'word' | 'line';

/**
 * Options of {@link TextSmoother}.
 *
 * @example
 * ```ts
 * import { TextSmoother, type TextSmootherOptions } from 'rxjs-llm-stream/core';
 *
 * const options: TextSmootherOptions = { chunking: 'word', locale: 'ja' };
 * const smoother = new TextSmoother(options);
 * ```
 */
export interface TextSmootherOptions {
  /** `'word'` (the default) or `'line'`. */
  readonly chunking?: SmoothChunking;
  /** The locale the words are found for (`Intl.Segmenter`'s); default the runtime's. */
  readonly locale?: string;
  /**
   * Past this many characters held, the next release is all of them: a reply faster than the pace
   * would otherwise fall further behind, and its text pile up, for as long as it streams. Default 2,048.
   */
  readonly maxPendingChars?: number;
}

const DEFAULT_MAX_PENDING_CHARS = 2048;

/** Where `Intl.Segmenter` is missing (older runtimes), a word is what is not space, then the space after it. */
const WORD_AND_SPACE = /^\s*\S+\s+/u;

/** Text that ends in white space: its last word is whole. */
const ENDS_IN_SPACE = /\s$/u;

/**
 * Text in, a whole unit at a time out: the core of `smoothText`. `push` adds text as it arrived,
 * `next` takes the first unit once it is whole (a word once white space or the next word follows it,
 * so that a word cut by the network is never shown in two pieces; a line once its line break came), and `rest` takes
 * everything held (at the end of the text). What goes in comes out, in order, whatever the chunks.
 *
 * Words are found by `Intl.Segmenter` (`granularity: 'word'`), so that languages written without
 * spaces between words (Japanese, Chinese, Thai) are released a word at a time too.
 *
 * @example
 * ```ts
 * import { TextSmoother } from 'rxjs-llm-stream/core';
 *
 * const smoother = new TextSmoother();
 * smoother.push('The sky is bl');
 * smoother.next(); // 'The '
 * smoother.next(); // 'sky '
 * smoother.next(); // 'is '
 * smoother.next(); // undefined: 'bl' may not be the whole word
 * smoother.rest(); // 'bl'
 * ```
 */
export class TextSmoother {
  #held = '';
  readonly #chunking: SmoothChunking;
  readonly #segmenter: Intl.Segmenter | undefined;
  readonly #maxPendingChars: number;

  constructor(options: TextSmootherOptions = {}) {
    this.#chunking = options.chunking ?? 'word';
    this.#maxPendingChars = options.maxPendingChars ?? DEFAULT_MAX_PENDING_CHARS;
    this.#segmenter =
      this.#chunking === 'word' && typeof Intl.Segmenter === 'function'
        ? new Intl.Segmenter(options.locale, { granularity: 'word' })
        : undefined;
  }

  /** The characters (UTF-16 units) held. */
  get pending(): number {
    return this.#held.length;
  }

  /** Adds text as it arrived. */
  push(text: string): void {
    this.#held += text;
  }

  /** The first whole unit, taken from what is held; `undefined` when none is whole yet. */
  next(): string | undefined {
    if (this.#held.length > this.#maxPendingChars) return this.rest();
    const end = this.#chunking === 'line' ? lineEnd(this.#held) : this.#wordEnd();
    if (end === undefined) return undefined;
    const unit = this.#held.slice(0, end);
    this.#held = this.#held.slice(end);
    return unit;
  }

  /** All that is held, whole or not; nothing is held after. */
  rest(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }

  /** Where the first word and what follows it end: at the start of the second word. */
  #wordEnd(): number | undefined {
    if (this.#segmenter === undefined) {
      const match = WORD_AND_SPACE.exec(this.#held);
      return match === null ? undefined : match[0].length;
    }
    let words = 0;
    // The segments are read lazily: a unit is found in the first few, however long the text held.
    for (const segment of this.#segmenter.segment(this.#held)) {
      if (segment.isWordLike !== true) continue;
      if (++words === 2) return segment.index;
    }
    // One word, and white space after it: the space ended the word, and the unit is all that is held.
    return words === 1 && ENDS_IN_SPACE.test(this.#held) ? this.#held.length : undefined;
  }
}

/** The end of the first line, its line break included. */
function lineEnd(text: string): number | undefined {
  const at = text.indexOf('\n');
  return at < 0 ? undefined : at + 1;
}
