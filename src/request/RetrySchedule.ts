import type { RequestAttempt } from '../errors/errors.js';
import type { HeadersLike } from '../internal/headerValue.js';
import { RetrySettings, backoffMs, isRetryableStatus, serverWaitMs } from './retryDelay.js';

/**
 * The attempts of one request and the decision after each, without timers: the request wrappers
 * report what each attempt came to, and this says whether to try again and after how long.
 * Only what happened before any byte of a body is reported to it: a reply that started is never
 * retried.
 */
export class RetrySchedule {
  private readonly made: RequestAttempt[] = [];

  constructor(private readonly settings: RetrySettings) {}

  /** Every attempt so far, the last one last; the waits between them on all but the last. */
  get attempts(): readonly RequestAttempt[] {
    return this.made.slice();
  }

  /** Retries made so far. */
  get retries(): number {
    return Math.max(0, this.made.length - 1);
  }

  /**
   * An attempt answered with `status`: the milliseconds to wait before the next attempt, or
   * `undefined` when this answer is the last (a success, a status not to retry, or no retry left).
   */
  answered(status: number, headers: HeadersLike | undefined): number | undefined {
    const retryable = (status < 200 || status > 299) && isRetryableStatus(status, headers);
    return this.record({ status }, retryable, headers);
  }

  /** An attempt whose connection failed before any answer: the wait before the next, or `undefined`. */
  failed(cause: unknown): number | undefined {
    return this.record({ cause }, true, undefined);
  }

  private record(attempt: RequestAttempt, retryable: boolean, headers: HeadersLike | undefined): number | undefined {
    const retry = this.made.length; // the number of the retry this would be, from 0
    if (!retryable || retry >= this.settings.maxRetries) {
      this.made.push(attempt);
      return undefined;
    }
    const waitMs = serverWaitMs(headers, this.settings) ?? backoffMs(retry, this.settings);
    this.made.push({ ...attempt, waitMs });
    return waitMs;
  }
}
