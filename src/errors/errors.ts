import type { ToolCall } from '../types/events.js';
import type { StructuredOutputReason as OutputReason } from './structuredOutputReasons.js';
import type { StandardSchemaV1Issue } from '../types/standardSchema.js';
import type { ToolLoopReason } from './toolLoopReasons.js';
import type { RateLimits } from '../types/rateLimits.js';

/**
 * Where in the input a fault was found. Each layer fills in what it counts: the byte layer a byte
 * offset, the frame layer a line and an event number, the assembly layers a frame number.
 */
export interface StreamPosition {
  /** Offset in bytes from the start of the stream (decodeUtf8). */
  readonly byteOffset?: number;
  /** 1-based line number (sseFrames, ndjson framing). */
  readonly line?: number;
  /** 1-based number of the event or frame that was being read. */
  readonly event?: number;
}

/**
 * Why the input ended before the stream said it was complete (`StreamClosedEarlyError.reason`):
 *
 * - `mid-character`: the bytes stopped inside a UTF-8 sequence;
 * - `mid-line` / `mid-message`: the text stopped inside a line / the bytes inside a binary message (`awsEventStreamFrames`);
 * - `no-blank-line`: the last event never got its blank line (`requireBlankLineAtEnd`);
 * - `no-end-signal`: the dialect's own end signal never came (`[DONE]`, `message_stop`, ...);
 * - `unfinished`: it came, but a choice never finished, a tool call stayed open, or messages were never finalized;
 * - `transport`: the connection failed or closed before the body's end (a reset, an abort).
 */
export type ClosedEarlyReason = (typeof CLOSED_EARLY_REASONS)[number];

/** Every {@link ClosedEarlyReason}, for code that checks a reason from a wire; the last three are the relay's (docs/relay.md). */
// prettier-ignore
export const CLOSED_EARLY_REASONS = ['mid-character', 'mid-line', 'mid-message', 'no-blank-line', 'no-end-signal', 'unfinished',
  'transport', 'producer-lost', 'stopped', 'store'] as const;

/**
 * How the input broke its format (`ProtocolError.reason`):
 *
 * - `invalid-utf8`: bytes that are not UTF-8, under `fatal`;
 * - `too-large`: a line or event over its cap;
 * - `invalid-checksum` / `invalid-message`: a binary message whose CRC-32 does not match / of impossible shape;
 * - `invalid-json`: a payload that is not JSON;
 * - `invalid-payload`: JSON of the wrong shape, a field of the wrong type;
 * - `invalid-tool-call`: a fragment that belongs to no call, a call without an id or a name, arguments that are not JSON, a
 *   call after its choice finished;
 * - `too-many-tool-calls`: more than `maxToolCalls` in one choice;
 * - `strict`: a deviation that `{ strict: true }` refuses and the default reading absorbs;
 * - `unknown-format`: a body or a frame that no dialect reads (an HTML page, a JSON reply, a content type that is not a stream);
 * - `invalid-transcript`: a revised transcript under `onRevision: 'error'`, or mixed kinds;
 * - `invalid-recording`: a recording file that breaks its format;
 * - `unread-text`: a stream that ended properly with reply text in fields its dialect does not read (a success would be a
 *   silent loss of the whole reply).
 */
export type ProtocolReason = (typeof PROTOCOL_REASONS)[number];

/** Every {@link ProtocolReason}. */
export const PROTOCOL_REASONS = [
  'invalid-utf8',
  'too-large',
  'invalid-checksum',
  'invalid-message',
  'invalid-json',
  'invalid-payload',
  'invalid-tool-call',
  'too-many-tool-calls',
  'strict',
  'unknown-format',
  'invalid-transcript',
  'invalid-recording',
  'unread-text',
] as const;

/**
 * Where the provider's error came from (`ProviderError.reason`): `in-stream` (an error payload or event inside the stream),
 * `http-status` (an error status before the stream), `error-body` (a JSON error body where only the body arrived, as text).
 */
export type ProviderReason = (typeof PROVIDER_REASONS)[number];

/** Every {@link ProviderReason}. */
export const PROVIDER_REASONS = ['in-stream', 'http-status', 'error-body'] as const;

