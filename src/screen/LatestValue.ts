/**
 * The latest value given since the last `take`: the core of `latestPerFrame`, for values that each
 * hold all before them (a `CompletionSnapshot` has every delta of the snapshots it replaces).
 *
 * @example
 * ```ts
 * import { LatestValue } from 'rxjs-llm-stream/core';
 *
 * const latest = new LatestValue<string>();
 * latest.add('Hel');
 * latest.add('Hello');
 * latest.take(); // 'Hello'
 * latest.isEmpty; // true
 * ```
 */
export class LatestValue<T> {
  #value: T | undefined;
  #empty = true;

  /** `true` when nothing was given since the last `take`. */
  get isEmpty(): boolean {
    return this.#empty;
  }

  /** Keeps `value`, replacing the one kept. */
  add(value: T): void {
    this.#value = value;
    this.#empty = false;
  }

  /** The latest value (`undefined` when empty); the holder is empty after, and keeps nothing. */
  take(): T {
    const value = this.#value as T;
    this.#value = undefined;
    this.#empty = true;
    return value;
  }
}
