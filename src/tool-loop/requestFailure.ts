import type { LlmStreamError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { transportFailure } from '../io/transportFailure.js';
import { answerError } from '../request/answerError.js';
import { failureKind } from '../request/answerHead.js';

/**
 * The library's error for what a step's `request` failed with: the library's own errors as they are;
 * an HTTP answer that a transport raised as an error (Angular's `HttpErrorResponse`, a client's error
 * with a `status` from 400 to 599) a `ProviderError` with that status, the body it carried and the rate
 * limits its headers announced (`answerError`, as the retrying requests make it); anything
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
  const failure = failureKind(error);
  if (failure.kind === 'answer' && failure.status >= 400 && failure.status <= 599) {
    return answerError(error as object, failure.status, failure.headers);
  }
  return transportFailure(error, { chunks: 0, bytes: 0 });
}
