import { SchedulerAction, SchedulerLike, Subscriber } from 'rxjs';

/** The longest delay a timer takes (2^31 - 1 ms): a longer one would fire at once in Node and browsers. */
export const LONGEST_DELAY = 2_147_483_647;

/**
 * Calls `onIdle` once `ms` milliseconds pass without a call of the returned `touch`, counted from
 * now; the timer is added to `subscriber`, so it is cleared when the subscription ends however it
 * ends. `ms` of `Infinity` never fires.
 *
 * One timer for the whole subscription: `touch` only records the time, and the timer, when it
 * fires early, waits out the rest. Clearing and setting a timer for every chunk of a fast stream
 * would cost more than the chunk.
 */
export function watchIdle(subscriber: Subscriber<unknown>, ms: number, scheduler: SchedulerLike, onIdle: () => void): () => void {
  let lastActivityAt = scheduler.now();
  if (ms === Infinity) return () => undefined;
  const check = function (this: SchedulerAction<unknown>): void {
    const quiet = scheduler.now() - lastActivityAt;
    if (quiet < ms) {
      this.schedule(undefined, Math.min(ms - quiet, LONGEST_DELAY));
      return;
    }
    onIdle();
  };
  subscriber.add(scheduler.schedule(check, Math.min(ms, LONGEST_DELAY)));
  return () => {
    lastActivityAt = scheduler.now();
  };
}
