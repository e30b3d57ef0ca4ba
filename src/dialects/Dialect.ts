import { SseFrame } from '../core/SseParser.js';
import { ChatEvent } from '../events.js';

/** Options every dialect takes. */
export interface DialectOptions {
  /**
   * Apply the format's rules exactly (a `ProtocolError` for any deviation), instead of absorbing the
   * quirks of real servers that lose nothing.
   */
  readonly strict?: boolean;
  /** The most tool calls one choice may make; more is a `ProtocolError`. Default 1024. */
  readonly maxToolCalls?: number;
  /**
   * Pass on payloads of a type the dialect does not know as `unknown` events with the raw payload,
   * so a provider's new feature can be handled before a release reads it. Default `false`: skipped.
   */
  readonly unknownEvents?: boolean;
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
  usePreparsed?(data: string, value: unknown): void;
}

/**
 * Makes a parser for one stream. A factory may say how its format ends (`isFinal`): `resumeFrames`
 * uses that to tell a stream that is over from one that was cut.
 */
export interface DialectFactory {
  (emit: (event: ChatEvent) => void, options: DialectOptions): DialectParser;
  /** True for a frame after which a stream of this format is over (its end signal, or an error). */
  readonly isFinal?: (frame: SseFrame) => boolean;
}

/**
 * A `DialectFactory` from a parser's constructor and the format's end test, for `assembleChunks` and
 * `resumeFrames`.
 *
 * @example
 * ```ts
 * import { dialectFactory, assembleChunks } from 'rxjs-llm-stream';
 *
 * const myFormat = dialectFactory((emit, options) => new MyFormatParser(emit, options), (frame) => frame.event === 'end');
 * frames$.pipe(assembleChunks({ dialect: myFormat }));
 * ```
 *
 * @param create Makes the parser of one stream.
 * @param isFinal True for the frame that ends a stream of this format.
 * @returns The factory.
 */
export function dialectFactory(
  create: (emit: (event: ChatEvent) => void, options: DialectOptions) => DialectParser,
  isFinal?: (frame: SseFrame) => boolean,
): DialectFactory {
  return isFinal === undefined ? create : Object.assign(create, { isFinal });
}
