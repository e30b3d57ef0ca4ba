import { ProtocolError, StreamClosedEarlyError } from '../errors/errors.js';
import { jsonErrorObject, providerErrorFromBody } from '../errors/errorBody.js';
import { LineSink, LineSplitter } from './LineSplitter.js';

/**
 * One dispatched server-sent event, as the WHATWG HTML standard's event-stream interpretation
 * defines it.
 */
export interface SseFrame {
  /** The `event` field of the block, or `'message'` when it had none. */
  readonly event: string;
  /** The block's `data` lines joined with `\n`. */
  readonly data: string;
  /** The last event ID: like the standard's `lastEventId`, it persists across events (`''` if none). */
  readonly id: string;
  /** The reconnection time in milliseconds most recently set by the stream, if it ever set one. */
  readonly retry?: number;
}

/** Options of {@link SseParser} and `sseFrames`. */
export interface SseParserOptions {
  /**
   * The largest line or event (in UTF-16 code units) the parser will hold; past it the stream is a
   * `ProtocolError`, so a server cannot make the client buffer without bound. Default 16 MiB.
   */
  readonly maxEventSize?: number;
  /**
   * `false` (the default): a final block whose lines are complete but which never got its blank line
   * is dispatched, since real gateways omit it. `true`: that block is a `StreamClosedEarlyError`.
   */
  readonly requireBlankLineAtEnd?: boolean;
}

/** What an incomplete stream had pending when it ended (the `partial` of the frame layer's errors). */
export interface SsePartial {
  /** The data lines of the block that was never dispatched, joined with `\n`. */
  readonly data: string;
  /** The text of the line that never got its line end. */
  readonly incompleteLine: string;
}

/** The default of {@link SseParserOptions.maxEventSize}: 16 MiB. */
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * The most of a body that is not SSE the parser keeps before the first event, to read it as an error
 * answer at the end (a pretty-printed JSON error is a few hundred characters; an HTML page is not read).
 */
const MAX_ERROR_BODY_CHARS = 64 * 1024;

const SPACE = 32;
const COLON = 58;
const LOWER_D = 100;
const LOWER_A = 97;
const LOWER_T = 116;

/**
 * The pure core of `sseFrames`: text in, `SseFrame`s out, over any chunking, in time linear in the
 * input.
 *
 * Lines are split by a {@link LineSplitter} (CRLF, LF or CR, also across chunks; linear however the
 * text is split); this class reads the fields and dispatches events.
 *
 * @example
 * ```ts
 * import { SseParser } from 'rxjs-llm-stream/core';
 *
 * const parser = new SseParser((frame) => console.log(frame.data));
 * parser.push('data: hel');
 * parser.push('lo\n\n'); // logs 'hello'
 * parser.end();
 * ```
 */
export class SseParser implements LineSink {
  readonly #maxEventSize: number;
  readonly #requireBlankLineAtEnd: boolean;

  readonly #lines: LineSplitter;
  /**
   * The block's data lines: the first on its own and any others in an array, so that the usual
   * block of one `data` line allocates no array.
   */
  #firstData: string | undefined = undefined;
  #moreData: string[] | undefined = undefined;
  #dataLength = 0;
  #eventType = '';
  #lastEventId = '';
  #reconnectionTime: number | undefined = undefined;

  /** Events dispatched so far, for error positions. */
  #eventCount = 0;
  /**
   * The lines before the first event that are no SSE field, while they may be a JSON error answer
   * (`{` or `[` first): Google answers a refused request with a pretty-printed JSON body, whose lines
   * the standard would ignore one by one. `undefined` once an event came or the lines cannot be one.
   */
  #bodyLines: string[] | undefined = [];
  #bodyChars = 0;
  readonly #onFrame: (frame: SseFrame) => void;

  constructor(onFrame: (frame: SseFrame) => void, options: SseParserOptions = {}) {
    this.#onFrame = onFrame;
    this.#maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_CHARS;
    this.#requireBlankLineAtEnd = options.requireBlankLineAtEnd === true;
    // The parser is its own sink, and makes the too-long error in `tooLong`: no closure per stream.
    this.#lines = new LineSplitter(this, this.#maxEventSize);
  }

  /** Reads one piece of text; calls `onFrame` for each event it completes. */
  push(text: string): void {
    this.#lines.push(text);
  }