/**
 * Which limit a stream overran (`StreamIdleError.reason`):
 *
 * - `idle`: nothing at all arrived for `idleTimeout` (bytes or text, keep-alive comments included);
 * - `first-content`: no content event (see `CONTENT_EVENT_TYPES`) within `replyTimeouts`' `firstContent` of the start;
 * - `between-content`: no content event within `betweenContent` of the last one, whatever else (pings, metadata) arrived;
 * - `total`: the reply was still running when `total` ran out.
 *
 * @example
 * ```ts
 * import { StreamIdleError, type IdleReason } from 'rxjs-llm-stream';
 *
 * const worthRetrying = (err: StreamIdleError): boolean => (['idle', 'first-content'] as IdleReason[]).includes(err.reason);
 * ```
 */
export type IdleReason = (typeof IDLE_REASONS)[number];

/**
 * Every {@link IdleReason}.
 *
 * @example
 * ```ts
 * import { IDLE_REASONS } from 'rxjs-llm-stream';
 *
 * IDLE_REASONS.includes('between-content'); // true
 * ```
 */
export const IDLE_REASONS = ['idle', 'first-content', 'between-content', 'total'] as const;

/**
 * One attempt of a request made by `retryingFetch` or `retryRequest`: what answered it, or why
 * nothing did, and how long was waited before the next.
 *
 * @example
 * ```ts
 * import type { RequestAttempt } from 'rxjs-llm-stream';
 *
 * const attempts: RequestAttempt[] = [{ status: 429, waitMs: 1_000 }, { status: 200 }];
 * ```
 */
export interface RequestAttempt {
  /** The HTTP status of the answer; absent when the connection failed before one. */
  readonly status?: number;
  /** The platform's error, when the connection failed before an answer. */
  readonly cause?: unknown;
  /** The milliseconds waited after this attempt before the next one; absent on the last. */
  readonly waitMs?: number;
}

/** Why a tool call was refused (`ToolArgumentsError.reason`): its arguments, or a tool nobody declared. */
export type ToolArgumentsReason = (typeof TOOL_ARGUMENTS_REASONS)[number];
/** Every {@link ToolArgumentsReason}. */
export const TOOL_ARGUMENTS_REASONS = ['invalid-arguments', 'unknown-tool'] as const;

/** Every `reason` of every error of this library: a string code to branch on, as messages are for people. */
export type LlmStreamErrorReason =
  | ClosedEarlyReason
  | ProtocolReason
  | ProviderReason
  | ToolArgumentsReason
  | OutputReason
  | ToolLoopReason
  | IdleReason
  | 'over-cap'
  | 'stalled';

/** Options shared by every error of this library. */
export interface LlmStreamErrorOptions<R extends LlmStreamErrorReason = LlmStreamErrorReason> {
  /** Why, as a code (each class has a default: its most common reason). */
  readonly reason?: R;
  /** What had been assembled before the fault. */
  readonly partial?: unknown;
  /** Where in the input the fault was found. */
  readonly position?: StreamPosition;
  /** The underlying error, if any (a `SyntaxError` from `JSON.parse`, a transport error, ...). */
  readonly cause?: unknown;
}

/**
 * The base class of every error this library raises, so that one `instanceof` (or {@link isLlmStreamError} across realms)
 * tells a stream fault from a bug.
 *
 * `partial` holds what had arrived before the fault: the text so far from the byte and frame layers, the completion so far
 * from the assembly layers. Nothing that arrived is lost. It is typed `unknown`, because which layer filled it depends on
 * the pipeline: after `finalizeCompletion`, `scanCompletion`, `groupToolCallsByIndex` or `validateToolCalls` it is a
 * `CompletionSnapshot`, which {@link isCompletionSnapshot} checks and narrows to.
 *
 * @example
 * ```ts
 * import { LlmStreamError, isCompletionSnapshot } from 'rxjs-llm-stream';
 *
 * completion$.subscribe({
 *   error: (err) => {
 *     if (err instanceof LlmStreamError && isCompletionSnapshot(err.partial)) showPartial(err.partial.content);
 *   },
 * });
 * ```
 */
