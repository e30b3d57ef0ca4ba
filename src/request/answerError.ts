import type { ProviderError, RequestAttempt } from '../errors/errors.js';
import { parseErrorBody, providerErrorFromBody } from '../errors/errorBody.js';
import type { HeadersLike } from '../internal/headerValue.js';
import { readRateLimits } from '../rate-limits/readRateLimits.js';

/**
 * The `ProviderError` of an answer with an error status that a transport raised as an error
 * (Angular's `HttpErrorResponse`, whose `error` is the body; another client's `body`: parsed when it
 * is JSON text), with the
 * rate limits its headers announced and, after retries, every attempt. The error is the `cause`.
 *
 * @example
 * ```ts
 * answerError(httpErrorResponse, 429, httpErrorResponse.headers); // ProviderError, status 429, rateLimits
 * ```
 */
export function answerError(
  error: object,
  status: number,
  headers: HeadersLike | undefined,
  attempts?: readonly RequestAttempt[],
): ProviderError {
  // Angular's HttpErrorResponse keeps the body in `error`; other clients in `body`.
  const answer = error as { error?: unknown; body?: unknown };
  const raw = answer.error !== undefined ? answer.error : answer.body;
  const rateLimits = headers === undefined ? undefined : readRateLimits(headers);
  return providerErrorFromBody(typeof raw === 'string' ? parseErrorBody(raw) : raw, {
    status,
    cause: error,
    ...(attempts === undefined ? {} : { attempts }),
    ...(rateLimits === undefined ? {} : { rateLimits }),
  });
}
