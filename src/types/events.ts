/**
 * The events that the assembly layers produce (and, re-exported, the completion and the reply's parts). One union, `ChatEvent`,
 * discriminated by `type`, is what every dialect maps to, so that the layers after `assembleChunks`
 * are the same whichever server answered.
 */

import type {
  JsonValue,
  FinishReason,
  Usage,
  Timings,
  PromptProgress,
  ToolCall,
  IncompleteToolCall,
  TokenLogprob,
  Source,
  ProviderToolCall,
  ToolCallProgress,
  ToolRequest,
  OpaqueItem,
  OpaqueItemPosition,
  ProviderToolPosition,
  FinishDetails,
} from './replyParts.js';
import type { ReplyTimings } from './replyTimings.js';

export type { ReplyTimings } from './replyTimings.js';
export type {
  JsonValue,
  FinishReason,
  FinishReasonTable,
  Usage,
  Timings,
  PromptProgress,
  FunctionToolCall,
  CustomToolCall,
  ToolCall,
  IncompleteToolCall,
  TokenLogprob,
  Logprobs,
  Source,
  AudioOutput,
  ProviderToolCall,
  ProviderToolPosition,
  ProviderMetadata,
  ToolCallProgress,
  ToolRequest,
  OpaqueItem,
  OpaqueItemKind,
  OpaqueItemPart,
  OpaqueItemPosition,
  FinishDetails,
} from './replyParts.js';
export type { CompletionChoice, Completion, PartialToolCall, ChoiceSnapshot, CompletionSnapshot, ReplyExtraParts } from './completion.js';

/**
 * The stream named itself: once, at the first non-empty id. Formats that carry no id (Ollama,
 * llama.cpp's `/completion`) send it with `id: ''` when they first name their model. A format that
 * names its model only later (llama.cpp's Responses stream, in `response.completed`) sends a second
 * `start` then: a field the first one lacked is filled from it.
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
/**
 * Text the server took back: the last `content` characters of the choice's content and the last
 * `reasoning` characters of its reasoning are no longer part of the reply (the AI SDK's `reset-step`,
 * sent before the output of a retried step). What showed that text live removes it; the completion
 * never has it.
 */
