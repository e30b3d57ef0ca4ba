import type { RequestAttempt } from '../errors/errors.js';

/**
 * The attempts behind each answer a retrying request handed on, so that the `ProviderError` made
 * later from that answer (by `fromResponse`) lists them. Weak: an answer nobody holds is forgotten.
 */
const ATTEMPTS = new WeakMap<object, readonly RequestAttempt[]>();

/** Records the attempts that led to `answer` (a fetch `Response`, or whatever a request emitted). */
export function recordAttempts(answer: object, attempts: readonly RequestAttempt[]): void {
  ATTEMPTS.set(answer, attempts);
}

/** The attempts that led to `answer`, when a retrying request made it. */
export function attemptsOf(answer: object): readonly RequestAttempt[] | undefined {
  return ATTEMPTS.get(answer);
}