export abstract class LlmStreamError extends Error {
  abstract override readonly name: string;
  /** Why, as a code to branch on (`'transport'`, `'invalid-json'`, `'http-status'`, ...). */
  abstract readonly reason: LlmStreamErrorReason;
  /** What had been assembled before the fault (`undefined` when nothing had). */
  partial: unknown;
  /** Where in the input the fault was found, when the layer that raised it knows. */
  readonly position: StreamPosition | undefined;

  constructor(message: string, options: LlmStreamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.partial = options.partial;
    this.position = options.position;
  }
}

/**
 * The input ended before the stream said it was complete: the bytes stopped mid-character or mid-message, the text mid-line,
 * or the reply before its dialect's end signal (`[DONE]`, `message_stop`, a finish).
 *
 * A truncated reply must never pass for a complete one: a tool would run with half its arguments.
 *
 * @example
 * ```ts
 * import { StreamClosedEarlyError } from 'rxjs-llm-stream';
 *
 * if (err instanceof StreamClosedEarlyError) retryOrShow(err.partial);
 * ```
 */
export class StreamClosedEarlyError extends LlmStreamError {
  override readonly name = 'StreamClosedEarlyError';
  readonly reason: ClosedEarlyReason;
  /** Every attempt of the request, when a retrying request gave up on connections that failed before an answer. */
  readonly attempts: readonly RequestAttempt[] | undefined;

  constructor(message: string, options: StreamClosedEarlyErrorOptions = {}) {
    super(message, options);
    this.reason = options.reason ?? 'no-end-signal';
    this.attempts = options.attempts;
  }
}

/**
 * Options of {@link StreamClosedEarlyError}.
 *
 * @example
 * ```ts
 * import { StreamClosedEarlyError, type StreamClosedEarlyErrorOptions } from 'rxjs-llm-stream';
 *
 * const options: StreamClosedEarlyErrorOptions = { reason: 'transport', attempts: [{ cause: 'ECONNRESET' }] };
 * throw new StreamClosedEarlyError('the connection failed before any byte arrived', options);
 * ```
 */
export interface StreamClosedEarlyErrorOptions extends LlmStreamErrorOptions<ClosedEarlyReason> {
  /** Every attempt of the request (see {@link RequestAttempt}), the last one last. */
  readonly attempts?: readonly RequestAttempt[];
}

/**
 * The input broke its format: invalid UTF-8 under `fatal`, an oversized line or event, a binary message that fails its
 * checksum, a payload that is not JSON of the expected shape, a tool-call fragment that belongs to no call.
 *
 * @example
 * ```ts
 * import { ProtocolError } from 'rxjs-llm-stream';
 *
 * if (err instanceof ProtocolError) console.error(err.message, err.position);
 * ```
 */
export class ProtocolError extends LlmStreamError {
  override readonly name = 'ProtocolError';
  readonly reason: ProtocolReason;

  constructor(message: string, options: LlmStreamErrorOptions<ProtocolReason> = {}) {
    super(message, options);
    this.reason = options.reason ?? 'invalid-payload';
  }
}

/**
 * The stream overran a time limit: nothing arrived for longer than `idleTimeout` allows (`idle`: the server or a proxy
 * stalled with the connection still open), or `replyTimeouts` saw no content in time (`first-content`,
 * `between-content`: a server that pings forever and produces nothing) or a reply longer than its `total`. Without a
 * timer such a stream would neither end nor fail. `reason` says which limit (see {@link IdleReason}).
 *
 * Keep-alive comments count as values when `idleTimeout` sits on the text, before `sseFrames`, so a server that pings
 * while it thinks is not idle; for `replyTimeouts` they never count.
 *
 * @example
 * ```ts
 * import { StreamIdleError } from 'rxjs-llm-stream';
 *
 * if (err instanceof StreamIdleError && err.reason !== 'total') retryOrShow(err.partial);
 * ```
 */
export class StreamIdleError extends LlmStreamError {
  override readonly name = 'StreamIdleError';
  readonly reason: IdleReason;

  constructor(message: string, options: LlmStreamErrorOptions<IdleReason> = {}) {
    super(message, options);
    this.reason = options.reason ?? 'idle';
  }
}