export interface RetractEvent {
  readonly type: 'retract';
  readonly choice: number;
  /** Characters (UTF-16 units) to remove from the end of the choice's content. */
  readonly content: number;
  /** Characters (UTF-16 units) to remove from the end of the choice's reasoning. */
  readonly reasoning: number;
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
  /** `'custom'` on a fragment of a custom (free-form) call: its text is never JSON-parsed. */
  readonly kind?: 'custom';
  /** The namespace of the tool, on the fragment that names it (see `FunctionToolCall.namespace`). */
  readonly namespace?: string;
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
/**
 * A call cut by the token limit, emitted by `groupToolCallsByIndex` at a `length` finish: kept apart
 * from the calls a program may run.
 */
export interface ToolCallIncompleteEvent {
  readonly type: 'tool-call-incomplete';
  readonly choice: number;
  readonly call: IncompleteToolCall;
}
/** Log probabilities of the tokens of this chunk (content or refusal), in order. */
export interface LogprobsEvent {
  readonly type: 'logprobs';
  readonly choice: number;
  readonly content?: readonly TokenLogprob[];
  readonly refusal?: readonly TokenLogprob[];
}
/** A source the provider cited or searched (a citation, an annotation, grounding). */
export interface SourceEvent {
  readonly type: 'source';
  readonly choice: number;
  readonly source: Source;
}
/** A piece of audio output: base64 data and transcript to append, the id and expiry when given. */
export interface AudioEvent {
  readonly type: 'audio';
  readonly choice: number;
  readonly id?: string;
  readonly data?: string;
  readonly transcript?: string;
  readonly expiresAt?: number;
}
/**
 * A preview of an image a tool the provider runs is generating (the Responses
 * `response.image_generation_call.partial_image`), for a UI to show while it waits: each preview of
 * a call replaces the one before. Never kept: the completion has the finished image (the result of
 * the call's `providerToolCalls` entry), not its previews, which are large.
 */
export interface ImagePreviewEvent {
  readonly type: 'image-preview';
  readonly choice: number;
  /** The provider tool call the image belongs to (its `id` in `providerToolCalls`). */
  readonly id: string;
  /** Which preview of the call this is, from 0. */
  readonly index: number;
  /** The image, base64. */
  readonly data: string;
  /** Its format, when the provider names it (`png`, `webp`, `jpeg`). */
  readonly format?: string;
}
/** The provider ran a tool itself (its input is whole). */
export interface ProviderToolCallEvent {
  readonly type: 'provider-tool-call';
  readonly choice: number;
  readonly call: Omit<ProviderToolCall, 'at'>;
  /** Where it came in the turn; the fold sets it when the event has none (a dialect's events have none: the fold knows the text). */
  readonly at?: ProviderToolPosition;
}
/** The result of a tool the provider ran, for the call with that `id`. */
export interface ProviderToolResultEvent {
  readonly type: 'provider-tool-result';
  readonly choice: number;
  readonly id: string;
  readonly result: JsonValue;
}
/**
 * A call that waits for the program's answer or approval and is not a plain function call (see
 * `ToolRequest`): whole when it arrives. Not a tool call: the finish stays what the provider said.
 */
export interface ToolRequestEvent {
  readonly type: 'tool-request';
  readonly choice: number;
  readonly request: ToolRequest;
}
/**
 * Something the next turn must send back verbatim (see `OpaqueItem`): a signature, encrypted
 * reasoning, a compaction summary, a container, a continuation token, with the part it belongs to.
 * `at` is where it arrived in the choice's text; the fold sets it when the event has none (a dialect's
 * events have none: the fold knows the text).
 */
export interface OpaqueItemEvent {
  readonly type: 'opaque-item';
  readonly choice: number;
  readonly item: Omit<OpaqueItem, 'at'>;
  readonly at?: OpaqueItemPosition;
}
/**
 * A payload the dialect does not know, passed on as it came (only with `assembleChunks({
 * unknownEvents: true })`): a provider's new feature can be handled before a release reads it.
 */
export interface UnknownEvent {
  readonly type: 'unknown';
  /** The SSE `event:` name, when the frame had one. */
  readonly event?: string;
  /** The payload, parsed (a copy: it can be kept). */
  readonly payload: JsonValue;
}
/**
 * What a provider sent that the dialect does not map, kept for the reply (`providerMetadata`): `fields`
 * merge into the provider's bag (a later value of a field replaces the earlier one), `items` (output
 * items of a kind the dialect does not know) are appended to its `items`. Without `choice` it belongs
 * to the reply as a whole; with `call`, to that tool call of the choice.
 */
export interface ProviderMetadataEvent {
  readonly type: 'provider-metadata';
  /** The namespace: `openai`, `anthropic`, `google`, `bedrock`, ... */
  readonly provider: string;
  readonly choice?: number;
  /** The dense index of the tool call it came with, within `choice`. */
  readonly call?: number;
  readonly fields?: { readonly [key: string]: JsonValue };
  readonly items?: readonly JsonValue[];
  /** Set once, when the stream sent more than the cap allows: what follows is not kept. */
  readonly capped?: true;
}
/** A choice finished; `raw` is the provider's own value. */
export interface FinishEvent {
  readonly type: 'finish';
  readonly choice: number;
  readonly reason: FinishReason;
  readonly raw: string;
}
/**
 * What the provider said of a choice's finish beyond its reason (see `FinishDetails`): sent just
 * before the `finish` it explains. A later event's fields replace an earlier one's.
 */
export interface FinishDetailsEvent {
  readonly type: 'finish-details';
  readonly choice: number;
  readonly details: FinishDetails;
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
/**
 * How the reply came in over time (see `ReplyTimings`): told by `measureReply` once, at the end of
 * the reply (before its completion, or before its error with what arrived), for `finalizeCompletion`
 * to put on the reply (`replyTimings`). No dialect emits it.
 */
export interface ReplyTimingsEvent {
  readonly type: 'reply-timings';
  readonly timings: ReplyTimings;
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
  | RetractEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolCallEvent
  | ToolCallIncompleteEvent
  | LogprobsEvent
  | SourceEvent
  | AudioEvent
  | ImagePreviewEvent
  | ProviderToolCallEvent
  | ProviderToolResultEvent
  | ToolRequestEvent
  | OpaqueItemEvent
  | ProviderMetadataEvent
  | UnknownEvent
  | FinishEvent
  | FinishDetailsEvent
  | UsageEvent
  | TimingsEvent
  | ReplyTimingsEvent
  | DoneEvent;
