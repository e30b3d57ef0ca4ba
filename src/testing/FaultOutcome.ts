import type { ClosedEarlyReason, ProviderReason } from '../errors/errors.js';
import type { FinishReason } from '../types/replyParts.js';

/**
 * A tool call as far as the stream carried it before a fault: its argument text so far.
 *
 * @example
 * ```ts
 * import type { TestPartialCall } from 'rxjs-llm-stream/testing';
 *
 * const cut: TestPartialCall = { index: 0, id: 'call_0', name: 'get_weather', arguments: '{"city":"Os' };
 * ```
 */
export interface TestPartialCall {
  readonly index: number;
  readonly id: string | null;
  readonly name: string | null;
  /** The argument text that arrived (a prefix of the whole when the fault cut the call). */
  readonly arguments: string;
}

/**
 * One choice as far as the stream carried it before a fault.
 *
 * @example
 * ```ts
 * import type { TestPartialChoice } from 'rxjs-llm-stream/testing';
 *
 * const soFar: TestPartialChoice = { index: 0, content: 'Let me', reasoning: null, toolCalls: [], finishReason: null };
 * ```
 */
export interface TestPartialChoice {
  readonly index: number;
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly toolCalls: readonly TestPartialCall[];
  /** Null until the choice's finish arrived. */
  readonly finishReason: FinishReason | null;
}

/**
 * What the complete events before a fault carried, in the shape of the `CompletionSnapshot` an
 * error's `partial` holds, for `toMatchObject`: the text, the reasoning, the calls and the finish of
 * every choice the stream had named (the top-level fields are choice 0's, present once it was
 * named). Usage is left out: providers report it as running counts that the kit does not restate.
 *
 * @example
 * ```ts
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * const stream = providerStream(reply, 'anthropic', { fault: 'cut-in-arguments' });
 * // ... run the stream, catch `err` ...
 * expect(err.partial).toMatchObject(stream.fault!.partial);
 * ```
 */
export interface TestPartial {
  readonly content?: string | null;
  readonly reasoning?: string | null;
  readonly toolCalls?: readonly TestPartialCall[];
  readonly finishReason?: FinishReason | null;
  readonly choices: readonly TestPartialChoice[];
}

/**
 * The error the library promises for a fault, with its `reason`, and what its `partial` shows. The
 * same error ends the README's pipeline (`decodeUtf8()`, `sseFrames()` or `ndjsonFrames()` or
 * `awsEventStreamFrames()`, `assembleChunks()`, `groupToolCallsByIndex()`, `finalizeCompletion()`);
 * a stall ends in a `StreamIdleError` only under an idle timeout (`idleTimeout()` or a source's).
 *
 * @example
 * ```ts
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * providerStream(reply, 'openai-chat', { fault: 'cut-before-end' }).fault;
 * // { kind: 'cut-before-end', error: 'StreamClosedEarlyError', reason: 'no-end-signal', partial: { ... } }
 * ```
 */
export interface FaultOutcome {
  /** The fault the stream was written with. */
  readonly kind: 'cut-mid-line' | 'cut-before-end' | 'cut-in-arguments' | 'error' | 'stall';
  /** The class of the error (its `name`). */
  readonly error: 'StreamClosedEarlyError' | 'ProviderError' | 'StreamIdleError';
  /** The error's `reason`. */
  readonly reason: ClosedEarlyReason | ProviderReason | 'idle';
  /** What the error's `partial` shows of the reply. */
  readonly partial: TestPartial;
}
