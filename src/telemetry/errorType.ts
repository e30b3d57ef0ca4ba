import { LlmStreamError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';

/** `error.type` of a reply its subscriber left before it ended. */
export const CANCELLED_ERROR_TYPE = 'cancelled';

/**
 * The `error.type` of an error, low in cardinality as the conventions ask: for an error of this
 * library its class and reason (`StreamClosedEarlyError:no-end-signal`, `ProviderError:http-status`,
 * `StreamIdleError:idle`), for another `Error` its name (`TypeError`, `AbortError`), and `_OTHER`,
 * the conventions' fallback, for anything else.
 *
 * @example
 * ```ts
 * import { StreamClosedEarlyError, genAiErrorType } from 'rxjs-llm-stream';
 *
 * genAiErrorType(new StreamClosedEarlyError('cut', { reason: 'transport' })); // 'StreamClosedEarlyError:transport'
 * ```
 */
export function genAiErrorType(error: unknown): string {
  if (error instanceof LlmStreamError || isLlmStreamError(error)) return `${error.name}:${error.reason}`;
  if (error instanceof Error && error.name !== '') return error.name;
  return '_OTHER';
}
