/**
 * The events and the completion that the assembly layers produce. One union, `ChatEvent`,
 * discriminated by `type`, is what every dialect maps to, so that the layers after `assembleChunks`
 * are the same whichever server answered.
 */

/** A JSON value, as `JSON.parse` returns it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Why the model stopped, normalized across providers (the raw value is kept beside it). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** Token counts, camelCase, whichever provider reported them. Absent details stay absent. */
export interface Usage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  readonly totalTokens: number | null;
  /** Prompt tokens served from the provider's cache, when reported. */
  readonly cachedPromptTokens?: number;
  /** Completion tokens spent reasoning, when reported. */
  readonly reasoningTokens?: number;
  /**
   * Present only on a figure this library estimated from the text because the stream carried no
   * usage (`finalizeCompletion({ estimateUsage: true })`): rough, never a provider's count.
   */
  readonly estimated?: true;
}

/** llama.cpp's `timings` object, as the server sent it (field names kept). */
export interface Timings {
  readonly cache_n?: number;
  readonly prompt_n?: number;
  readonly prompt_ms?: number;
  readonly prompt_per_second?: number;
  readonly predicted_n?: number;
  readonly predicted_ms?: number;
  readonly predicted_per_second?: number;
  readonly [field: string]: number | undefined;
}

/** llama.cpp's `prompt_progress`: how far the server is through reading the prompt. */
export interface PromptProgress {
  readonly total: number;
  readonly cache: number;
  readonly processed: number;
  readonly timeMs: number;
}

/** A complete tool call, emitted once its arguments are whole and parsed. */
export interface ToolCall {
  /** Position of the call within its choice (dense: 0, 1, 2, ...). */
  readonly index: number;
  readonly id: string;
  readonly name: string;
  /** The arguments exactly as the model wrote them. */
  readonly arguments: string;
  /** The arguments parsed (`""` parses as `{}`). */
  readonly args: JsonValue;
}

/** What is known of a tool call while its arguments still stream (carried by `groupToolCallsByIndex`). */
export interface ToolCallProgress {
  /** `null` until a fragment names it. */
  readonly id: string | null;
  readonly name: string | null;
  /** The argument text so far. Display only: a prefix that parses may still be growing. */
  readonly arguments: string;
  /**
   * The arguments so far as a value, open strings, arrays and objects closed (only with
   * `groupToolCallsByIndex({ previews: true })`). Display only, never for execution. The same
   * object is updated in place as fragments arrive: do not mutate it, and copy it
   * (`structuredClone`) to keep a snapshot. `undefined` until a value has begun.
   */
  readonly preview?: JsonValue;
}

/**
 * The stream named itself: once, at the first non-empty id. Formats that carry no id (Ollama,
 * llama.cpp's `/completion`) send it with `id: ''` when they first name their model.
 */
export interface StartEvent {
  readonly type: 'start';
  readonly id: string;
  readonly model: string | null;
}
/** llama.cpp prompt processing progress (`prompt_progress`). */
export interface ProgressEvent {
  readonly type: 'progress';
  readonly progress: PromptProgress;
}
/** Thinking text (`reasoning_content`, `reasoning`, thinking blocks). */
export interface ReasoningEvent {
  readonly type: 'reasoning';
  readonly choice: number;
  readonly text: string;
  /**
   * Tokens generated so far, all of them reasoning, when the server counts them as it goes
   * (llama.cpp's `timings.predicted_n` as of this chunk).
   */
  readonly reasoningTokens?: number;
}
/**
 * An opaque artifact of the model's reasoning that must be sent back on the next turn (Anthropic's
 * thinking `signature` and `redacted_thinking` data, Gemini's `thoughtSignature`, OpenAI Responses'
 * `encrypted_content`). Not text: never shown, never parsed.
 */
