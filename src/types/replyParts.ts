/**
 * The pieces a reply is made of, as the events carry them and the completion holds them: usage,
 * timings, tool calls (whole, incomplete, in progress), log probabilities, sources, audio and the
 * tools a provider ran. `events.ts` re-exports every one.
 */

/** A JSON value, as `JSON.parse` returns it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Where a value sits in a JSON document: object keys and array indices from the root (`[]` is the root).
 *
 * @example
 * ```ts
 * import type { JsonPath } from 'rxjs-llm-stream';
 *
 * const secondStep: JsonPath = ['steps', 1, 'title'];
 * ```
 */
export type JsonPath = readonly (string | number)[];

/** Why the model stopped, normalized across providers (the raw value is kept beside it). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** Raw finish reasons of one format and what each means: `{ COMPLETE: 'stop', TOOL_CALL: 'tool_calls' }`. */
export type FinishReasonTable = Readonly<Record<string, FinishReason>>;

/**
 * Token counts, camelCase, whichever provider reported them, with OpenAI's meaning in every dialect:
 * `promptTokens` counts all input (cached and cache-written included), `completionTokens` all output
 * (reasoning included); the details beside them are parts of those totals. Absent details stay
 * absent. docs/dialects.md says where each number comes from in each dialect.
 */
export interface Usage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  readonly totalTokens: number | null;
  /** Prompt tokens served from the provider's cache, when reported. */
  readonly cachedPromptTokens?: number;
  /**
   * Prompt tokens written to the provider's cache, when reported (Anthropic's
   * `cache_creation_input_tokens`). Like `cachedPromptTokens`, a part of `promptTokens`.
   */
  readonly cacheWritePromptTokens?: number;
  /** Completion tokens spent reasoning, when reported: a part of `completionTokens`. */
  readonly reasoningTokens?: number;
  /** Prompt tokens of audio input, when reported (`prompt_tokens_details.audio_tokens`): a part of `promptTokens`. */
  readonly audioPromptTokens?: number;
  /** Completion tokens of audio output, when reported (`completion_tokens_details.audio_tokens`): a part of `completionTokens`. */
  readonly audioCompletionTokens?: number;
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

/**
 * What a provider sent that no field of the library names, kept as it came and namespaced by provider
 * (`openai`, `anthropic`, `google`, `bedrock`, ...): fields the dialect does not map (a new one, or one
 * that must go back on the next turn) by their own names, and output items of a kind it does not know
 * under `items`, in arrival order. A reply, each choice and each tool call has its own, where any
 * arrived. `$capped` is `true` when more arrived than `maxProviderMetadataBytes` allows and the rest
 * was not kept.
 *
 * @example
 * ```ts
 * import type { ProviderMetadata } from 'rxjs-llm-stream';
 *
 * const metadata: ProviderMetadata = { openai: { system_fingerprint: 'fp_1', items: [{ type: 'new_kind' }] } };
 * ```
 */
export interface ProviderMetadata {
  readonly [provider: string]: { readonly [key: string]: JsonValue };
}

