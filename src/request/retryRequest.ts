import { Observable, SchedulerLike, Subscription, asyncScheduler } from 'rxjs';
import { ProviderError, StreamClosedEarlyError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { recordAttempts } from '../io/answerAttempts.js';
import type { HeadersLike } from '../internal/headerValue.js';
import { readRateLimits } from '../rate-limits/readRateLimits.js';
import type { RateLimits } from '../types/rateLimits.js';
import { emittedHead, failureKind } from './answerHead.js';
import { answerError } from './answerError.js';
import { connectionFailed } from './connectionFailed.js';
import { RetryOptions, retrySettings } from './retryDelay.js';
import { RetrySchedule } from './RetrySchedule.js';

/**
 * Options of {@link retryRequest}.
 *
 * @example
 * ```ts
 * import { retryRequest, type RetryRequestOptions } from 'rxjs-llm-stream';
 *
 * const options: RetryRequestOptions = { maxRetries: 3, onRateLimits: (limits) => console.log(limits.requests?.remaining) };
 * ```
 */
export interface RetryRequestOptions extends RetryOptions {
  /** Where the waits run: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
  /** Called with the rate limits of every answer whose headers announced any, retried ones included. */
  readonly onRateLimits?: (limits: RateLimits, status: number) => void;
}

/**
 * The typed error for a request's last failure: a library error keeps its class (a `ProviderError`
 * or a transport's `StreamClosedEarlyError` retried gains the attempts); an answer with an error
 * status (Angular's `HttpErrorResponse`) is a `ProviderError` with its body, rate limits and the
 * attempts; a failure before any answer a `StreamClosedEarlyError` with reason `transport`.
 */
function finalError(
  error: unknown,
  head: { status: number; headers: HeadersLike | undefined } | undefined,
  schedule: RetrySchedule,
): unknown {
  const attempts = schedule.attempts;
  if (error instanceof ProviderError && error.attempts === undefined && attempts.length > 1) {
    return new ProviderError(error.message, {
      reason: error.reason,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.type === undefined ? {} : { type: error.type }),
      ...(error.code === undefined ? {} : { code: error.code }),
      ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
      ...(error.rateLimits === undefined ? {} : { rateLimits: error.rateLimits }),
      body: error.body,
      cause: error.cause,
      attempts,
    });
  }
  // A transport failure of this library's sources, retried: the same class, saying how often it was tried.
  if (error instanceof StreamClosedEarlyError && error.attempts === undefined && attempts.length > 1)
    return connectionFailed(error, attempts);
  if (isLlmStreamError(error)) return error;
  if (head === undefined || typeof error !== 'object' || error === null) return connectionFailed(error, attempts);
  return answerError(error, head.status, head.headers, attempts);
}

/**
 * The RxJS form of `retryingFetch`, for any request made as an `Observable`: Angular's
 * `HttpClient` (with `observe: 'events'`, `reportProgress: true`, or a plain response), `fromFetch`
 * from `rxjs/fetch`, or a source of this library. `request` is called once per attempt; an attempt
 * is retried, on the same terms as `retryingFetch` (408, 409, 429, 5xx and connection failures;
 * `retry-after-ms`, `Retry-After`, `x-should-retry`; 2 retries by default; backoff with jitter),
 * only while nothing of its reply has been emitted:
 *
 * - an error before the reply: Angular's `HttpErrorResponse` (its `status` and `headers`; status 0
 *   is a connection failure), a `ProviderError` of an error status, or a platform error;
 * - a head with an error status: a fetch `Response` not yet read, or Angular's `HttpHeaderResponse`.
 *
 * Angular's `HttpSentEvent` and upload progress pass through and keep the request retryable; any
 * other value (a body chunk, a download progress, a 2xx `Response`) means the reply started, and
 * from then on nothing is retried and every value and error passes through untouched. The last
 * failure is typed: a `ProviderError` with the status, the body, `rateLimits` and `attempts`, or a
 * `StreamClosedEarlyError` (reason `transport`) with `attempts` when no attempt was answered; a
 * `Response` with an error status is emitted as it is, for `fromResponse` to read (with its
 * `attempts`). Unsubscribing during a wait cancels it, and no attempt follows.
 *
 * @example
 * ```ts
 * import { HttpClient, HttpEventType, type HttpEvent } from '@angular/common/http';
 * import { filter, map } from 'rxjs';
 * import { retryRequest, transcriptDeltas, sseFrames, assembleChunks, scanCompletion } from 'rxjs-llm-stream';
 *
 * declare const http: HttpClient;
 * const reply$ = retryRequest(() => http.post('/api/chat', body, { observe: 'events', responseType: 'text', reportProgress: true })).pipe(
 *   filter((event: HttpEvent<string>) => event.type === HttpEventType.DownloadProgress),
 *   map((event) => ('partialText' in event ? (event.partialText ?? '') : '')),
 *   transcriptDeltas(),
 *   sseFrames(),
 *   assembleChunks(),
 *   scanCompletion(),
 * );
 * ```
 *
 * @param request Makes one attempt: called again for each retry, its previous subscription ended.
 * @param options `maxRetries`, `initialDelayMs`, `maxDelayMs`, `maxRetryAfterMs`, `random`, `now`, `scheduler`, `onRateLimits`.
 * @returns The values of the attempt that was answered, or the typed error of the last.
 */
