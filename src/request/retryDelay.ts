import { HeadersLike, headerValue } from '../internal/headerValue.js';

/**
 * Options of the retrying requests (`retryingFetch`, `retryRequest`): how often, how long to wait.
 *
 * @example
 * ```ts
 * import type { RetryOptions } from 'rxjs-llm-stream';
 *
 * const options: RetryOptions = { maxRetries: 3, maxDelayMs: 4_000 };
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2, as the official SDKs): three attempts in all. */
  readonly maxRetries?: number;
  /** The first backoff, in milliseconds, doubled at each retry (default 500). */
  readonly initialDelayMs?: number;
  /** The longest backoff, in milliseconds (default 8,000). */
  readonly maxDelayMs?: number;
  /**
   * The longest wait a server's `retry-after-ms` or `Retry-After` may ask for (default 60,000 ms);
   * a longer one, zero or a negative one is ignored and the backoff used instead.
   */
  readonly maxRetryAfterMs?: number;
  /** A number in [0, 1) for the jitter (`Math.random` by default): a test makes it constant. */
  readonly random?: () => number;
  /** The wall clock, for a `Retry-After` that is an HTTP date (`Date.now` by default). */
  readonly now?: () => number;
}

/** The options with their defaults, checked. */
export interface RetrySettings {
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly random: () => number;
  readonly now: () => number;
}

/** The defaults of the official SDKs: two retries, 0.5 s doubling up to 8 s, a server's wait up to 60 s. */
export function retrySettings(options: RetryOptions, caller: string): RetrySettings {
  const count = (name: keyof RetryOptions, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
      throw new TypeError(`${caller}: ${name} must be a finite number of zero or more, got ${String(value)}`);
    }
    return value;
  };
  return {
    maxRetries: Math.floor(count('maxRetries', options.maxRetries, 2)),
    initialDelayMs: count('initialDelayMs', options.initialDelayMs, 500),
    maxDelayMs: count('maxDelayMs', options.maxDelayMs, 8_000),
    maxRetryAfterMs: count('maxRetryAfterMs', options.maxRetryAfterMs, 60_000),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
}

/**
 * Whether an answer with `status` may be retried: what `x-should-retry` says when it says `true`
 * or `false`; else a request timeout (408), a conflict (409, a lock), a rate limit (429) or a
 * server error (5xx).
 */
export function isRetryableStatus(status: number, headers: HeadersLike | undefined): boolean {
  const says = headerValue(headers, 'x-should-retry')?.trim().toLowerCase();
  if (says === 'true') return true;
  if (says === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asked for, in milliseconds, when it is within (0, `maxRetryAfterMs`]:
 * `retry-after-ms` (milliseconds, a decimal), else `Retry-After` in seconds or as an HTTP date
 * (counted from `now`). `undefined` when there is none or it is out of bounds.
 */
export function serverWaitMs(headers: HeadersLike | undefined, settings: RetrySettings): number | undefined {
  const inBounds = (ms: number): number | undefined => (ms > 0 && ms <= settings.maxRetryAfterMs ? ms : undefined);
  const ms = headerValue(headers, 'retry-after-ms')?.trim();
  if (ms !== undefined && /^\d+(?:\.\d+)?$/.test(ms)) {
    const wait = inBounds(Number(ms));
    if (wait !== undefined) return wait;
  }
  const after = headerValue(headers, 'retry-after')?.trim();
  if (after === undefined || after === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(after)) return inBounds(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isFinite(date) ? inBounds(date - settings.now()) : undefined;
}

/**
 * The backoff before retry number `retry` (0 for the first): `initialDelayMs` doubled at each
 * retry, at most `maxDelayMs`, less up to a quarter at random so that clients refused together do
 * not come back together.
 */
export function backoffMs(retry: number, settings: RetrySettings): number {
  const full = Math.min(settings.initialDelayMs * 2 ** retry, settings.maxDelayMs);
  const random = settings.random();
  const jitter = random >= 0 && random < 1 ? random : 0;
  return full * (1 - 0.25 * jitter);
}
