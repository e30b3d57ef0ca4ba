// Apart from `ToolLoopError` so that the base's union of every reason names it without importing
// the class that extends the base.

/**
 * Why a tool loop ended in error (`ToolLoopError.reason`):
 *
 * - `max-steps`: the model still asked for calls after `maxSteps` steps (their results are in the
 *   conversation the error carries, ready for another loop);
 * - `tool-failed`: a tool threw, rejected or errored under `onToolError: 'end'` (the tool's error is
 *   the `cause`).
 */
export type ToolLoopReason = (typeof TOOL_LOOP_REASONS)[number];

/**
 * Every {@link ToolLoopReason}.
 *
 * @example
 * ```ts
 * import { TOOL_LOOP_REASONS, type ToolLoopError } from 'rxjs-llm-stream';
 *
 * const known = (error: ToolLoopError<unknown>) => TOOL_LOOP_REASONS.includes(error.reason);
 * ```
 */
export const TOOL_LOOP_REASONS = ['max-steps', 'tool-failed'] as const;