/** A complete function call, emitted once its arguments are whole and parsed. */
export interface FunctionToolCall {
  /** Absent or `'function'`: a call whose arguments are JSON. */
  readonly kind?: 'function';
  /** Position of the call within its choice (dense: 0, 1, 2, ...). */
  readonly index: number;
  readonly id: string;
  readonly name: string;
  /** The arguments exactly as the model wrote them. */
  readonly arguments: string;
  /** The arguments parsed (`""` parses as `{}`). */
  readonly args: JsonValue;
  /**
   * The namespace the function belongs to, when the provider names one (the Responses
   * `function_call.namespace` of a function declared in a `namespace` tool; absent otherwise): `crm` for `crm.search`,
   * so that `crm.search` and `calendar.search` stay apart. `name` is the function's own name.
   */
  readonly namespace?: string;
  /** What the provider sent with this call that no field names (only when any came). */
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * A complete custom (free-form) tool call: OpenAI's `type: "custom"` tools and the Responses
 * `custom_tool_call`, whose input is raw text, never JSON-parsed.
 */
export interface CustomToolCall {
  readonly kind: 'custom';
  /** Position of the call within its choice (dense: 0, 1, 2, ...), shared with the function calls. */
  readonly index: number;
  readonly id: string;
  readonly name: string;
  /** The raw input exactly as the model wrote it. */
  readonly arguments: string;
  /**
   * The raw input again, unparsed (a string): what the tool takes and what `validateToolCalls`
   * checks; after a schema that transforms it, what the schema made of it.
   */
  readonly args: JsonValue;
  /** The namespace the tool belongs to, when the provider names one (see `FunctionToolCall.namespace`). */
  readonly namespace?: string;
  /** What the provider sent with this call that no field names (only when any came). */
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * A complete tool call a program may run: a function call (`args` parsed from JSON) or a custom one
 * (`args` the raw text). Narrow on `kind` where the difference matters:
 *
 * @example
 * ```ts
 * import type { ToolCall } from 'rxjs-llm-stream';
 *
 * function describe(call: ToolCall): string {
 *   return call.kind === 'custom' ? `${call.name}(${call.arguments})` : `${call.name}(${JSON.stringify(call.args)})`;
 * }
 * ```
 */
export type ToolCall = FunctionToolCall | CustomToolCall;

/**
 * A call the token limit cut (a finish `length`): its text as far as it came. Kept apart, never among
 * the calls a program may run.
 */
export interface IncompleteToolCall {
  readonly kind?: 'function' | 'custom';
  readonly index: number;
  readonly id: string | null;
  readonly name: string | null;
  /** The argument text that arrived before the cut. */
  readonly arguments: string;
}

/** One token's log probability, in OpenAI's shape (`bytes` as the server sent them, or null). */
export interface TokenLogprob {
  readonly token: string;
  readonly logprob: number;
  readonly bytes: readonly number[] | null;
  readonly top_logprobs: readonly { readonly token: string; readonly logprob: number; readonly bytes: readonly number[] | null }[];
}

/** The log probabilities of a choice, in OpenAI's shape: per-chunk arrays joined in order. */
export interface Logprobs {
  readonly content: readonly TokenLogprob[] | null;
  readonly refusal: readonly TokenLogprob[] | null;
}

/**
 * A source the provider cited or searched: a web page (`url`) or a document (`documentId`, its index
 * or file id as the provider names it), with `span` the part of the reply's text it supports (UTF-16
 * offsets into the choice's content) when the provider says.
 */
export interface Source {
  readonly kind: 'url' | 'document';
  readonly url?: string;
  readonly title?: string;
  readonly documentId?: string;
  readonly span?: { readonly start: number; readonly end: number };
  /** The text quoted from the source, when the provider gives it. */
  readonly citedText?: string;
}

/**
 * What a provider said of a choice's finish beyond its reason, each field only when it said it: the
 * stop sequence that ended the text, its explanation of the finish, the category of a refusal.
 *
 * @example
 * ```ts
 * import type { FinishDetails } from 'rxjs-llm-stream';
 *
 * const details: FinishDetails = { category: 'cyber', message: 'This could enable malware development.' };
 * ```
 */
export interface FinishDetails {
  /** The stop sequence the text ended at (Anthropic `stop_sequence`). */
  readonly stopSequence?: string;
  /** The provider's explanation of the finish (Gemini `finishMessage`, Anthropic `stop_details.explanation`). */
  readonly message?: string;
  /** The category of the policy a refusal falls under (Anthropic `stop_details.category`: `cyber`, `bio`, ...). */
  readonly category?: string;
}

/** Audio output (Chat `delta.audio`): the base64 pieces and the transcript, joined. */
export interface AudioOutput {
  readonly id: string | null;
  /** The audio, base64, its pieces joined. */
  readonly data: string;
  readonly transcript: string;
  /** When the audio stops being usable as a reference in the next turn (seconds since the epoch). */
  readonly expiresAt: number | null;
}

/**
 * A tool the provider ran itself (Anthropic `server_tool_use`, Responses built-in tools such as
 * `web_search_call`, Gemini code execution), with its result once known. Never a call a program is
 * asked to run.
 */
export interface ProviderToolCall {
  readonly id: string;
  readonly name: string;
  /** The provider's own type of the item (`server_tool_use`, `web_search_call`, `executableCode`). */
  readonly type: string;
  /** What the tool was given (its arguments or code), as the provider sent it. */
  readonly input: JsonValue;
  /** What the tool gave back, once the stream carried it. */
  readonly result?: JsonValue;
  /**
   * Where it came in the turn: how much reasoning and content text, and how many of the choice's
   * opaque items, had come before it. A server tool stands between the text before and after it
   * (Anthropic's web search between two text blocks), and the next turn sends it back there.
   */
  readonly at: ProviderToolPosition;
}

/**
 * Where a tool the provider ran came in its turn: the text before it, as for an opaque item, and how
 * many of the choice's opaque items and calls came before it, so that an item or a call and a tool at
 * the same place in the text keep their order (a Responses reasoning item, then the search it led to;
 * Anthropic's call of a deferred tool, then the tool search that loads it).
 *
 * @example
 * ```ts
 * import type { ProviderToolPosition } from 'rxjs-llm-stream';
 *
 * // After 42 characters of text, one signature and no call:
 * const at: ProviderToolPosition = { reasoning: 0, content: 42, items: 1, calls: 0 };
 * ```
 */
export interface ProviderToolPosition extends OpaqueItemPosition {
  /** How many of the choice's opaque items (`opaqueItems`) had come before it. */
  readonly items: number;
  /** How many of the choice's tool calls (`toolCalls`, in index order) had begun before it. */
  readonly calls: number;
}

/**
 * A call that waits for the program's answer or approval and is not a plain function call: the
 * program must not run it as one of `toolCalls`, and the provider has not run it. `kind` says what
 * the program owes: `approval` (a yes or no for a tool the provider or the server would then run:
 * the Responses `mcp_approval_request`, the AI SDK's `tool-approval-request`) or `client-tool` (the
 * result of a built-in tool the program runs with its own means: the Responses `apply_patch_call`,
 * `shell_call`, `computer_call`, a `tool_search_call` with `execution: "client"`).
 *
 * @example
 * ```ts
 * import type { ToolRequest } from 'rxjs-llm-stream';
 *
 * const request: ToolRequest = {
 *   id: 'mcpr_1',
 *   type: 'mcp_approval_request',
 *   kind: 'approval',
 *   name: 'create_issue',
 *   input: { server_label: 'github', arguments: '{"title":"Bug"}' },
 * };
 * ```
 */
export interface ToolRequest {
  /**
   * What the answer names the request by: the Responses item's `call_id` (the `id` of an
   * `mcp_approval_request`, which the approval names as its `approval_request_id`), the AI SDK's
   * `approvalId`.
   */
  readonly id: string;
  /** The provider's own type of the item (`mcp_approval_request`, `apply_patch_call`, `tool-approval-request`). */
  readonly type: string;
  readonly kind: 'approval' | 'client-tool';
  /** The tool's name, when the provider names it (the built-in tools are named by `type`). */
  readonly name: string | null;
  /** What the tool is asked to do, as the provider sent it (its arguments, its action, its operation). */
  readonly input: JsonValue;
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
   * `groupToolCallsByIndex({ previews: toolCallPreviews() })`). Display only, never for execution. The same
   * object is updated in place as fragments arrive: do not mutate it, and copy it
   * (`structuredClone`) to keep a snapshot. `undefined` until a value has begun.
   */
  readonly preview?: JsonValue;
}

/**
 * What an opaque item is: a `signature` over a part (Anthropic's thinking `signature`, Gemini's
 * `thought_signature`, Mistral's thinking `signature`), `redacted-reasoning` (Anthropic's
 * `redacted_thinking` data), `encrypted-reasoning` (a Responses `reasoning` item with its
 * `encrypted_content`), a `reasoning-detail` (an entry of OpenRouter's `reasoning_details`),
 * `compaction` (Anthropic's `compaction` block, the Responses `compaction` item), a `container`
 * (Anthropic's code-execution container: its id and expiry), a `continuation` (Gemini's
 * `continuationToken`), a `program` (the Responses `program` item, with its `fingerprint`).
 */
export type OpaqueItemKind =
  'signature' | 'redacted-reasoning' | 'encrypted-reasoning' | 'reasoning-detail' | 'compaction' | 'container' | 'continuation' | 'program';

/**
 * The part of the turn an opaque item belongs to: the `reasoning` or the `content` text before it (a
 * signature over the thinking or the text of its block), a `tool-call` (the call numbered `call`), or
 * the `turn` itself (an item of its own at its place in the turn, or one the next request carries
 * beside the messages: a container, a continuation token).
 */
export type OpaqueItemPart = 'reasoning' | 'content' | 'tool-call' | 'turn';

/**
 * Where an opaque item arrived: how much of the choice's reasoning and content text (UTF-16 code
 * units) had come before it. The text of the block an item signs is the text since the item before it
 * in the same part (Anthropic's thinking blocks, each with its signature, are the reasoning cut at
 * these places), and an item of the turn goes between the text before and after it.
 */
export interface OpaqueItemPosition {
  readonly reasoning: number;
  readonly content: number;
}

/**
 * Something the provider needs back verbatim on the next turn and that no program should read: a
 * signature, encrypted reasoning, a compaction summary, a container, a continuation token. Kept as the
 * provider sent it (`data`), with what it is (`kind`, and the provider's own name of the field or
 * item, `type`), whose it is (`provider`, the namespace of the data: `google` for Gemini's signatures
 * even through its OpenAI-compatible endpoint) and where it belongs (`part`, `call`, `block`, `at`).
 * A choice's items are in arrival order.
 *
 * @example
 * ```ts
 * import type { OpaqueItem } from 'rxjs-llm-stream';
 *
 * const signature: OpaqueItem = {
 *   provider: 'anthropic',
 *   kind: 'signature',
 *   type: 'signature_delta',
 *   part: 'reasoning',
 *   block: 0,
 *   data: 'EqQBCkYIBxgCKkDd',
 *   at: { reasoning: 120, content: 0 },
 * };
 * ```
 */
export interface OpaqueItem {
  /** The namespace of the data: `anthropic`, `google`, `openai`, `openrouter`, `mistral`, `bedrock`. */
  readonly provider: string;
  readonly kind: OpaqueItemKind;
  /** The provider's own name of the field or item it came in (`signature_delta`, `extra_content`, `reasoning.encrypted`, `compaction`). */
  readonly type: string;
  readonly part: OpaqueItemPart;
  /** The call it belongs to (its index among the choice's calls), when `part` is `tool-call`. */
  readonly call?: number;
  /**
   * The provider's own index of the block, item or entry it came with, when it gives one (Anthropic's
   * content block `index`, the Responses `output_index`, an OpenRouter entry's `index`).
   */
  readonly block?: number;
  /**
   * The range of the part's text it signs (UTF-16 offsets into the choice's `content`, or its
   * `reasoning`), when the provider's block bounds it and it need not come at the block's end: an
   * Anthropic text block's signature, sent at the block's stop.
   */
  readonly span?: { readonly start: number; readonly end: number };
  /** What the provider sent, as it sent it: a string (a signature, a token) or the whole object. */
  readonly data: JsonValue;
  /** How much reasoning and content text had come before it. */
  readonly at: OpaqueItemPosition;
}
