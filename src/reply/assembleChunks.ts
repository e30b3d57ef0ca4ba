import { OperatorFunction } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { DialectFactory, DialectOptions } from '../dialects/Dialect.js';
import { DIALECTS, DialectName } from '../dialects/registry.js';
import { autoDialect } from '../dialects/auto.js';
import { ChatEvent } from '../types/events.js';
import { assembleChunksWith } from './assembleChunksWith.js';

/** Options of `assembleChunks`. */
export interface AssembleChunksOptions extends DialectOptions {
  /**
   * The wire format, by name, or a factory for a format of your own. Default `'auto'`: decided from
   * the first frame that names it, then fixed for the stream.
   */
  readonly dialect?: DialectName | DialectFactory;
}

/**
 * Turns the frames of a streamed chat completion into `ChatEvent`s: text, reasoning, refusals,
 * tool-call fragments, finish reasons, usage and timings, in the order the chunk held them.
 *
 * It speaks OpenAI Chat Completions and its compatible servers, OpenAI Responses, Anthropic Messages,
 * Gemini, Ollama (framed by `ndjsonFrames`), llama.cpp's `/completion` and the typed-event format;
 * by default it tells them apart from the first frame. The stream must end with its dialect's own
 * end signal (`[DONE]`, `message_stop`, `response.completed`, ...): a source that completes without
 * it errors with `StreamClosedEarlyError`. An error payload inside the
 * stream is a `ProviderError`; a payload that is not JSON of the expected shape, or a fragment that
 * belongs to no call, is a `ProtocolError`. Unknown fields are ignored.

A name is looked up in the registry, which holds every dialect, so a browser bundle that calls
`assembleChunks` holds them all; `assembleChunksWith(openaiChat)` reads the same and bundles only the
dialect it is given.
 *
 * Intuition: the per-chunk half of an assembler; `finalizeCompletion` is the other half.
 *
 * ```
 * frames: --{content:"Hel"}--{content:"lo",finish:"stop"}--[DONE]--|
 * events: --content"Hel"-----(content"lo" finish)----------done----|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks()).subscribe((event) => {
 *   if (event.type === 'content') process.stdout.write(event.text);
 * });
 * ```
 *
 * @param options `dialect` (default `'auto'`), `strict` (apply the format exactly), `maxToolCalls`.
 * @returns An operator from `SseFrame`s to `ChatEvent`s.
 */
export function assembleChunks(options: AssembleChunksOptions = {}): OperatorFunction<SseFrame, ChatEvent> {
  const dialect = options.dialect ?? 'auto';
  const factory = typeof dialect === 'function' ? dialect : dialect === 'auto' ? autoDialect : DIALECTS[dialect];
  if (factory === undefined) throw new TypeError(`assembleChunks: unknown dialect ${JSON.stringify(dialect)}`);
  return assembleChunksWith(factory, options);
}
