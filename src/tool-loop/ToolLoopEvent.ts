import type { ToolFailure, ToolOutput, ToolResult } from '../next-turn/ToolResult.js';
import type { Completion, CompletionSnapshot } from '../types/completion.js';
import type { ChatEvent } from '../types/events.js';
import type { FinishReason, ToolCall, Usage } from '../types/replyParts.js';

/**
 * One step as the loop counts it: its number (from 1), what the provider reported of its usage, why
 * it finished, and how many of the program's calls it made.
 *
 * @example
 * ```ts
 * import type { ToolLoopStep } from 'rxjs-llm-stream';
 *
 * const total = (steps: readonly ToolLoopStep[]) => steps.reduce((sum, step) => sum + (step.usage?.totalTokens ?? 0), 0);
 * ```
 */
export interface ToolLoopStep {
  readonly step: number;
  readonly usage: Usage | null;
  /** `null` for a step cut before its finish. */
  readonly finishReason: FinishReason | null;
  readonly toolCalls: number;
}

/**
 * What a loop had when it failed: the `partial` of the error it ends in (a cut stream's
 * `StreamClosedEarlyError`, a `ProviderError`, a `ToolLoopError`, ... any error of this library). The
 * conversation is a whole one (every call answered): the messages the loop started with and those of
 * the steps that finished; `reply` is the failed step's reply so far, which the error's layer gave as
 * its partial; `steps` has every step begun, the failed one last.
 *
 * @example
 * ```ts
 * import { isToolLoopPartial, LlmStreamError } from 'rxjs-llm-stream';
 *
 * loop$.subscribe({
 *   error: (err) => {
 *     if (err instanceof LlmStreamError && isToolLoopPartial(err.partial)) save(err.partial.conversation);
 *   },
 * });
 * ```
 */
export interface ToolLoopPartial<Message> {
  readonly conversation: readonly Message[];
  readonly steps: readonly ToolLoopStep[];
  readonly reply?: CompletionSnapshot | Completion;
}

/**
 * True when an error's `partial` is a loop's (see {@link ToolLoopPartial}).
 *
 * @example
 * ```ts
 * if (isToolLoopPartial(error.partial)) console.log(error.partial.steps.length, 'steps');
 * ```
 */
export function isToolLoopPartial(value: unknown): value is ToolLoopPartial<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const partial = value as { conversation?: unknown; steps?: unknown };
  return Array.isArray(partial.conversation) && Array.isArray(partial.steps);
}

/** Why a call's result is an error: its arguments, a tool nobody declared, the app's denial, or the tool's own error. */
export type ToolErrorReason = 'invalid-arguments' | 'unknown-tool' | 'denied' | 'failed';

/**
 * What a tool loop emits, in order: per step `step-start`, the reply's events as they arrive
 * (`event`), `approval-request` for a call that waits for the app, `tool-result` / `tool-error` per
 * call in call order, `step-finish`; then `loop-finish` once.
 *
 * @example
 * ```ts
 * import type { ToolLoopEvent } from 'rxjs-llm-stream';
 *
 * function show(event: ToolLoopEvent<unknown>): void {
 *   if (event.type === 'event' && event.event.type === 'content') process.stdout.write(event.event.text);
 *   if (event.type === 'tool-result') console.log(event.call.name, '→', event.result.output);
 * }
 * ```
 */
export type ToolLoopEvent<Message> =
  | ToolLoopStepStart<Message>
  | ToolLoopReplyEvent
  | ToolLoopApprovalRequest
  | ToolLoopResultEvent
  | ToolLoopErrorEvent
  | ToolLoopStepFinish<Message>
  | ToolLoopFinish<Message>;

/** A step begins: its request is made with this conversation. */
export interface ToolLoopStepStart<Message> {
  readonly type: 'step-start';
  readonly step: number;
  readonly conversation: readonly Message[];
}

/** An event of the step's reply, as the pipeline made it, live. */
export interface ToolLoopReplyEvent {
  readonly type: 'event';
  readonly step: number;
  readonly event: ChatEvent;
}

/** A call waits for the app's answer (`approve`). */
export interface ToolLoopApprovalRequest {
  readonly type: 'approval-request';
  readonly step: number;
  readonly call: ToolCall;
}

/** A call's output, in call order. */
export interface ToolLoopResultEvent {
  readonly type: 'tool-result';
  readonly step: number;
  readonly call: ToolCall;
  readonly result: ToolOutput;
}

/** A call whose result is an error the model will read, in call order; `cause` is what the tool threw. */
export interface ToolLoopErrorEvent {
  readonly type: 'tool-error';
  readonly step: number;
  readonly call: ToolCall;
  readonly result: ToolFailure;
  readonly reason: ToolErrorReason;
  readonly cause?: unknown;
}

/** A step ended: its reply, its results in call order, and the conversation after it. */
export interface ToolLoopStepFinish<Message> {
  readonly type: 'step-finish';
  readonly step: number;
  readonly completion: Completion;
  readonly results: readonly ToolResult[];
  readonly conversation: readonly Message[];
}

/** The loop ended: the last step made no call (`no-calls`) or `stopWhen` said so (`stop-when`). */
export interface ToolLoopFinish<Message> {
  readonly type: 'loop-finish';
  readonly reason: 'no-calls' | 'stop-when';
  readonly completion: Completion;
  readonly conversation: readonly Message[];
  readonly steps: readonly ToolLoopStep[];
}
