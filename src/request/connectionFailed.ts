import { RequestAttempt, StreamClosedEarlyError } from '../errors/errors.js';
import { describeFailure } from '../io/transportFailure.js';

/**
 * The error of a request whose every attempt failed before an answer (refused, reset, no route):
 * a `StreamClosedEarlyError` with reason `transport`, as a connection that fails later is, carrying
 * the last platform error as `cause` and every attempt.
 */
export function connectionFailed(cause: unknown, attempts: readonly RequestAttempt[]): StreamClosedEarlyError {
  const tries = attempts.length === 1 ? '1 attempt' : `${attempts.length} attempts`;
  return new StreamClosedEarlyError(`the connection failed before any byte arrived (${tries}): ${describeFailure(cause)}`, {
    reason: 'transport',
    cause,
    attempts,
  });
}
