import { ProtocolError } from '../errors/errors.js';
import { TextBuilder } from '../internal/TextBuilder.js';

const LF = 10;
const CR = 13;
const BOM = 0xfeff;

/**
 * Where a `LineSplitter` hands each line without cutting it out: the line is `text.slice(start, end)`
 * (without its line end). `SseParser` reads its `data:` lines this way and slices once, after the
 * field name, instead of once for the line and again for the value.
 *
 * @example
 * ```ts
 * import { LineSplitter, type LineSink } from 'rxjs-llm-stream/core';
 *
 * const lengths: LineSink = { line: (text, start, end) => console.log(end - start) };
 * new LineSplitter(lengths, 1024).push('ab\ncde\n'); // logs 2, then 3
 * ```
 */
export interface LineSink {
  line(text: string, start: number, end: number): void;
  /**
   * Makes the error for a line longer than the splitter's limit, from its 1-based number, when the
   * splitter was given no `tooLong`: a sink that is a class says it in a method, not a closure per instance.
   */
  tooLong?(line: number): Error;
}

/**
 * Splits text into lines over any chunking, in time linear in the input: the line layer under
 * `SseParser` and `NdjsonParser`.
 *
 * Lines end in CRLF, LF or CR; a CR that ends one chunk and an LF that starts the next are one line
 * end (the CR ends the line at once, and the LF is skipped when it comes). One leading U+FEFF is
 * dropped. A line still open when a chunk ends is gathered in a `TextBuilder` (small pieces are
 * flattened into blocks of a kilobyte or so, large ones kept as they are) and read once, when its end
 * arrives, so a 10 MB line in 7-character pieces is neither rescanned nor re-concatenated.
 * A line longer than `maxLineLength` is a `ProtocolError`, raised before it is buffered.
 *
 * @example
 * ```ts
 * import { LineSplitter } from 'rxjs-llm-stream/core';
 *
 * const lines = new LineSplitter((line) => console.log(line), 1024);
 * lines.push('a\r');
 * lines.push('\nb\n'); // logs 'a', then 'b'
 * lines.pendingLine;   // '' (nothing open)
 * ```
 */
export class LineSplitter {
  /**
   * The line that has not ended yet. Not a list of fragments joined at the end: a long line in tiny
   * pieces would keep millions of small strings alive until its end, and the garbage collector's work
   * on them grows faster than the line; nor `pending += piece` alone, whose rope keeps a node per
   * piece. Each character is copied at most twice: linear. (Why a long line is not kept as its
   * bytes and decoded in one call instead: the long-line note in BENCHMARKS.md.)
   */
  readonly #pending = new TextBuilder();
  /** The last chunk ended in CR: an LF at the start of the next one ends no second line. */
  #skipLeadingLineFeed = false;
  #atStreamStart = true;
  /** Complete lines so far: the number of the line being read is `lineCount + 1`. */
  lineCount = 0;

  /** Where each line goes. */
  readonly #sink: LineSink;
  readonly #maxLineLength: number;
  readonly #tooLong: ((line: number) => Error) | undefined;

  /**
   * @param onLine Called with each complete line, without its line end; or a `LineSink`, handed where each line lies.
   * @param maxLineLength The longest line held; past it, `tooLong` makes the error thrown.
   * @param tooLong Makes the error for a line that is too long, from its 1-based number; by default
   *   the sink's `tooLong`, or a `ProtocolError`.
   */
  constructor(onLine: ((line: string) => void) | LineSink, maxLineLength: number, tooLong?: (line: number) => Error) {
    this.#maxLineLength = maxLineLength;
    this.#tooLong = tooLong;
    this.#sink = typeof onLine === 'function' ? { line: (text, start, end) => onLine(text.slice(start, end)) } : onLine;
  }

  /** True while a line has begun and not ended. */
  get hasPendingLine(): boolean {
    return this.#pending.length > 0;
  }

  /** The text of the line that has not ended (for error reports). */
  get pendingLine(): string {
    return this.#pending.value ?? '';
  }

  push(text: string): void {
    const length = text.length;
    if (length === 0) return;
    let position = 0;
    if (this.#atStreamStart) {
      this.#atStreamStart = false;
      if (text.charCodeAt(0) === BOM) position = 1;
    }
    if (this.#skipLeadingLineFeed) {
      this.#skipLeadingLineFeed = false;
      if (text.charCodeAt(position) === LF) position++;
    }
    // The next CR and LF at or after `position`, found once and reused until passed: searching for
    // both afresh on every line would rescan a long run of text that has only one kind.
    let nextCr = -2;
    let nextLf = -2;
    const pending = this.#pending;
    const sink = this.#sink;
    while (position < length) {
      let lineEnd: number;
      const first = text.charCodeAt(position);
      if (first === LF || first === CR) {
        // The line ends where it starts: the blank line after each server-sent event, found without
        // a search; with nothing pending it is the empty line, with no slice either.
        if (pending.length === 0) {
          position++;
          if (first === CR) {
            if (position === length)
              this.#skipLeadingLineFeed = true; // CR ends the chunk: LF may follow
            else if (text.charCodeAt(position) === LF) position++;
          }
          this.lineCount++;
          sink.line(text, position, position);
          continue;
        }
        lineEnd = position;
      } else {
        if (nextCr !== -1 && nextCr < position) nextCr = text.indexOf('\r', position);
        if (nextLf !== -1 && nextLf < position) nextLf = text.indexOf('\n', position);
        if (nextCr === -1 && nextLf === -1) break;
        lineEnd = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
      }
      this.#checkLength(pending.length + lineEnd - position);
      // The line is handed over where it lies in the text; only a line begun in an earlier chunk
      // is joined into a string of its own first.
      let lineText = text;
      let lineStart = position;
      let lineStop = lineEnd;
      if (pending.length > 0) {
        pending.append(text.slice(position, lineEnd));
        lineText = pending.value!;
        pending.clear();
        lineStart = 0;
        lineStop = lineText.length;
      }
      position = lineEnd + 1;
      if (text.charCodeAt(lineEnd) === CR) {
        if (position === length)
          this.#skipLeadingLineFeed = true; // CR ends the chunk: LF may follow
        else if (text.charCodeAt(position) === LF) position++;
      }
      this.lineCount++;
      sink.line(lineText, lineStart, lineStop);
    }
    if (position < length) {
      this.#checkLength(this.#pending.length + length - position);
      this.#pending.append(position === 0 ? text : text.slice(position));
    }
  }

  #checkLength(length: number): void {
    if (length <= this.#maxLineLength) return;
    const line = this.lineCount + 1;
    throw (
      this.#tooLong?.(line) ??
      this.#sink.tooLong?.(line) ??
      new ProtocolError(`line ${line} is too long: more than ${this.#maxLineLength} characters`, {
        reason: 'too-large',
        position: { line },
      })
    );
  }
}
