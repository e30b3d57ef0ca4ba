import { ProtocolError, StreamClosedEarlyError } from '../errors.js';

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
export const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024;

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const BOM = 0xfeff;

/**
 * The pure core of `sseFrames`: text in, `SseFrame`s out, over any chunking, in time linear in the
 * input.
 *
 * Lines end in CRLF, LF or CR; a CR that ends one chunk and an LF that starts the next are one line
 * end. A line still open when a chunk ends is kept as a list of fragments and joined once, when its
 * end arrives, so a 10 MB line in 7-character pieces is neither rescanned nor re-concatenated.
 *
 * @example
 * ```ts
 * import { SseParser } from 'rxjs-llm-stream';
 *
 * const parser = new SseParser((frame) => console.log(frame.data));
 * parser.push('data: hel');
 * parser.push('lo\n\n'); // logs 'hello'
 * parser.end();
 * ```
 */
export class SseParser {
  private readonly maxEventSize: number;
  private readonly requireBlankLineAtEnd: boolean;

  /** Fragments of the line that has not ended yet, and their total length. */
  private pendingLine: string[] = [];
  private pendingLineLength = 0;
  /** The last chunk ended in CR: an LF at the start of the next one ends no second line. */
  private skipLeadingLineFeed = false;
  private atStreamStart = true;

  private dataLines: string[] = [];
  private dataLength = 0;
  private eventType = '';
  private lastEventId = '';
  private reconnectionTime: number | undefined = undefined;

  /** Complete lines read so far, and events dispatched, for error positions. */
  private lineCount = 0;
  private eventCount = 0;

  constructor(
    private readonly onFrame: (frame: SseFrame) => void,
    options: SseParserOptions = {},
  ) {
    this.maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
    this.requireBlankLineAtEnd = options.requireBlankLineAtEnd === true;
  }

  /** Reads one piece of text; calls `onFrame` for each event it completes. */
  push(text: string): void {
    const length = text.length;
    if (length === 0) return;
    let position = 0;
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (text.charCodeAt(0) === BOM) position = 1;
    }
    if (this.skipLeadingLineFeed) {
      this.skipLeadingLineFeed = false;
      if (text.charCodeAt(position) === LF) position++;
    }
    // The next CR and LF at or after `position`, found once and reused until passed: searching for
    // both afresh on every line would rescan a long run of text that has only one kind.
    let nextCr = -2;
    let nextLf = -2;
    while (position < length) {
      if (nextCr !== -1 && nextCr < position) nextCr = text.indexOf('\r', position);
      if (nextLf !== -1 && nextLf < position) nextLf = text.indexOf('\n', position);
      if (nextCr === -1 && nextLf === -1) break;
      const lineEnd = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
      this.checkSize(this.pendingLineLength + lineEnd - position, 'line', this.lineCount + 1);
      let line = text.slice(position, lineEnd);
      if (this.pendingLineLength > 0) {
        this.pendingLine.push(line);
        line = this.pendingLine.join('');
        this.pendingLine = [];
        this.pendingLineLength = 0;
      }
      position = lineEnd + 1;
      if (lineEnd === nextCr) {
        if (position === length) this.skipLeadingLineFeed = true; // CR ends the chunk: LF may follow
        else if (text.charCodeAt(position) === LF) position++;
      }
      this.lineCount++;
      this.readLine(line);
    }
    if (position < length) {
      this.checkSize(this.pendingLineLength + length - position, 'line', this.lineCount + 1);
      this.pendingLine.push(position === 0 ? text : text.slice(position));
      this.pendingLineLength += length - position;
    }
  }

  /**
   * Ends the stream. A line without its line end is a `StreamClosedEarlyError`; a last block whose
   * lines are complete is dispatched (or is an error under `requireBlankLineAtEnd`).
   */
  end(): void {
    if (this.pendingLineLength > 0) {
      const line = this.lineCount + 1;
      throw new StreamClosedEarlyError<SsePartial>(
        `the stream ended mid-line: line ${line} (event ${this.eventCount + 1}) has no line end`,
        { position: { line, event: this.eventCount + 1 }, partial: this.partial() },
      );
    }
    if (this.dataLines.length > 0) {
      if (this.requireBlankLineAtEnd) {
        throw new StreamClosedEarlyError<SsePartial>(
          `the stream ended inside event ${this.eventCount + 1}: no blank line after line ${this.lineCount}`,
          { position: { line: this.lineCount, event: this.eventCount + 1 }, partial: this.partial() },
        );
      }
      this.dispatch();
    }
  }

  private readLine(line: string): void {
    if (line.length === 0) {
      this.dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment (keep-alives such as ": OPENROUTER PROCESSING")
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
        this.dataLength += value.length + (this.dataLines.length > 0 ? 1 : 0);
        this.checkSize(this.dataLength, 'event', this.lineCount);
        this.dataLines.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.reconnectionTime = Number(value);
        break;
      default:
      // Unknown field names (and differently-cased known ones) are ignored, as the standard says.
    }
  }

  private dispatch(): void {
    if (this.dataLines.length === 0) {
      this.eventType = ''; // a block with no data line is not dispatched, but still ends here
      return;
    }
    const data = this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n');
    const frame: SseFrame =
      this.reconnectionTime === undefined
        ? { event: this.eventType || 'message', data, id: this.lastEventId }
        : { event: this.eventType || 'message', data, id: this.lastEventId, retry: this.reconnectionTime };
    this.dataLines = [];
    this.dataLength = 0;
    this.eventType = '';
    this.eventCount++;
    this.onFrame(frame);
  }

  private checkSize(size: number, what: 'line' | 'event', line: number): void {
    if (size <= this.maxEventSize) return;
    throw new ProtocolError<SsePartial>(
      `${what} too large: more than ${this.maxEventSize} characters at line ${line} (event ${this.eventCount + 1})`,
      { position: { line, event: this.eventCount + 1 } },
    );
  }

  private partial(): SsePartial {
    return { data: this.dataLines.join('\n'), incompleteLine: this.pendingLine.join('') };
  }
}
