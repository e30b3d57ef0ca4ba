import { Observable, OperatorFunction, Subscriber } from 'rxjs';
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
  return (source) =>
    new Observable<Completion | CompletionSnapshot>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) folds afresh.
      subscribeLinked(source, subscriber, new CompletionFold(subscriber, mode, estimate, settle));
    });
}

/**
 * One subscription's fold and its handlers, in one object: a gateway holds one per open reply, and
 * a closure per handler with their shared context took several times its size.
 */
class CompletionFold {
  readonly #tracker = new CompletionTracker();
  readonly #subscriber: Subscriber<Completion | CompletionSnapshot>;
  readonly #mode: 'reduce' | 'scan';
  readonly #estimate: boolean;
  readonly #settle: Settle | undefined;

  constructor(
    subscriber: Subscriber<Completion | CompletionSnapshot>,
    mode: 'reduce' | 'scan',
    estimate: boolean,
    settle: Settle | undefined,
  ) {
    this.#subscriber = subscriber;
    this.#mode = mode;
    this.#estimate = estimate;
    this.#settle = settle;
  }

  next(event: ChatEvent): void {
    this.#tracker.apply(event);
    if (this.#mode === 'scan') this.#subscriber.next(this.#estimated(this.#tracker.snapshot()));
  }

  error(error: unknown): void {
    this.#fail(error, false);
  }

  complete(): void {
    const subscriber = this.#subscriber;
    const mode = this.#mode;
    const settle = this.#settle;
    if (mode === 'scan' && this.#tracker.finished) {
      subscriber.complete();
      return;
    }
    let result: Completion | Promise<Completion>;
    try {
      const completion = this.#estimated(this.#tracker.complete());
      result = settle === undefined || mode === 'scan' ? completion : settle(completion);
    } catch (error) {
      this.#fail(error, true); // the tracker's own StreamClosedEarlyError, or the settle step's error
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
        if (!subscriber.closed) this.#fail(error, true);
      },
    );
  }

  #estimated<C extends Completion | CompletionSnapshot>(completion: C): C {
    return this.#estimate ? withEstimatedUsage(completion) : completion;
  }

  #fail(error: unknown, own: boolean): void {
    if (error instanceof LlmStreamError && (own || !isCompletionSnapshot(error.partial)))
      error.partial = this.#estimated(this.#tracker.snapshot());
    this.#subscriber.error(error);
  }
}
