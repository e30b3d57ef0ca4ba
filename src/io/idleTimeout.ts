import { MonoTypeOperatorFunction, Observable, SchedulerLike, asyncScheduler } from 'rxjs';
import { StreamIdleError } from '../errors/errors.js';
import { IdleWatch } from '../internal/idleWatch.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/** Options of `idleTimeout`. */
export interface IdleTimeoutOptions {
  /** Where the timer runs: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Errors with `StreamIdleError` when no value arrives for `ms` milliseconds; every value starts the
 * wait again. The wait starts at subscription, so a server that never sends a first byte fails too.
 * Values, completion and errors pass through unchanged; unsubscribing clears the timer.
 *
 * A stream that stalls with its connection open (a hung upstream, a proxy that holds the socket)
 * neither completes nor errors, so without a timer the layers after it wait forever. Place it on
 * the text, between `decodeUtf8()` and `sseFrames()`: there, keep-alive comments (`: ping`) and
 * blank lines still arrive as text and count as signs of life, so a server that pings while it
 * thinks is not idle. After `sseFrames()` comments are gone (they make no frame) and a long think
 * with pings would time out; on the bytes, before `decodeUtf8()`, it works as well as on the text.
 *
 * Intuition: `timeout({ each: ms })` with this library's error, its operator style and a timer that
 * is not re-armed for every chunk.
 *
 * ```
 * text:  --"data: a\n\n"--": ping\n\n"--------(30 s of nothing)
 * out:   --"data: a\n\n"--": ping\n\n"--------#  StreamIdleError
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, idleTimeout, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), idleTimeout(30_000), sseFrames(), assembleChunks(), finalizeCompletion());
 * ```
 *
 * @param ms The longest wait for the next value, in milliseconds (a positive number; `Infinity`
 *   never times out).
 * @param options `scheduler`.
 * @returns An operator that passes every value through and fails a stream that has gone quiet.
 */
export function idleTimeout<T>(ms: number, options: IdleTimeoutOptions = {}): MonoTypeOperatorFunction<T> {
  if (typeof ms !== 'number' || !(ms > 0)) throw new TypeError(`idleTimeout: ms must be a positive number, got ${String(ms)}`);
  const scheduler = options.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<T>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) waits afresh.
      let values = 0;
      const watch = new IdleWatch(subscriber, ms, scheduler, {
        onIdle() {
          const after = values === 0 ? 'before any value arrived' : `after ${values} value${values === 1 ? '' : 's'}`;
          subscriber.error(new StreamIdleError(`the stream was idle for ${ms} ms ${after}`));
        },
      });
      subscribeLinked(source, subscriber, {
        next(value) {
          values++;
          watch.touch();
          subscriber.next(value);
        },
      });
    });
}
