import { Observable, OperatorFunction } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { DialectFactory, DialectOptions } from '../dialects/Dialect.js';
import { ChatEvent } from '../types/events.js';
import { ParserHandlers } from '../internal/ParserHandlers.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Turns the frames of a streamed chat completion into `ChatEvent`s with the one dialect it is given:
 * `assembleChunks` with its format chosen by import instead of by name.
 *
 * It reads exactly as `assembleChunks({ dialect })` does (the same events, errors and end signal);
 * it only never looks a name up. A name, `auto` included, needs the registry, which holds every
 * dialect of the library: an app that gives its format here bundles that dialect and no other (the
 * README's pipeline gzipped to about half its size; README.md, "Bundle size").
 *
 * Intuition: `assembleChunks`, with the dialect passed as a value rather than spelled as a string.
 *
 * ```
 * frames: --{content:"Hel"}--{content:"lo",finish:"stop"}--[DONE]--|
 * events: --content"Hel"-----(content"lo" finish)----------done----|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunksWith, openaiChat, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunksWith(openaiChat), finalizeCompletion()).subscribe((completion) => {
 *   console.log(completion.choices[0]?.content);
 * });
 * ```
 *
 * @param dialect The wire format: a dialect's record (`openaiChat`, `anthropic`, `autoDialect`, ...)
 *   or any `DialectFactory`.
 * @param options `strict` (apply the format exactly), `maxToolCalls`, `unknownEvents`.
 * @returns An operator from `SseFrame`s to `ChatEvent`s.
 */
export function assembleChunksWith(dialect: DialectFactory, options: DialectOptions = {}): OperatorFunction<SseFrame, ChatEvent> {
  return (source) =>
    new Observable<ChatEvent>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) reads a new stream from its start. The
      // subscriber's own `next`, bound, and no closure: see `ParserHandlers`.
      subscribeLinked(source, subscriber, new ParserHandlers(dialect(subscriber.next.bind(subscriber), options), subscriber));
    });
}
