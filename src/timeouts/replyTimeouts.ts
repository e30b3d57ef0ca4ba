import { MonoTypeOperatorFunction, Observable, SchedulerAction, SchedulerLike, asyncScheduler } from 'rxjs';
import { StreamIdleError } from '../errors/errors.js';
import { LONGEST_DELAY } from '../internal/idleWatch.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import type { ChatEvent } from '../types/events.js';
import { CONTENT_EVENT_TYPES } from './contentEvents.js';
import { ReplyDeadlines, ReplyTimeoutLimits } from './ReplyDeadlines.js';

/**
 * Options of {@link replyTimeouts}: the limits, and where the timer runs.
 *
 * @example
 * ```ts
 * import type { ReplyTimeoutsOptions } from 'rxjs-llm-stream';
 *
 * const options: ReplyTimeoutsOptions = { firstContent: 60_000, betweenContent: 20_000, total: 600_000 };
 * ```
 */
export interface ReplyTimeoutsOptions extends ReplyTimeoutLimits {
  /** Where the timer runs: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
}

/** Refuses a limit that is not a positive number (`Infinity` allowed: no limit). */
function checkLimit(name: string, ms: number | undefined): void {
  if (ms === undefined) return;
  if (typeof ms !== 'number' || !(ms > 0)) throw new TypeError(`replyTimeouts: ${name} must be a positive number, got ${String(ms)}`);
}

/**
 * Fails a reply that produces no content in time, with a `StreamIdleError` whose `reason` names
 * the limit: `first-content` (no content event within `firstContent` of the subscription),
 * `between-content` (none within `betweenContent` of the last one) or `total` (the reply still
 * running after `total`). Events, completion and errors pass through unchanged; unsubscribing, an
 * error or the end clears the timer.
 *
 * Unlike `idleTimeout`, which any sign of life resets, only content counts here (see
 * {@link CONTENT_EVENT_TYPES}): SSE comments and empty frames make no event, and a provider's pings
 * and metadata are not content, so a server that pings forever and produces nothing fails. Place
 * it on the events, before `finalizeCompletion` or `scanCompletion`: they give the error the
 * completion so far as its `partial`.
 *
 * ```
 * events: --start--ping--ping--ping--ping--ping-- ...
 * out:    --start--ping--ping-----#  StreamIdleError, reason 'between-content'
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, replyTimeouts, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks(),
 *   replyTimeouts({ firstContent: 60_000, betweenContent: 20_000, total: 600_000 }),
 *   finalizeCompletion(),
 * );
 * ```
 *
 * @param options `firstContent`, `betweenContent`, `total` (milliseconds, each optional), `scheduler`.
 * @returns An operator that passes every event through and fails a reply that overran a limit.
 */
export function replyTimeouts<T extends ChatEvent>(options: ReplyTimeoutsOptions): MonoTypeOperatorFunction<T> {
  checkLimit('firstContent', options.firstContent);
  checkLimit('betweenContent', options.betweenContent);
  checkLimit('total', options.total);
  const scheduler = options.scheduler ?? asyncScheduler;
  const limits: ReplyTimeoutLimits = { ...options };
  return (source) =>
    new Observable<T>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) starts every limit afresh.
      const deadlines = new ReplyDeadlines(limits, scheduler.now());
      // One timer: a content event only records its time, and the timer, when it fires before the
      // deadline it was set for has moved on, waits out the rest.
      const check = function (this: SchedulerAction<unknown>): void {
        const deadline = deadlines.next();
        if (deadline === undefined) return;
        const left = deadline.at - scheduler.now();
        if (left > 0) {
          this.schedule(undefined, Math.min(left, LONGEST_DELAY));
          return;
        }
        subscriber.error(new StreamIdleError(deadlines.describe(deadline), { reason: deadline.reason }));
      };
      const first = deadlines.next();
      if (first !== undefined) subscriber.add(scheduler.schedule(check, Math.min(first.at - scheduler.now(), LONGEST_DELAY)));
      subscribeLinked(source, subscriber, {
        next(event) {
          deadlines.record(scheduler.now(), CONTENT_EVENT_TYPES.has(event.type));
          subscriber.next(event);
        },
      });
    });
}