export interface ReasoningSignatureEvent {
  readonly type: 'reasoning-signature';
  readonly choice: number;
  readonly signature: string;
}
/** Answer text. */
export interface ContentEvent {
  readonly type: 'content';
  readonly choice: number;
  readonly text: string;
}
/** Refusal text (a separate channel from content). */
export interface RefusalEvent {
  readonly type: 'refusal';
  readonly choice: number;
  readonly text: string;
}
/** One fragment of a tool call, with `id` and `name` only as that fragment had them. */
export interface ToolCallDeltaEvent {
  readonly type: 'tool-call-delta';
  readonly choice: number;
  readonly index: number;
  readonly id?: string;
  readonly name?: string;
  /** This fragment's argument text (`""` if it had none). */
  readonly arguments: string;
  /** The call so far, added by `groupToolCallsByIndex`. */
  readonly call?: ToolCallProgress;
}
/** A dialect closed a tool call explicitly (its arguments are complete). */
export interface ToolCallEndEvent {
  readonly type: 'tool-call-end';
  readonly choice: number;
  readonly index: number;
}
/** A complete tool call, emitted by `groupToolCallsByIndex`. */
export interface ToolCallEvent {
  readonly type: 'tool-call';
  readonly choice: number;
  readonly call: ToolCall;
}
/** A choice finished; `raw` is the provider's own value. */
export interface FinishEvent {
  readonly type: 'finish';
  readonly choice: number;
  readonly reason: FinishReason;
  readonly raw: string;
}
/** Token usage; later events overwrite earlier values field by field. */
export interface UsageEvent {
  readonly type: 'usage';
  readonly usage: Usage;
}
/** llama.cpp timings; the latest wins. */
export interface TimingsEvent {
  readonly type: 'timings';
  readonly timings: Timings;
}
/** The stream's own end signal (`[DONE]`, `message_stop`, ...). Nothing valid follows it. */
export interface DoneEvent {
  readonly type: 'done';
}

/**
 * Every event of the assembly layers, discriminated by `type`.
 *
 * @example
 * ```ts
 * import type { ChatEvent } from 'rxjs-llm-stream';
 *
 * function render(event: ChatEvent): void {
 *   if (event.type === 'content') process.stdout.write(event.text);
 * }
 * ```
 */
export type ChatEvent =
  | StartEvent
  | ProgressEvent
  | ReasoningEvent
  | ReasoningSignatureEvent
  | ContentEvent
  | RefusalEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolCallEvent
  | FinishEvent
  | UsageEvent
  | TimingsEvent
  | DoneEvent;

/** One choice of a completion (one per choice when `n > 1`). */
export interface CompletionChoice {
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
export interface Completion {
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
  /** Tokens generated while the model was reasoning (llama.cpp: `timings.predicted_n` at the last reasoning chunk). */
  readonly reasoningTokens: number;
  /** Choice 0's opaque reasoning artifacts for the next turn (only when any came). */
  readonly reasoningSignatures?: readonly string[];
  readonly choices: readonly CompletionChoice[];
}

/** A tool call as far as it has arrived (the `partial` of a truncated stream lists these). */
export interface PartialToolCall {
  readonly index: number;
  /** `null` until a fragment names it. */
  readonly id: string | null;
  readonly name: string | null;
  /** The argument text so far. */
  readonly arguments: string;
  /** The parsed arguments, once the call has closed. */
  readonly args?: JsonValue;
  readonly complete: boolean;
}

/** One choice as far as it has arrived. */
export interface ChoiceSnapshot {
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
export interface CompletionSnapshot {
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
  readonly reasoningTokens: number;
  /** True while the latest text was reasoning (false after answer text or a tool-call fragment). */
  readonly inReasoning: boolean;
  /** True once every choice seen has finished. */
  readonly finished: boolean;
  /** Choice 0's opaque reasoning artifacts so far (only when any came): an error's partial keeps them too. */
  readonly reasoningSignatures?: readonly string[];
  readonly choices: readonly ChoiceSnapshot[];
}
