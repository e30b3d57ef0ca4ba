import type { Observable } from 'rxjs';
import type { JsonValue, ToolCall } from '../types/replyParts.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';

/**
 * What a tool gives back: a value, a promise of one, or an Observable whose last value is the
 * result (a tool that reports progress emits on; the loop keeps the last value when it completes).
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import type { ToolOutcome } from 'rxjs-llm-stream';
 *
 * const now: ToolOutcome = { temperature: 21 };
 * const later: ToolOutcome = Promise.resolve('done');
 * const streamed: ToolOutcome = of('working', 'done');
 * ```
 */
export type ToolOutcome = JsonValue | PromiseLike<JsonValue> | Observable<JsonValue>;

/**
 * What the loop tells a tool beside its arguments: the call, its step, and a signal aborted when the
 * loop no longer wants the result (the subscriber left, the loop ended in error). An Observable tool is
 * unsubscribed instead; a Promise tool should pass `signal` on (to `fetch`, to a child process).
 *
 * @example
 * ```ts
 * import type { ToolContext } from 'rxjs-llm-stream';
 *
 * const lookup = (args: { url: string }, { signal }: ToolContext) => fetch(args.url, { signal }).then((r) => r.text());
 * ```
 */
export interface ToolContext {
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly step: number;
  readonly call: ToolCall;
}

/**
 * One tool of the loop: an optional Standard Schema for its arguments (a call they fail goes back to
 * the model as an error result, and `execute` gets the schema's output, defaults and transforms
 * applied), the code that runs it, and whether a call needs the app's approval first.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { LoopTool } from 'rxjs-llm-stream';
 *
 * const getWeather: LoopTool<{ city: string }> = {
 *   schema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, temperature: 21 }),
 *   needsApproval: ({ city }) => city === 'Pyongyang',
 * };
 * ```
 */
export interface LoopTool<Args = JsonValue> {
  /** Checks the model's arguments; absent, they reach `execute` as the model wrote them (parsed JSON). */
  readonly schema?: StandardSchemaV1<unknown, Args>;
  /** Runs the call; a throw, a rejection or an Observable's error is the tool's error (see `onToolError`). */
  readonly execute: (args: Args, context: ToolContext) => ToolOutcome;
  /** `true`, or a function of the checked arguments answering `true`: the call waits for `approve`. */
  readonly needsApproval?: boolean | ((args: Args, call: ToolCall) => boolean);
}

/**
 * The loop's tools by the name the model calls them, each typed by its own arguments.
 *
 * @example
 * ```ts
 * import type { LoopTools } from 'rxjs-llm-stream';
 *
 * const tools: LoopTools<{ add: { a: number; b: number } }> = { add: { execute: ({ a, b }) => a + b } };
 * ```
 */
export type LoopTools<T> = { readonly [Name in keyof T]: LoopTool<T[Name]> };
