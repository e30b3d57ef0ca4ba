import { SchedulerLike, asyncScheduler } from 'rxjs';
import { recordAttempts } from '../io/answerAttempts.js';
import { readRateLimits } from '../rate-limits/readRateLimits.js';
import type { RateLimits } from '../types/rateLimits.js';
import { connectionFailed } from './connectionFailed.js';
import { RetryOptions, retrySettings } from './retryDelay.js';
import { RetrySchedule } from './RetrySchedule.js';

/** A `fetch`: the platform's, undici's, a test's, or one that adds credentials. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link retryingFetch}.
 *
 * @example
 * ```ts
 * import { retryingFetch, type RetryingFetchOptions } from 'rxjs-llm-stream';
 *
 * const options: RetryingFetchOptions = { maxRetries: 3, onRateLimits: (limits) => console.log(limits.tokens?.remaining) };
 * const send = retryingFetch(fetch, options);
 * ```
 */
export interface RetryingFetchOptions extends RetryOptions {
  /** Where the waits run: `asyncScheduler` by default, a virtual-time scheduler in tests. */
  readonly scheduler?: SchedulerLike;
  /**
   * Called with the rate limits of every answer that announced any (see `readRateLimits`),
   * retried ones included, so that a gateway slows down before it is refused.
   */
  readonly onRateLimits?: (limits: RateLimits, status: number) => void;
}

/** A request body that can be sent again: anything but a stream, which the first attempt consumed. */
function isResendable(init: RequestInit | undefined, input: string | URL | Request): boolean {
  const body = init?.body;
  if (body !== undefined && body !== null && typeof (body as ReadableStream).getReader === 'function') return false;
  return !(typeof input === 'object' && 'bodyUsed' in input && input.bodyUsed);
}

/** Resolves after `ms` on `scheduler`, or rejects with the signal's reason when it aborts first. */
function wait(ms: number, scheduler: SchedulerLike, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timer.unsubscribe();
      reject(signal!.reason);
    };
    const timer = scheduler.schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A `fetch` that retries before the reply starts, as the official SDKs do: a connection that fails
 * before an answer, and an answer of 408, 409, 429 or 5xx, are tried again, up to `maxRetries`
 * times (2 by default). The wait is what the server asked for in `retry-after-ms` or `Retry-After`
 * (seconds or an HTTP date) when it is within (0, 60 s], else a backoff of 0.5 s doubling up to
 * 8 s, less up to a quarter at random. `x-should-retry: true` retries any answer, `false` none.
 *
 * The promise resolves as `fetch`'s does, when the headers arrive: the body is the caller's, and
 * nothing is retried once it is read (a body cut midway is `fromResponse`'s
 * `StreamClosedEarlyError`, a reply is never billed twice). An answer retried is dropped unread.
 * What is resolved last is passed on whatever its status: `fromResponse` turns an error status into
 * a `ProviderError` with `attempts` (each attempt's status or cause, and the wait after it) and
 * `rateLimits`. When every attempt failed to connect, the promise rejects with a
 * `StreamClosedEarlyError` (reason `transport`) with `attempts` and the last failure as `cause`.
 * Aborting `init.signal` ends a wait at once, rejecting with the signal's reason as `fetch` does.
 * A request whose body is a stream is sent once: it cannot be sent again.
 *
 * @example
 * ```ts
 * import { retryingFetch, fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 * import { fromFetch } from 'rxjs/fetch';
 *
 * const send = retryingFetch(fetch);
 * const response = await send(url, { method: 'POST', headers, body });
 * fromResponse(response).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion());
 * ```
 *
 * @param fetchFunction The `fetch` to call for each attempt (`globalThis.fetch`, or a wrapper).
 * @param options `maxRetries`, `initialDelayMs`, `maxDelayMs`, `maxRetryAfterMs`, `random`, `now`, `scheduler`, `onRateLimits`.
 * @returns A function called as `fetch` is.
 */
export function retryingFetch(fetchFunction: FetchFunction, options: RetryingFetchOptions = {}): FetchFunction {
  const settings = retrySettings(options, 'retryingFetch');
  const scheduler = options.scheduler ?? asyncScheduler;
  return async (input, init) => {
    const schedule = new RetrySchedule(isResendable(init, input) ? settings : { ...settings, maxRetries: 0 });
    const signal = init?.signal ?? (typeof input === 'object' && 'signal' in input ? input.signal : undefined);
    for (;;) {
      let response: Response;
      try {
        // A Request is cloned for each attempt: fetch consumes its body.
        response = await fetchFunction(typeof input === 'object' && 'clone' in input ? input.clone() : input, init);
      } catch (cause) {
        if (signal?.aborted === true) throw cause; // the caller's own abort, as fetch reports it
        const waitMs = schedule.failed(cause);
        if (waitMs === undefined) throw connectionFailed(cause, schedule.attempts);
        await wait(waitMs, scheduler, signal);
        continue;
      }
      const limits = options.onRateLimits === undefined ? undefined : readRateLimits(response.headers, settings.now());
      if (limits !== undefined) options.onRateLimits!(limits, response.status);
      const waitMs = schedule.answered(response.status, response.headers);
      if (waitMs === undefined) {
        if (schedule.retries > 0 || response.status < 200 || response.status > 299) recordAttempts(response, schedule.attempts);
        return response;
      }
      // Dropped unread: its connection closes now rather than holding a body nobody will read.
      response.body?.cancel().catch(() => undefined);
      await wait(waitMs, scheduler, signal);
    }
  };
}
