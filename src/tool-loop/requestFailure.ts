import type { LlmStreamError } from '../errors/errors.js';
import { providerErrorFromBody } from '../errors/errorBody.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { transportFailure } from '../io/transportFailure.js';

/**
 * The library's error for what a step's `request` failed with: the library's own errors as they are;
 * an HTTP answer that a transport raised as an error (Angular's `HttpErrorResponse`, a client's error
 * with a `status` of 400 or more) a `ProviderError` with that status and the body it carried; anything
 * else (a `fetch` rejected before a response, a socket reset, an `HttpErrorResponse` of status 0) a
 * `StreamClosedEarlyError` of reason `transport`. The platform's error is the `cause` of each, so
 * that a loop ends in one of the library's classes whatever transport the app chose.
 *
 * @example
 * ```ts
 * requestFailure(new TypeError('fetch failed')); // StreamClosedEarlyError, reason 'transport'
 * requestFailure({ status: 429, error: { error: { message: 'Slow down' } } }); // ProviderError, status 429
 * ```
 */
export function requestFailure(error: unknown): LlmStreamError {
  if (isLlmStreamError(error)) return error;
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
    // Angular's HttpErrorResponse keeps the parsed body in `error`; other clients in `body`.
    const answer = error as { error?: unknown; body?: unknown };
    return providerErrorFromBody(answer.error !== undefined ? answer.error : answer.body, { status, cause: error });
  }
  return transportFailure(error, { chunks: 0, bytes: 0 });
}
