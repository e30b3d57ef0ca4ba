import { LlmStreamError, type LlmStreamErrorOptions } from '../errors/errors.js';
import type { ToolLoopReason } from '../errors/toolLoopReasons.js';
import type { ToolLoopPartial } from './ToolLoopEvent.js';

/**
 * A tool loop that cannot go on: the model still asked for calls after `maxSteps` steps
 * (`max-steps`), or a tool failed under `onToolError: 'end'` (`tool-failed`, the tool's error as
 * `cause`). `partial` is what the loop had: the conversation (after the last step's results, for
 * `max-steps`: send it again to go on) and the usage of every step.
 *
 * @example
 * ```ts
 * import { ToolLoopError } from 'rxjs-llm-stream';
 *
 * loop$.subscribe({
 *   error: (err) => {
 *     if (err instanceof ToolLoopError && err.reason === 'max-steps') askToContinue(err.partial.conversation);
 *   },
 * });
 * ```
 */
export class ToolLoopError<Message> extends LlmStreamError {
  override readonly name = 'ToolLoopError';
  readonly reason: ToolLoopReason;
  declare partial: ToolLoopPartial<Message>;

  constructor(message: string, options: LlmStreamErrorOptions<ToolLoopReason> & { readonly partial: ToolLoopPartial<Message> }) {
    super(message, options);
    this.reason = options.reason ?? 'max-steps';
  }
}