export function retryRequest<T>(request: () => Observable<T>, options: RetryRequestOptions = {}): Observable<T> {
  const settings = retrySettings(options, 'retryRequest');
  const scheduler = options.scheduler ?? asyncScheduler;
  return new Observable<T>((subscriber) => {
    // Per subscription: a resubscribe starts a new request with every retry again.
    const schedule = new RetrySchedule(settings);
    let started = false;
    const report = (headers: HeadersLike | undefined, status: number): void => {
      if (options.onRateLimits === undefined || headers === undefined) return;
      const limits = readRateLimits(headers, settings.now());
      if (limits !== undefined) options.onRateLimits(limits, status);
    };
    const start = (): void => {
      if (subscriber.closed) return;
      let source: Observable<T>;
      try {
        source = request();
      } catch (error) {
        subscriber.error(error); // the caller's own code failed: not an attempt
        return;
      }
      let stopped = false;
      /** The head of this attempt's answer when it had an error status and is not retried: its body is no reply. */
      let refused: { readonly status: number; readonly headers: HeadersLike | undefined } | undefined;
      // Held in an object: a synchronous source can refuse the attempt before `subscribe` returns.
      const attempt: { subscription?: Subscription } = {};
      /** Ends this attempt (unanswered or refused) and schedules the next. */
      const retryAfter = (waitMs: number): void => {
        stopped = true;
        attempt.subscription?.unsubscribe();
        subscriber.add(scheduler.schedule(start, waitMs));
      };
      /** Runs a step of the decision; what it throws (the caller's `onRateLimits`) ends the stream with that error. */
      const guarded = (step: () => void): void => {
        try {
          step();
        } catch (error) {
          stopped = true;
          attempt.subscription?.unsubscribe();
          subscriber.error(error);
        }
      };
      const current = source.subscribe({
        next: (value) =>
          guarded(() => {
            if (stopped || refused !== undefined) return; // an error answer's body (Angular's progress of it): its error follows
            if (!started) {
              const head = emittedHead(value);
              if (head.kind === 'head' && head.status !== undefined) {
                report(head.headers, head.status);
                const waitMs = schedule.answered(head.status, head.headers);
                if (waitMs !== undefined) {
                  cancelBody(value);
                  return retryAfter(waitMs);
                }
                if (schedule.retries > 0 || head.status < 200 || head.status > 299) recordAttempts(value as object, schedule.attempts);
                // Angular's head of an error answer: the error with its body comes next, and is this request's last.
                if ((head.status < 200 || head.status > 299) && !emittedResponse(value))
                  refused = { status: head.status, headers: head.headers };
              }
              if (head.kind !== 'sent') started = head.kind === 'body' || emittedResponse(value);
            }
            subscriber.next(value);
          }),
        error: (error: unknown) =>
          guarded(() => {
            if (stopped) return;
            if (started) return subscriber.error(error);
            const failure = failureKind(error);
            if (refused !== undefined) return subscriber.error(finalError(error, failure.kind === 'answer' ? failure : refused, schedule));
            if (failure.kind === 'final') return subscriber.error(finalError(error, undefined, schedule));
            const head = failure.kind === 'answer' ? failure : undefined;
            if (head !== undefined) report(head.headers, head.status);
            const waitMs = head === undefined ? schedule.failed(error) : schedule.answered(head.status, head.headers);
            if (waitMs === undefined) return subscriber.error(finalError(error, head, schedule));
            retryAfter(waitMs);
          }),
        complete: () => {
          if (!stopped) subscriber.complete();
        },
      });
      // A source that answered synchronously and was refused is ended now that its subscription exists.
      if (stopped) current.unsubscribe();
      else subscriber.add((attempt.subscription = current));
    };
    start();
  });
}

/** A fetch `Response` handed on: its body is the caller's from now on. */
function emittedResponse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'bodyUsed' in value;
}

/** Drops the body of a `Response` that is retried, so its connection closes now. */
function cancelBody(value: unknown): void {
  const body = (value as { body?: { cancel?: () => Promise<void> } | null }).body;
  body?.cancel?.().catch(() => undefined);
}
