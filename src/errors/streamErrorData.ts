import {
  CLOSED_EARLY_REASONS,
  IDLE_REASONS,
  LlmStreamError,
  LlmStreamErrorReason,
  PROTOCOL_REASONS,
  PROVIDER_REASONS,
  ProtocolError,
  ProviderError,
  StreamClosedEarlyError,
  StreamIdleError,
  StreamPosition,
  TOOL_ARGUMENTS_REASONS,
  ToolArgumentsError,
} from './errors.js';
import { isLlmStreamError } from './isLlmStreamError.js';
import { JsonValue, ToolCall } from '../types/events.js';
import { isJsonObject } from '../internal/json.js';
import { StandardSchemaV1Issue } from '../types/standardSchema.js';

/**
 * A library error as JSON, for the `error` event a server sends its clients after the events it
 * relayed (`toMessageEvents` writes it, the `chat-events` dialect reads it back): the class name,
 * the message, where the fault was, and each class's own fields. The `partial` is not sent: the
 * client folded the same events and has it already.
 */
export interface StreamErrorData {
  /** The class: `StreamClosedEarlyError`, `ProtocolError`, `ProviderError`, `StreamIdleError`, `ToolArgumentsError`. */
  readonly name: string;
  /** The error's `reason` code. */
  readonly reason?: string;
  readonly message: string;
  readonly position?: StreamPosition;
  /** `ProviderError`: the provider's HTTP status, error type and code, and whether a retry can help. */
  readonly status?: number;
  readonly type?: string;
  readonly code?: string | number;
  readonly retryable?: boolean;
  /** `ToolArgumentsError`: the refused call, its choice and the schema's issues. */
  readonly call?: ToolCall;
  readonly choice?: number;
  readonly issues?: ReadonlyArray<StandardSchemaV1Issue>;
}

/** What a client is told of an error that is not this library's: nothing that could name internals. */
const UNNAMED_FAILURE = 'the stream failed on the server before its end';

/**
 * The JSON form of an error, to send to a client (see {@link StreamErrorData}). A library error
 * keeps its class, message, position and fields. Any other error (a refused upstream connection, a
 * bug) becomes a `StreamClosedEarlyError` with a fixed message: its own message may name hosts or
 * internals, so log it on the server, where it happened.
 *
 * @example
 * ```ts
 * import { ProviderError, streamErrorData } from 'rxjs-llm-stream';
 *
 * streamErrorData(new ProviderError('the provider answered HTTP 429', { status: 429 }));
 * // { name: 'ProviderError', message: 'the provider answered HTTP 429', status: 429 }
 * ```
 *
 * @param error Anything a stream failed with.
 * @returns Plain data, ready for `JSON.stringify`.
 */
export function streamErrorData(error: unknown): StreamErrorData {
  if (!isLlmStreamError(error)) return { name: 'StreamClosedEarlyError', reason: 'transport', message: UNNAMED_FAILURE };
  const data: { -readonly [K in keyof StreamErrorData]: StreamErrorData[K] } = {
    name: error.name,
    reason: error.reason,
    message: error.message,
  };
  if (error.position !== undefined) data.position = error.position;
  if (error instanceof ProviderError) {
    if (error.status !== undefined) data.status = error.status;
    if (error.type !== undefined) data.type = error.type;
    if (error.code !== undefined) data.code = error.code;
    if (error.retryable !== undefined) data.retryable = error.retryable;
  }
  if (error instanceof ToolArgumentsError) {
    data.call = error.call;
    data.choice = error.choice;
    data.issues = error.issues.map((issue) => ({
      message: issue.message,
      ...(issue.path === undefined ? {} : { path: issue.path.map(pathKey) }),
    }));
  }
  return data;
}

/** A path segment as JSON can carry it: symbols have no JSON form. */
function pathKey(segment: PropertyKey | { readonly key: PropertyKey }): string | number {
  const key = typeof segment === 'object' ? segment.key : segment;
  return typeof key === 'symbol' ? String(key) : key;
}

