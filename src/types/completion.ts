/**
 * The assembled reply and the reply so far: `Completion` and, beside it, the snapshots that a UI
 * shows while the reply streams and that every error's `partial` carries. `events.ts` re-exports
 * every one.
 */

import type {
  JsonValue,
  FinishReason,
  Usage,
  Timings,
  ToolCall,
  IncompleteToolCall,
  Logprobs,
  Source,
  AudioOutput,
  ProviderToolCall,
  ProviderMetadata,
  ToolRequest,
  OpaqueItem,
  FinishDetails,
} from './replyParts.js';
import type { ReplyTimings } from './replyTimings.js';

/**
 * The parts of a reply beside its text and calls, each present only when the stream carried it: a
 * choice, a completion and a snapshot have them (the top-level ones are choice 0's).
 */
export interface ReplyExtraParts {
  /** Calls the token limit cut (finish `length`), with their text: never to be run. Only when any. */
  readonly incompleteToolCalls?: readonly IncompleteToolCall[];
  /** Log probabilities, when the request asked for them. */
  readonly logprobs?: Logprobs;
  /** Sources cited or searched, in arrival order (only when any came). */
  readonly sources?: readonly Source[];
  /** What the provider said of the finish beyond its reason (only when it said any). */
  readonly finishDetails?: FinishDetails;
  /** Audio output (only when any came). */
  readonly audio?: AudioOutput;
  /** Tools the provider ran itself, with their results (only when any came). */
  readonly providerToolCalls?: readonly ProviderToolCall[];
  /**
   * Calls that wait for the program's answer or approval and are not plain function calls (an MCP
   * approval request, a built-in tool the program runs), in arrival order (only when any came). Never
   * among `toolCalls`, and never a reason to finish `tool_calls`.
   */
  readonly toolRequests?: readonly ToolRequest[];
  /**
   * What the next turn must send back verbatim (signatures, encrypted reasoning, compaction, a
   * container, a continuation token), each with the part it belongs to, in arrival order (only when
   * any came). `reasoningSignatures` is the older, flat view of the reasoning signatures among them.
   */
  readonly opaqueItems?: readonly OpaqueItem[];
  /**
   * What the provider sent that no field names, by provider (only when any came). On a choice, what
   * came with that choice; on a completion or a snapshot, what came with the reply as a whole (its
   * envelope): unlike the parts above, the top level is not choice 0's.
   */
  readonly providerMetadata?: ProviderMetadata;
}

/** One choice of a completion (one per choice when `n > 1`). */
export interface CompletionChoice extends ReplyExtraParts {
  readonly index: number;
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly refusal: string | null;
  /** Complete calls in index order. */
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly rawFinishReason: string;
  /** Opaque reasoning artifacts to send back on the next turn, in arrival order (only when any came). */
  readonly reasoningSignatures?: readonly string[];
}

/**
 * The assembled reply, shaped so that code written for non-streaming replies can use it as it is.
 * The top-level text, calls and finish reason are choice 0's; `choices` has every choice.
 */
export interface Completion extends ReplyExtraParts {
  readonly id: string;
  readonly model: string | null;
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly refusal: string | null;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly rawFinishReason: string;
  readonly usage: Usage | null;
  readonly timings: Timings | null;
  /**
   * How the reply came in over time (time to the first chunk, gaps, tokens per second), when
   * `measureReply()` was in the pipeline before `finalizeCompletion`.
   */
  readonly replyTimings?: ReplyTimings;
  /** Tokens generated while the model was reasoning (llama.cpp: `timings.predicted_n` at the last reasoning chunk). */
  readonly reasoningTokens: number;
  /** Choice 0's opaque reasoning artifacts for the next turn (only when any came). */
  readonly reasoningSignatures?: readonly string[];
  readonly choices: readonly CompletionChoice[];
}

/** A tool call as far as it has arrived (the `partial` of a truncated stream lists these). */
export interface PartialToolCall {
  /** `'custom'` for a custom (free-form) call, whose text is never parsed. */
  readonly kind?: 'function' | 'custom';
  readonly index: number;
  /** `null` until a fragment names it. */
  readonly id: string | null;
  readonly name: string | null;
  /** The argument text so far. */
  readonly arguments: string;
  /** The parsed arguments, once the call has closed. */
  readonly args?: JsonValue;
  readonly complete: boolean;
  /** What the provider sent with this call that no field names (only when any came). */
  readonly providerMetadata?: ProviderMetadata;
}

/** One choice as far as it has arrived. */
export interface ChoiceSnapshot extends ReplyExtraParts {
  readonly index: number;
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly refusal: string | null;
  readonly toolCalls: readonly PartialToolCall[];
  readonly finishReason: FinishReason | null;
  readonly rawFinishReason: string | null;
  /** Opaque reasoning artifacts so far, in arrival order (only when any came). */
  readonly reasoningSignatures?: readonly string[];
}

/**
 * The completion so far: what a UI shows while the reply streams, and the `partial` of every error
 * raised once assembly has begun. The top-level fields are choice 0's.
 */
export interface CompletionSnapshot extends ReplyExtraParts {
  readonly id: string | null;
  readonly model: string | null;
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly refusal: string | null;
  readonly toolCalls: readonly PartialToolCall[];
  readonly finishReason: FinishReason | null;
  readonly rawFinishReason: string | null;
  readonly usage: Usage | null;
  readonly timings: Timings | null;
  /** How the reply came in over time, once `measureReply()` told it (at the end, or before the error). */
  readonly replyTimings?: ReplyTimings;
  readonly reasoningTokens: number;
  /** True while the latest text was reasoning (false after answer text or a tool-call fragment). */
  readonly inReasoning: boolean;
  /** True once every choice seen has finished. */
  readonly finished: boolean;
  /** Choice 0's opaque reasoning artifacts so far (only when any came): an error's partial keeps them too. */
  readonly reasoningSignatures?: readonly string[];
  readonly choices: readonly ChoiceSnapshot[];
}
