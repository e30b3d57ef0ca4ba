import type { SseFrame } from '../frames/SseParser.js';
import type { ChatEvent } from '../types/events.js';
import type { FinishReasonTable } from '../types/replyParts.js';

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
  /**
   * The most characters of JSON text kept per stream of what the provider sends that no field names
   * (`providerMetadata`); past it the rest is not kept and the provider's bag says `$capped: true`.
   * Default 256 Ki (`DEFAULT_MAX_PROVIDER_METADATA_CHARS`).
   */
  readonly maxProviderMetadataChars?: number;
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

export type { FinishReasonTable };

/**
 * Everything the library knows of one wire format, in one record: its name, how `auto` recognises it
 * from a first frame, the parser of one stream, its end test and its finish reasons. The record is
 * itself the factory, so it goes wherever a `DialectFactory` does (`assembleChunks({ dialect })`,
 * `resumeFrames({ isFinal: dialect.isFinal })`). Every dialect of the library is one, in a folder of
 * its own under `src/dialects/`; the registry is the list of them.
 *
 * @example
 * ```ts
 * import { openaiChat, assembleChunks } from 'rxjs-llm-stream';
 *
 * openaiChat.name; // 'openai-chat'
 * frames$.pipe(assembleChunks({ dialect: openaiChat }));
 * ```
 */
export interface Dialect<Name extends string = string> extends DialectFactory {
  /** The format's name, as `assembleChunks({ dialect: 'openai-chat' })` takes it. */
  readonly name: Name;
  /** True for a frame after which a stream of this format is over (its end signal, or an error). */
  readonly isFinal: (frame: SseFrame) => boolean;
  /**
   * True when a parsed payload (a JSON object), with its frame's event name, is of this format: `auto`
   * asks each dialect of the registry in order. Absent: `auto` never chooses the format (it must be
   * named), as for formats that look like another.
   */
  readonly recognizes?: (payload: { readonly [key: string]: unknown }, event: string | undefined) => boolean;
  /**
   * The format's own finish reasons, looked up before the spellings every format shares (`stop`,
   * `length`, `tool_calls`, ...; docs/dialects.md has both). A reason in neither is `other`.
   */
  readonly finishReasons: FinishReasonTable;
}

/** What `defineDialect` is given: a dialect's record, with the factory as `create`. */
export interface DialectDefinition<Name extends string> {
  readonly name: Name;
  readonly create: (emit: (event: ChatEvent) => void, options: DialectOptions) => DialectParser;
  readonly isFinal: (frame: SseFrame) => boolean;
  readonly recognizes?: (payload: { readonly [key: string]: unknown }, event: string | undefined) => boolean;
  readonly finishReasons?: FinishReasonTable;
}

/**
 * Makes a dialect's record from its parts. The record is callable as the factory it wraps.
 *
 * @example
 * ```ts
 * import { defineDialect, assembleChunks } from 'rxjs-llm-stream';
 *
 * const myFormat = defineDialect({
 *   name: 'my-format',
 *   create: (emit, options) => new MyFormatParser(emit, options),
 *   isFinal: (frame) => frame.event === 'end',
 *   finishReasons: { DONE: 'stop' },
 * });
 * frames$.pipe(assembleChunks({ dialect: myFormat }));
 * ```
 *
 * @param definition The name, the parser's factory (`create`), the end test, and optionally how `auto`
 * recognises the format and its own finish reasons.
 * @returns The record, callable as the factory.
 */
export function defineDialect<Name extends string>(definition: DialectDefinition<Name>): Dialect<Name> {
  const { create } = definition;
  // A function of its own, so that two records never share one (the factory may be reused).
  const dialect = (emit: (event: ChatEvent) => void, options: DialectOptions): DialectParser => create(emit, options);
  // `name` of a function is read-only but configurable: it is the format's name here.
  Object.defineProperty(dialect, 'name', { value: definition.name, enumerable: true });
  return Object.assign(dialect, {
    isFinal: definition.isFinal,
    ...(definition.recognizes === undefined ? {} : { recognizes: definition.recognizes }),
    finishReasons: definition.finishReasons ?? {},
  }) as Dialect<Name>;
}