/**
 * The error that {@link streamErrorData} described, rebuilt as the same class with the same
 * message, position and fields, so a client catches `ProviderError` or `StreamClosedEarlyError` as
 * it would in the server's place. A name this version does not know (a newer server's) is a
 * `StreamClosedEarlyError` that keeps it in the message; data that is not an error description is a
 * `ProtocolError`.
 *
 * @example
 * ```ts
 * import { ProviderError, errorFromStreamErrorData } from 'rxjs-llm-stream';
 *
 * const error = errorFromStreamErrorData(JSON.parse(frame.data));
 * if (error instanceof ProviderError && error.status === 429) retryLater();
 * ```
 *
 * @param data The parsed data of an `error` event.
 * @returns The error, not thrown.
 */
export function errorFromStreamErrorData(data: unknown): LlmStreamError {
  if (!isJsonObject(data) || typeof data['name'] !== 'string' || typeof data['message'] !== 'string') {
    return new ProtocolError('the error event does not describe an error: it needs a string name and message');
  }
  const name = data['name'];
  const message = data['message'];
  const position = isJsonObject(data['position']) ? readPosition(data['position']) : undefined;
  const common = position === undefined ? {} : { position };
  const reason = data['reason'];
  /** The reason sent, when it is one of this class's (an older or newer server may send another). */
  const known = <R extends LlmStreamErrorReason>(reasons: readonly R[]): { reason?: R } =>
    reasons.includes(reason as R) ? { reason: reason as R } : {};
  switch (name) {
    case 'StreamClosedEarlyError':
      return new StreamClosedEarlyError(message, { ...common, ...known(CLOSED_EARLY_REASONS) });
    case 'ProtocolError':
      return new ProtocolError(message, { ...common, ...known(PROTOCOL_REASONS) });
    case 'StreamIdleError':
      return new StreamIdleError(message, { ...common, ...known(IDLE_REASONS) });
    case 'ProviderError': {
      const code = data['code'];
      return new ProviderError(message, {
        ...common,
        ...known(PROVIDER_REASONS),
        ...(typeof data['status'] === 'number' ? { status: data['status'] } : {}),
        ...(typeof data['type'] === 'string' ? { type: data['type'] } : {}),
        ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
        ...(typeof data['retryable'] === 'boolean' ? { retryable: data['retryable'] } : {}),
      });
    }
    case 'ToolArgumentsError': {
      const call = readCall(data['call']);
      const choice = data['choice'];
      const issues = readIssues(data['issues']);
      if (call === undefined || typeof choice !== 'number' || issues === undefined) {
        return new ProtocolError(`the error event's ToolArgumentsError lacks its call, choice or issues: ${message}`);
      }
      return new ToolArgumentsError(message, { ...common, ...known(TOOL_ARGUMENTS_REASONS), call, choice, issues });
    }
    default:
      return new StreamClosedEarlyError(`${name}: ${message}`, common);
  }
}

function readPosition(value: { readonly [key: string]: unknown }): StreamPosition | undefined {
  const position: { -readonly [K in keyof StreamPosition]: StreamPosition[K] } = {};
  for (const field of ['byteOffset', 'line', 'event'] as const) {
    const number = value[field];
    if (typeof number === 'number' && Number.isFinite(number)) position[field] = number;
  }
  return Object.keys(position).length === 0 ? undefined : position;
}

function readCall(value: unknown): ToolCall | undefined {
  if (!isJsonObject(value)) return undefined;
  const { index, id, name } = value;
  const text = value['arguments'];
  if (typeof index !== 'number' || typeof id !== 'string' || typeof name !== 'string' || typeof text !== 'string') return undefined;
  return { index, id, name, arguments: text, args: (value['args'] ?? {}) as JsonValue };
}

function readIssues(value: unknown): StandardSchemaV1Issue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues: StandardSchemaV1Issue[] = [];
  for (const issue of value) {
    if (!isJsonObject(issue) || typeof issue['message'] !== 'string') return undefined;
    const path = issue['path'];
    issues.push({
      message: issue['message'],
      ...(Array.isArray(path)
        ? { path: path.filter((key): key is string | number => typeof key === 'string' || typeof key === 'number') }
        : {}),
    });
  }
  return issues;
}
