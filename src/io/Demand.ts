/**
 * A gate between a reader and a source: while it is paused, the source reads nothing more, so that
 * the backpressure of a slow consumer travels back to the connection the bytes come from (the
 * provider's socket stops being read, its TCP window closes, and the provider's own writes block).
 *
 * The consumer owns it: a sink pauses it when its writable says `write()` is `false`, and resumes it
 * on `'drain'`. The sources `fromResponse` and `fromReadableStream` take it as their `demand` option
 * and read the next chunk only while it is open. Pure: no timers, no RxJS.
 *
 * @example
 * ```ts
 * import { Demand, fromResponse } from 'rxjs-llm-stream';
 *
 * const demand = new Demand();
 * const bytes$ = fromResponse(response, { demand });
 * bytes$.subscribe((bytes) => {
 *   if (!socket.write(bytes)) {
 *     demand.pause(); // nothing more is read from the response...
 *     socket.once('drain', () => demand.resume()); // ...until the socket has room again
 *   }
 * });
 * ```
 */
export class Demand {
  private isPaused = false;
  private readonly listeners = new Set<(paused: boolean) => void>();

  /** True while the consumer wants nothing more. */
  get paused(): boolean {
    return this.isPaused;
  }

  /** Asks the source to stop reading; the chunk being delivered, if any, still arrives. */
  pause(): void {
    this.set(true);
  }

  /** Lets the source read again. */
  resume(): void {
    this.set(false);
  }

  /**
   * Calls `listener` on every change, with the new state; answers the function that removes it.
   * A listener added or removed during a call takes effect at the next change.
   */
  watch(listener: (paused: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private set(paused: boolean): void {
    if (paused === this.isPaused) return;
    this.isPaused = paused;
    for (const listener of [...this.listeners]) listener(paused);
  }
}
