import { SseFrame } from '../core/SseParser.js';
import { ChatEvent } from '../events.js';

/** Options every dialect takes. */
export interface DialectOptions {
  /**
   * Apply the format's rules exactly (a `ProtocolError` for any deviation), instead of absorbing the
   * quirks of real servers that lose nothing.
   */
  readonly strict?: boolean;
}

/**
 * The pure core of one wire format: frames in, `ChatEvent`s out through the callback it was made with.
 * `end()` throws when the input stopped before the format's own end signal.
 */
export interface DialectParser {
  push(frame: SseFrame): void;
  end(): void;
  /**
   * Offers a parse of `data` already made by the caller (the `auto` dialect parses the frame that
   * decides the format), to be used by the next `push` of that same data instead of parsing it again:
   * that frame can be a 10 MB line.
   */
  adoptParsed?(data: string, value: unknown): void;
}

/** Makes a parser for one stream. */
export type DialectFactory = (emit: (event: ChatEvent) => void, options: DialectOptions) => DialectParser;