/** Options of {@link ProviderError}. */
export interface ProviderErrorOptions extends LlmStreamErrorOptions<ProviderReason> {
  /** The provider's error type (`server_error`, `overloaded_error`, ...). */
  readonly type?: string;
  /** The provider's error code, as sent. */
  readonly code?: string | number;
  /** The HTTP status, when the error came as a response rather than inside the stream. */
  readonly status?: number;
  /** The provider's error body: parsed JSON when it was JSON, else the text. */
  readonly body?: unknown;
  /** Whether a retry may succeed, when the error's type says so (Bedrock's `throttlingException`: yes). */
  readonly retryable?: boolean;
  /** The rate limits the answer's headers announced (see `readRateLimits`). */
  readonly rateLimits?: RateLimits;
  /** Every attempt of the request, when `retryingFetch` or `retryRequest` made it (the last one is this answer). */
  readonly attempts?: readonly RequestAttempt[];
}

/**
 * The provider reported an error: an `{"error": ...}` payload or an `event: error` frame inside a 200 stream, an error
 * status before it, or an `exception` message of an AWS event stream. Terminal: nothing that follows can overwrite it.
 *
 * @example
 * ```ts
 * import { ProviderError } from 'rxjs-llm-stream';
 *
 * if (err instanceof ProviderError && err.type === 'overloaded_error') retryLater();
 * ```
 */
export class ProviderError extends LlmStreamError {
  override readonly name = 'ProviderError';
  readonly reason: ProviderReason;
  readonly type: string | undefined;
  readonly code: string | number | undefined;
  readonly status: number | undefined;
  readonly body: unknown;
  readonly retryable: boolean | undefined;
  /** The rate limits the error answer's headers announced: on a 429, when to try again and how much is left. */
  readonly rateLimits: RateLimits | undefined;
  /** Every attempt of the request, when a retrying request made it; the last is this answer. */
  readonly attempts: readonly RequestAttempt[] | undefined;

  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options);
    this.reason = options.reason ?? (options.status === undefined ? 'in-stream' : 'http-status');
    this.type = options.type;
    this.code = options.code;
    this.status = options.status;
    this.body = options.body;
    this.retryable = options.retryable;
    this.rateLimits = options.rateLimits;
    this.attempts = options.attempts;
  }
}

/**
 * Options of {@link ToolArgumentsError}.
 *
 * @example
 * ```ts
 * import { ToolArgumentsError, type ToolArgumentsErrorOptions } from 'rxjs-llm-stream';
 *
 * const options: ToolArgumentsErrorOptions = { call, choice: 0, issues: [{ message: 'city is required' }] };
 * throw new ToolArgumentsError('refused by policy', options);
 * ```
 */
export interface ToolArgumentsErrorOptions extends LlmStreamErrorOptions<ToolArgumentsReason> {
  /** The call whose arguments were refused, as it arrived (arguments text and parsed `args`). */
  readonly call: ToolCall;
  /** The choice the call belongs to. */
  readonly choice: number;
  /** What was wrong: the schema's issues, or one issue made here (a predicate said no, no such tool). */
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;
}

/**
 * A whole tool call whose arguments did not validate, or that names a tool nobody declared (`validateToolCalls`). Raised
 * before the call reaches anything that could run it.
 *
 * `issues` holds the schema's own issues (message and path), so they can be sent back to the model as they are; `partial`
 * the completion as it was when the call was refused.
 *
 * @example
 * ```ts
 * import { ToolArgumentsError } from 'rxjs-llm-stream';
 *
 * if (err instanceof ToolArgumentsError) {
 *   askModelToRetry(err.call.name, err.issues.map((issue) => issue.message));
 * }
 * ```
 */
export class ToolArgumentsError extends LlmStreamError {
  override readonly name = 'ToolArgumentsError';
  readonly reason: ToolArgumentsReason;
  readonly call: ToolCall;
  readonly choice: number;
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;

  constructor(message: string, options: ToolArgumentsErrorOptions) {
    super(message, options);
    this.reason = options.reason ?? 'invalid-arguments';
    this.call = options.call;
    this.choice = options.choice;
    this.issues = options.issues;
  }
}