  /**
   * Ends the stream. A line without its line end is a `StreamClosedEarlyError`, unless it is a JSON
   * error object (`{"error": ...}`), which is a `ProviderError` with the provider's message: servers
   * answer a refused request with one, with no line end after it (llama.cpp's 400), and where only
   * the body arrives (a piped body, a text transport) that is all that says what went wrong. A last
   * block whose lines are complete is dispatched (or is an error under `requireBlankLineAtEnd`).
   */
  end(): void {
    const bodyError = this.#errorBody();
    if (bodyError !== undefined) {
      throw providerErrorFromBody(bodyError, { position: { line: this.#lines.lineCount + 1, event: this.#eventCount + 1 } });
    }
    if (this.#lines.hasPendingLine) {
      const line = this.#lines.lineCount + 1;
      const errorBody = jsonErrorObject(this.#lines.pendingLine);
      if (errorBody !== undefined) throw providerErrorFromBody(errorBody, { position: { line, event: this.#eventCount + 1 } });
      throw new StreamClosedEarlyError(`the stream ended mid-line: line ${line} (event ${this.#eventCount + 1}) has no line end`, {
        reason: 'mid-line',
        position: { line, event: this.#eventCount + 1 },
        partial: this.#partial(),
      });
    }
    if (this.#firstData !== undefined) {
      if (this.#requireBlankLineAtEnd) {
        throw new StreamClosedEarlyError(
          `the stream ended inside event ${this.#eventCount + 1}: no blank line after line ${this.#lines.lineCount}`,
          { reason: 'no-blank-line', position: { line: this.#lines.lineCount, event: this.#eventCount + 1 }, partial: this.#partial() },
        );
      }
      this.#dispatch();
    }
  }

  /**
   * The error for line `line` (1-based) when it is longer than `maxEventSize`. Not for callers: the
   * line layer asks its sink for it.
   */
  tooLong(line: number): Error {
    return new ProtocolError(`line too large: more than ${this.#maxEventSize} characters at line ${line} (event ${this.#eventCount + 1})`, {
      reason: 'too-large',
      position: { line, event: this.#eventCount + 1 },
    });
  }

  /**
   * One line from the line layer: `text.slice(start, end)`. Not for callers: the parser is its own
   * `LineSink`, so that a `data:` line is cut out of the text once, after its field name.
   */
  line(text: string, start: number, end: number): void {
    if (start === end) {
      this.#dispatch();
      return;
    }
    // Nearly every line of an LLM stream is `data: ...`: read it without a search for the colon or
    // slicing out the field name (five character reads cost less than either).
    if (
      end - start >= 5 &&
      text.charCodeAt(start + 4) === COLON &&
      text.charCodeAt(start) === LOWER_D &&
      text.charCodeAt(start + 1) === LOWER_A &&
      text.charCodeAt(start + 2) === LOWER_T &&
      text.charCodeAt(start + 3) === LOWER_A
    ) {
      // Past `end` is the line end (or nothing), never a space: `data:` alone is empty data.
      this.#addData(text.slice(start + (text.charCodeAt(start + 5) === SPACE ? 6 : 5), end));
      return;
    }
    this.#readField(text.slice(start, end));
  }

  /** A line that is not `data:`: a field, a comment, or a line without a colon. */
  #readField(line: string): void {
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment (keep-alives such as ": OPENROUTER PROCESSING")
    if (this.#bodyLines !== undefined) this.#keepBodyLine(this.#bodyLines, line);
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line; // a line without a colon is a field with an empty value
      value = '';
    } else {
      field = line.slice(0, colon);
      const valueStart = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(valueStart);
    }
    switch (field) {
      case 'data':
        this.#addData(value);
        break;
      case 'event':
        this.#eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.#reconnectionTime = Number(value);
        break;
      default:
      // Unknown field names (and differently-cased known ones) are ignored, as the standard says.
    }
  }

  /** A line of what may be a JSON error answer instead of a stream, kept up to its cap. */
  #keepBodyLine(lines: string[], line: string): void {
    this.#bodyChars += line.length + 1;
    // Only a body whose first character opens JSON can be one; past the cap it is not read at all.
    const opensJson = lines.length > 0 || /^\s*[{[]/.test(line);
    if (!opensJson || this.#bodyChars > MAX_ERROR_BODY_CHARS || this.#eventCount > 0 || this.#firstData !== undefined) {
      this.#bodyLines = undefined;
      return;
    }
    lines.push(line);
  }

  /**
   * The JSON error answer the body was instead of a stream (`{"error": ...}` over several lines, or
   * an array holding one), when no event came; else undefined.
   */
  #errorBody(): Record<string, unknown> | undefined {
    const lines = this.#bodyLines;
    if (lines === undefined || lines.length === 0 || this.#eventCount > 0 || this.#firstData !== undefined) return undefined;
    const text = `${lines.join('\n')}\n${this.#lines.pendingLine}`.trim();
    return jsonErrorObject(text) ?? (text.startsWith('[') && text.endsWith(']') ? jsonErrorObject(text.slice(1, -1)) : undefined);
  }

  #addData(value: string): void {
    if (this.#firstData === undefined) {
      this.#firstData = value;
      this.#dataLength = value.length;
    } else {
      (this.#moreData ??= []).push(value);
      this.#dataLength += value.length + 1;
    }
    if (this.#dataLength > this.#maxEventSize) {
      const line = this.#lines.lineCount;
      throw new ProtocolError(
        `event too large: more than ${this.#maxEventSize} characters at line ${line} (event ${this.#eventCount + 1})`,
        {
          reason: 'too-large',
          position: { line, event: this.#eventCount + 1 },
        },
      );
    }
  }

  /** The block's data lines joined with LF. */
  #joinedData(): string {
    if (this.#firstData === undefined) return '';
    return this.#moreData === undefined ? this.#firstData : `${this.#firstData}\n${this.#moreData.join('\n')}`;
  }

  #dispatch(): void {
    if (this.#firstData === undefined) {
      this.#eventType = ''; // a block with no data line is not dispatched, but still ends here
      return;
    }
    const data = this.#joinedData();
    const frame: SseFrame =
      this.#reconnectionTime === undefined
        ? { event: this.#eventType || 'message', data, id: this.#lastEventId }
        : { event: this.#eventType || 'message', data, id: this.#lastEventId, retry: this.#reconnectionTime };
    this.#firstData = undefined;
    this.#moreData = undefined;
    this.#dataLength = 0;
    this.#eventType = '';
    this.#eventCount++;
    this.#onFrame(frame);
  }

  #partial(): SsePartial {
    return { data: this.#joinedData(), incompleteLine: this.#lines.pendingLine };
  }
}
