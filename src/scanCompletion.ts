import { Observable, OperatorFunction } from 'rxjs';
import { CompletionSnapshot, CompletionTracker } from './core/CompletionTracker.js';
import { ChatEvent } from './events.js';
import { fillPartial } from './internal/fillPartial.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

/**
 * After each event, emits the completion so far: the "text so far" a chat UI renders, with
 * `inReasoning` (is the model still thinking?) and `finished`.
 *
 * Text is appended as it arrives, never re-joined, so the cost of a snapshot does not grow with the
 * text. A source that completes before every choice finished errors with `StreamClosedEarlyError`,
 * and every error of this library passing through carries the last snapshot as `partial`.
 *
 * ```
 * events:    --content"Hel"--content"lo"--finish--|
 * snapshots: --{"Hel"}-------{"Hello"}----{"Hello",finished}--|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, scanCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanCompletion()).subscribe((snapshot) => {
 *   view.text = snapshot.content ?? '';
 *   view.thinking = snapshot.inReasoning;
 * });
 * ```
 *
 * @returns An operator from `ChatEvent`s to `CompletionSnapshot`s.
 */
export function scanCompletion(): OperatorFunction<ChatEvent, CompletionSnapshot> {
  return (source) =>
    new Observable<CompletionSnapshot>((subscriber) => {
      const tracker = new CompletionTracker();
      subscribeLinked(source, subscriber, {
        next(event) {
          tracker.apply(event);
          subscriber.next(tracker.snapshot());
        },
        error: (error) => subscriber.error(fillPartial(error, tracker)),
        complete() {
          if (!tracker.finished) tracker.complete(); // throws StreamClosedEarlyError with the partial
          subscriber.complete();
        },
      });
    });
}
