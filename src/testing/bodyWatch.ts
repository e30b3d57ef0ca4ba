/**
 * What became of a body a fake served: `open` while the consumer may still read it, then `read` (to
 * its end), `cancelled` (the consumer cancelled the reader or destroyed the stream), `aborted` (the
 * request's `AbortSignal` fired) or `failed` (the fake ended it with the transport error it was given).
 */
export type FakeBodyState = 'open' | 'read' | 'cancelled' | 'aborted' | 'failed';

/** How a fake reports what the consumer did with its body. */
export interface ServedBody {
  /** What has become of the body so far. */
  readonly bodyState: FakeBodyState;
  /**
   * Resolves `true` once the consumer cancelled the body or aborted its request, `false` once the
   * body was read to its end or failed. A body nobody finishes (a stall nobody gives up on) leaves
   * it pending.
   */
  readonly cancelled: Promise<boolean>;
}

/** The state of one served body, settled once: the first of read, cancelled, aborted, failed wins. */
export class BodyWatch implements ServedBody {
  private state: FakeBodyState = 'open';
  private report!: (cancelled: boolean) => void;
  readonly cancelled = new Promise<boolean>((resolve) => {
    this.report = resolve;
  });

  get bodyState(): FakeBodyState {
    return this.state;
  }

  /** Records how the body ended; answers false when it had already ended (the first end stands). */
  settle(state: Exclude<FakeBodyState, 'open'>): boolean {
    if (this.state !== 'open') return false;
    this.state = state;
    this.report(state === 'cancelled' || state === 'aborted');
    return true;
  }

  /** Gives `target` the read-only `bodyState` and `cancelled` of this watch. */
  attach<T extends object>(target: T): T & ServedBody {
    return Object.defineProperties(target, {
      bodyState: { get: () => this.state, enumerable: true },
      cancelled: { value: this.cancelled, enumerable: true },
    }) as T & ServedBody;
  }
}
