import { Observable, OperatorFunction } from 'rxjs';
import { CompletionTracker } from './CompletionTracker.js';
import { withEstimatedUsage } from './estimateTokenUsage.js';
import { isCompletionSnapshot } from './isCompletionSnapshot.js';
import { LlmStreamError } from '../errors/errors.js';
import { ChatEvent, Completion, CompletionSnapshot } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * A last step of the `'reduce'` fold over the completion (the structured output's check): its
 * result is emitted instead, through a promise when the check is asynchronous. What it throws or
 * rejects with fails the stream, a library error with the completion so far as `partial`.
 */
export type Settle = (completion: Completion) => Completion | Promise<Completion>;

/**
 * The one fold behind `finalizeCompletion` (`'reduce'`: one `Completion` at the end) and
 * `scanCompletion` (`'scan'`: the completion so far after every event), as RxJS's `reduce` and `scan`
 * share `scanInternals`. Not exported: the two operators are the API.
 *
 * A source that completes before every choice finished errors with the tracker's
 * `StreamClosedEarlyError`. A library error passing through gets the completion so far as
 * `partial`, unless a layer before this one already gave it one: the partial is set once, by the
 * first layer that knows the completion, and never replaced. With `estimate`, a missing `usage` is
 * estimated from the text, in the values and in the partial.
 */
export function foldCompletion(mode: 'reduce', estimate: boolean, settle?: Settle): OperatorFunction<ChatEvent, Completion>;
export function foldCompletion(mode: 'scan', estimate: boolean): OperatorFunction<ChatEvent, CompletionSnapshot>;
export function foldCompletion(
  mode: 'reduce' | 'scan',
  estimate: boolean,
  settle?: Settle,
): OperatorFunction<ChatEvent, Completion | CompletionSnapshot> {
  const estimated = <C extends Completion | CompletionSnapshot>(completion: C): C =>
    estimate ? withEstimatedUsage(completion) : completion;
  return (source) =>
    new Observable<Completion | CompletionSnapshot>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) folds afresh.
      const tracker = new CompletionTracker();
      const fail = (error: unknown, own: boolean): void => {
        if (error instanceof LlmStreamError && (own || !isCompletionSnapshot(error.partial))) error.partial = estimated(tracker.snapshot());
        subscriber.error(error);
      };
      subscribeLinked(source, subscriber, {
        next(event) {
          tracker.apply(event);
          if (mode === 'scan') subscriber.next(estimated(tracker.snapshot()));
        },
        error: (error) => fail(error, false),
        complete() {
          if (mode === 'scan' && tracker.finished) {
            subscriber.complete();
            return;
          }
          let result: Completion | Promise<Completion>;
          try {
            const completion = estimated(tracker.complete());
            result = settle === undefined || mode === 'scan' ? completion : settle(completion);
          } catch (error) {
            fail(error, true); // the tracker's own StreamClosedEarlyError, or the settle step's error
            return;
          }
          if (!(result instanceof Promise)) {
            if (mode === 'reduce') subscriber.next(result);
            return subscriber.complete();
          }
          // An asynchronous check: nothing is emitted once the subscriber has left.
          result.then(
            (settled) => {
              if (subscriber.closed) return;
              subscriber.next(settled);
              subscriber.complete();
            },
            (error: unknown) => {
              if (!subscriber.closed) fail(error, true);
            },
          );
        },
      });
    });
}
