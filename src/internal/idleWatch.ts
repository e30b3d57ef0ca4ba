import { SchedulerAction, SchedulerLike, Subscriber } from 'rxjs';

/** The longest delay a timer takes (2^31 - 1 ms): a longer one would fire at once in Node and browsers. */
export const LONGEST_DELAY = 2_147_483_647;

/** What an {@link IdleWatch} tells when the silence has lasted. */
export interface IdleListener {
  onIdle(): void;
}

/**
 * Calls `listener.onIdle()` once `ms` milliseconds pass without a call of `touch`, counted from
 * construction; the timer is added to `subscriber`, so it is cleared when the subscription ends
 * however it ends. `ms` of `Infinity` never fires.
 *
 * One timer for the whole subscription: `touch` only records the time, and the timer, when it
 * fires early, waits out the rest. Clearing and setting a timer for every chunk of a fast stream
 * would cost more than the chunk. The timer's work is one function for every watch, given the watch
 * as its state: a gateway holds a watch per open reply, and a closure each took more than the watch.
 *
 * @example
 * ```ts
 * const watch = new IdleWatch(subscriber, 30_000, asyncScheduler, { onIdle: () => subscriber.error(new StreamIdleError('idle')) });
 * watch.touch(); // on every chunk
 * ```
 */
export class IdleWatch {
  #lastActivityAt: number;
  readonly #ms: number;
  readonly #scheduler: SchedulerLike;
  readonly #listener: IdleListener;

  constructor(subscriber: Subscriber<unknown>, ms: number, scheduler: SchedulerLike, listener: IdleListener) {
    this.#ms = ms;
    this.#scheduler = scheduler;
    this.#listener = listener;
    this.#lastActivityAt = scheduler.now();
    if (ms !== Infinity) subscriber.add(scheduler.schedule(IdleWatch.#check, Math.min(ms, LONGEST_DELAY), this));
  }

  /** Records activity now: the silence starts again. */
  touch(): void {
    if (this.#ms !== Infinity) this.#lastActivityAt = this.#scheduler.now();
  }

  /** The timer's work, `this` its action: waits out the rest of a silence that was broken, or tells. */
  static #check(this: SchedulerAction<IdleWatch>, watch?: IdleWatch): void {
    if (watch === undefined) return; // never: it is scheduled with its watch
    const quiet = watch.#scheduler.now() - watch.#lastActivityAt;
    if (quiet < watch.#ms) {
      this.schedule(watch, Math.min(watch.#ms - quiet, LONGEST_DELAY));
      return;
    }
    watch.#listener.onIdle();
  }
}
