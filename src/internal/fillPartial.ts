import { LlmStreamError } from '../errors.js';
import { CompletionTracker } from '../core/CompletionTracker.js';

/**
 * Gives a library error the completion assembled so far as its `partial`, so that nothing that
 * arrived is lost when the stream fails. Other errors (a network failure) pass unchanged.
 */
export function fillPartial(error: unknown, tracker: CompletionTracker): unknown {
  if (error instanceof LlmStreamError) error.partial = tracker.snapshot();
  return error;
}
