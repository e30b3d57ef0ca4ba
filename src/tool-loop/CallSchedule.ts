/**
 * The calls of one step, in call order: which may start now under the concurrency limit, and which
 * settled results may be released, in call order whatever order they settled in. No RxJS: the loop
 * runs the calls, this keeps their order and their count.
 *
 * @example
 * ```ts
 * import { CallSchedule } from 'rxjs-llm-stream/core';
 *
 * const schedule = new CallSchedule<string>(1);
 * const a = schedule.add();
 * const b = schedule.add();
 * schedule.queue(a);
 * schedule.queue(b);
 * schedule.start(); // [a]: one at a time
 * schedule.settle(b, 'second'); // []: a comes first
 * schedule.settle(a, 'first'); // ['first', 'second']
 * ```
 */
export class CallSchedule<Settled> {
  readonly #limit: number;
  /** Per slot, its result once settled. */
  readonly #settled: (Settled | undefined)[] = [];
  readonly #done: boolean[] = [];
  readonly #running = new Set<number>();
  /** Slots ready to run, waiting for room under the limit, in the order they became ready. */
  #queue: number[] = [];
  /** The first slot not yet released. */
  #released = 0;

  /** @param limit How many calls may run at once (`Infinity`: no limit). */
  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`the concurrency of a tool loop must be at least 1, not ${String(limit)}`);
    this.#limit = limit;
  }

  /** A new call, after every call added before it; its slot. */
  add(): number {
    this.#settled.push(undefined);
    this.#done.push(false);
    return this.#settled.length - 1;
  }

  /** The call at `slot` is ready to run (its arguments checked, its approval given). */
  queue(slot: number): void {
    this.#queue.push(slot);
  }

  /** The slots that start now, in the order they became ready: as many as the limit leaves room for. */
  start(): number[] {
    const started: number[] = [];
    while (this.#queue.length > 0 && this.#running.size < this.#limit) {
      const slot = this.#queue.shift()!;
      this.#running.add(slot);
      started.push(slot);
    }
    return started;
  }

  /**
   * The call at `slot` has its result (it ran, or never had to). Returns the results now released,
   * in call order: this one and those after it that settled earlier, once every call before it has.
   */
  settle(slot: number, result: Settled): Settled[] {
    if (this.#done[slot] !== false) throw new RangeError(`slot ${slot} of a tool loop's step is unknown or settled twice`);
    this.#running.delete(slot);
    this.#queue = this.#queue.filter((queued) => queued !== slot);
    this.#done[slot] = true;
    this.#settled[slot] = result;
    const released: Settled[] = [];
    while (this.#released < this.#done.length && this.#done[this.#released] === true) {
      released.push(this.#settled[this.#released] as Settled);
      this.#released++;
    }
    return released;
  }

  /** How many calls were added. */
  get size(): number {
    return this.#done.length;
  }

  /** True when every call added has settled (and so been released). */
  get settled(): boolean {
    return this.#released === this.#done.length;
  }

  /** Every result, in call order, once all have settled. */
  results(): Settled[] {
    return this.#settled.slice(0, this.#released) as Settled[];
  }
}
