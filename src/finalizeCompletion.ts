import { Observable, OperatorFunction } from 'rxjs';
import { CompletionTracker } from './core/CompletionTracker.js';
import { ChatEvent, Completion } from './events.js';
import { fillPartial } from './internal/fillPartial.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

/**
 * Folds `ChatEvent`s into one `Completion`, emitted when the source completes.
 *
 * The `Completion` has the shape of a non-streaming reply: text, reasoning, refusal, tool calls with
 * parsed arguments (in index order), the normalized finish reason with the raw one, usage, timings,
 * and every choice. Works with or without `groupToolCallsByIndex` in front. A source that completes
 * before every choice finished errors with `StreamClosedEarlyError`; any error of this library
 * passing through gets the completion so far as its `partial`, so nothing that arrived is lost.
 *
 * ```
 * events:     --content--tool-call-delta--finish--usage--done--|
 * completion: ---------------------------------------------------(c|)
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion = await lastValueFrom(
 *   bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()),
 * );
 * console.log(completion.content, completion.toolCalls, completion.usage);
 * ```
 *
 * @returns An operator from `ChatEvent`s to exactly one `Completion`.
 */
export function finalizeCompletion(): OperatorFunction<ChatEvent, Completion> {
  return (source) =>
    new Observable<Completion>((subscriber) => {
      const tracker = new CompletionTracker();
      subscribeLinked(source, subscriber, {
        next: (event) => void tracker.apply(event),
        error: (error) => subscriber.error(fillPartial(error, tracker)),
        complete() {
          subscriber.next(tracker.complete());
          subscriber.complete();
        },
      });
    });
}
