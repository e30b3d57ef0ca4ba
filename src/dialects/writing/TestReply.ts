import type { FinishReason, JsonValue, Usage } from '../../types/replyParts.js';

/**
 * A tool call as a test describes it. `arguments` is the JSON value the call carries, or its raw
 * text when the test needs text that is not JSON (a cut call, a custom tool's free-form input).
 */
export interface TestToolCall {
  /**
   * The provider's call id; the kit makes one up (`call_0`, ...) when absent, except for Gemini, whose
   * wire then carries none (the library names the call `<responseId>-call-<n>`).
   */
  readonly id?: string;
  readonly name: string;
  readonly arguments: JsonValue | { readonly raw: string };
  /**
   * `'custom'` for a custom (free-form) tool call, whose input is raw text never parsed: give its
   * `arguments` as `{ raw }`. Absent: a function call, with JSON arguments.
   */
  readonly kind?: 'function' | 'custom';
}

/** One choice of a reply: what the model said, in the order a provider streams it. */
export interface TestChoice {
  /** Reasoning text, streamed before the content where the dialect has reasoning. */
  readonly reasoning?: string;
  readonly text?: string;
  readonly toolCalls?: readonly TestToolCall[];
  /** `stop` when absent, or `tool_calls` when the choice made calls. */
  readonly finishReason?: FinishReason;
  /**
   * The provider's own finish value to write (`end_turn`, `stop_sequence`, `STOP`, ...), when a test
   * needs that one; absent, the kit writes the format's value for `finishReason`.
   */
  readonly rawFinishReason?: string;
  /**
   * Opaque reasoning artifacts to write, in order (Anthropic's thinking signature, Gemini's
   * `thoughtSignature`, the Responses `encrypted_content`): the completion's `reasoningSignatures`.
   * The kit writes none unless given.
   */
  readonly reasoningSignatures?: readonly string[];
}

/**
 * A whole reply as a test describes it: the input from which the kit writes any provider's bytes,
 * and against which its assertions check a `Completion` or a stream's events.
 *
 * @example
 * ```ts
 * const reply: TestReply = { choices: [{ text: 'Hello', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }] };
 * ```
 */
export interface TestReply {
  readonly choices: readonly TestChoice[];
  readonly usage?: Usage;
  readonly model?: string;
  readonly id?: string;
}
