import { StreamClosedEarlyError } from '../errors/errors.js';
import { jsonErrorObject, providerErrorFromBody } from '../errors/errorBody.js';
import { LineSplitter } from './LineSplitter.js';
import { DEFAULT_MAX_EVENT_CHARS, SseFrame } from './SseParser.js';

/** Options of {@link NdjsonParser} and `ndjsonFrames`. */
export interface NdjsonParserOptions {
  /** The longest line held, in UTF-16 code units; past it, `ProtocolError`. Default 16 MiB. */
  readonly maxLineLength?: number;
}

/**
 * The pure core of `ndjsonFrames`: newline-delimited JSON (Ollama's native `/api/chat`) read into the
 * same `SseFrame`s that `SseParser` makes, one per non-blank line, so that the assembly layers need
 * not know the framing. Same line rules, size cap and linear cost as `SseParser`; a last line with
 * no line end is a `StreamClosedEarlyError` (a cut-off JSON object must not pass for a whole one).
 *
 * @example
 * ```ts
 * import { NdjsonParser } from 'rxjs-llm-stream/core';
 *
 * const parser = new NdjsonParser((frame) => console.log(JSON.parse(frame.data)));
 * parser.push('{"done":fal');
 * parser.push('se}\n'); // logs { done: false }
 * parser.end();
 * ```
 */
export class NdjsonParser {
  private readonly lines: LineSplitter;

  constructor(onFrame: (frame: SseFrame) => void, options: NdjsonParserOptions = {}) {
    this.lines = new LineSplitter((line) => {
      // Blank (or whitespace-only) lines separate nothing in NDJSON: skip them.
      if (line.trim() !== '') onFrame({ event: 'message', data: line, id: '' });
    }, options.maxLineLength ?? DEFAULT_MAX_EVENT_CHARS);
  }

  push(text: string): void {
    this.lines.push(text);
  }

  /**
   * Ends the stream: a line without its line end is a `StreamClosedEarlyError`, unless it is a JSON
   * error object (`{"error": ...}`, how servers answer a refused request), which is a
   * `ProviderError` with the provider's message.
   */
  end(): void {
    if (!this.lines.hasPendingLine) return;
    const line = this.lines.lineCount + 1;
    const errorBody = jsonErrorObject(this.lines.pendingLine);
    if (errorBody !== undefined) throw providerErrorFromBody(errorBody, { position: { line } });
    throw new StreamClosedEarlyError(`the stream ended mid-line: line ${line} has no line end`, {
      reason: 'mid-line',
      position: { line },
      partial: this.lines.pendingLine,
    });
  }
}
