import type { JsonValue } from '../types/replyParts.js';

/**
 * What a program's tool gave back for one call, as every provider's results builder takes it: the
 * call's id and name (from the `ToolCall`) and either its `output` (a string goes as it is, any other
 * value as JSON) or its `error` (a message the model reads; the builders mark it as a failure where the
 * provider has a way to).
 *
 * @example
 * ```ts
 * import type { ToolResult } from 'rxjs-llm-stream';
 *
 * const results: ToolResult[] = [
 *   { callId: 'toolu_01', name: 'get_weather', output: { temperature: 21 } },
 *   { callId: 'toolu_02', name: 'get_weather', error: 'Unknown city: Atlantis' },
 * ];
 * ```
 */
export type ToolResult = ToolOutput | ToolFailure;

/** A call that ran: what it returned. */
export interface ToolOutput {
  readonly callId: string;
  readonly name: string;
  /** The call's `kind` (`'custom'` for a custom call: the Responses API answers it with another item). */
  readonly kind?: 'function' | 'custom';
  readonly output: JsonValue;
  readonly error?: undefined;
}

/** A call that failed: the message the model is shown. */
export interface ToolFailure {
  readonly callId: string;
  readonly name: string;
  readonly kind?: 'function' | 'custom';
  readonly error: string;
  readonly output?: undefined;
}

/**
 * A result as the text a provider takes where it wants a string: the output as it is when it is one,
 * else its JSON; an error as `{"error": message}`, so that the model cannot read it as an output.
 *
 * @example
 * ```ts
 * resultText({ callId: 'c1', name: 'add', output: 3 }); // '3'
 * resultText({ callId: 'c1', name: 'add', error: 'overflow' }); // '{"error":"overflow"}'
 * ```
 */
export function resultText(result: ToolResult): string {
  if (result.error !== undefined) return JSON.stringify({ error: result.error });
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}
