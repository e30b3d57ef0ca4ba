import type { MonoTypeOperatorFunction, Observable, Subscriber } from 'rxjs';
import type { ChatEvent, ToolCall } from '../types/events.js';

/**
 * What watches a run of a tool loop: the loop puts `step(n)` on each step's events (after they are
 * read and grouped) and runs each tool's execution through `tool`.
 *
 * @example
 * ```ts
 * import { identity } from 'rxjs';
 * import type { ToolLoopWatch } from 'rxjs-llm-stream';
 *
 * const quiet: ToolLoopWatch = { step: () => identity, tool: (_step, _call, execution) => execution };
 * ```
 */
export interface ToolLoopWatch {
  step(step: number): MonoTypeOperatorFunction<ChatEvent>;
  tool<T>(step: number, call: ToolCall, execution: Observable<T>): Observable<T>;
}

/**
 * Where a watched loop writes its events: the telemetry passes them on to the loop's subscriber and
 * sees how the loop ended.
 *
 * @example
 * ```ts
 * import type { ToolLoopOutput } from 'rxjs-llm-stream';
 *
 * declare const output: ToolLoopOutput<string>;
 * if (!output.closed) output.next('event');
 * ```
 */
export interface ToolLoopOutput<E> {
  next(value: E): void;
  error(error: unknown): void;
  complete(): void;
  readonly closed: boolean;
}

/**
 * The `telemetry` option of `toolLoop`. At each subscription the loop calls `run` with its
 * subscriber, writes its events to the `output` it gets back (which passes them on) and uses its
 * `watch` on each step and tool; the telemetry learns that the subscriber left from the teardown it
 * adds to it. `genAiToolLoop` makes the OpenTelemetry one.
 *
 * @example
 * ```ts
 * import { identity } from 'rxjs';
 * import type { ToolLoopTelemetry } from 'rxjs-llm-stream';
 *
 * const none: ToolLoopTelemetry = {
 *   run: (subscriber) => ({ output: subscriber, watch: { step: () => identity, tool: (_step, _call, execution) => execution } }),
 * };
 * ```
 */
export interface ToolLoopTelemetry {
  run<E>(subscriber: Subscriber<E>): { readonly output: ToolLoopOutput<E>; readonly watch: ToolLoopWatch };
}
