import { StreamErrorData, streamErrorData } from './streamErrorData.js';

/** Options of the operators and relay formats that send an error to a browser. */
export interface ErrorExposureOptions {
  /**
   * Send the error's own message (a provider's text, a store client's message) instead of a fixed one.
   * Off by default: those messages may name hosts, addresses, organization ids or a key's tail. Turn it
   * on only where the client is as trusted as the server (a tool of your own, a test).
   */
  readonly exposeErrors?: boolean;
}

/** A code as a provider sends it (`rate_limit_exceeded`, `overloaded_error`, `429`): kept; any other text is not. */
const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The fixed message of each `StreamClosedEarlyError` reason: what happened, in words that name nothing of the server. */
const CLOSED_EARLY: Readonly<Record<string, string>> = {
  'mid-character': 'the reply stopped inside a character',
  'mid-line': 'the reply stopped inside a line',
  'mid-message': 'the reply stopped inside a message',
  'no-blank-line': 'the reply stopped inside an event',
  'no-end-signal': 'the reply ended without its end signal',
  unfinished: 'the reply ended with a part unfinished',
  transport: 'the reply failed on its way before its end',
  'producer-lost': 'the server producing the reply was lost before its end',
  stopped: 'the reply was stopped on request',
  store: 'the stream store failed before the reply ended',
};

/** The fixed message for an error's data: its class and reason in words, the provider's status when there is one. */
function fixedMessage(data: StreamErrorData): string {
  switch (data.name) {
    case 'ProviderError':
      return data.status === undefined ? 'the provider reported an error' : `the provider answered HTTP ${data.status}`;
    case 'StreamClosedEarlyError':
      return CLOSED_EARLY[data.reason ?? ''] ?? 'the stream failed on the server before its end';
    case 'ProtocolError':
      return "the provider's reply broke its format";
    case 'StreamIdleError':
      return data.reason === 'total' ? 'the reply took longer than its time limit' : 'the provider sent nothing for too long';
    case 'ToolArgumentsError':
      return 'a tool call of the model was refused';
    case 'ToolLoopError':
      return data.reason === 'max-steps' ? 'the tool loop reached its step limit' : 'a tool failed and ended the tool loop';
    default:
      return 'the stream failed on the server before its end';
  }
}

/**
 * What a browser may read of a failure: the class (`name`), the `reason` code, the position, a
 * `ProviderError`'s HTTP `status`, `retryable`, and its `type` and `code` when they are codes (not
 * text); a refused tool call's call and issues (the model's own output, and the app's schema); and a
 * fixed `message` made of these alone. The error's own message (a provider's HTML error page, a
 * rate-limit text naming the organization, a 401 naming the key's tail, a Redis client's message with
 * host and port) stays on the server: log it there, where the hooks (`onError`) give it to you.
 *
 * @example
 * ```ts
 * import { ProviderError, publicErrorData, streamErrorData } from 'rxjs-llm-stream';
 *
 * publicErrorData(streamErrorData(new ProviderError('HTTP 429: Rate limit reached for org-4f2a', { status: 429 })));
 * // { name: 'ProviderError', reason: 'http-status', message: 'the provider answered HTTP 429', status: 429 }
 * ```
 *
 * @param data An error's data (`streamErrorData(error)`, or an `error` entry a relay stored).
 * @returns The data with nothing but codes and a fixed message.
 */
export function publicErrorData(data: StreamErrorData): StreamErrorData {
  // In the order `streamErrorData` writes them: name, reason, message, then the fields.
  const reason = typeof data.reason === 'string' && CODE.test(data.reason) ? { reason: data.reason } : {};
  // A name that is no class name (data from elsewhere) is sent as the catch-all class.
  const name = /^[A-Za-z]{1,64}$/.test(data.name) ? data.name : 'StreamClosedEarlyError';
  const safe: { -readonly [K in keyof StreamErrorData]: StreamErrorData[K] } = { name, ...reason, message: fixedMessage(data) };
  if (data.position !== undefined) safe.position = data.position;
  if (typeof data.status === 'number') safe.status = data.status;
  if (typeof data.type === 'string' && CODE.test(data.type)) safe.type = data.type;
  if (typeof data.code === 'number' || (typeof data.code === 'string' && CODE.test(data.code))) safe.code = data.code;
  if (typeof data.retryable === 'boolean') safe.retryable = data.retryable;
  if (data.call !== undefined) safe.call = data.call;
  if (data.choice !== undefined) safe.choice = data.choice;
  if (data.issues !== undefined) safe.issues = data.issues;
  return safe;
}

/**
 * The data of an error as a client may get it: {@link publicErrorData} by default, everything
 * `streamErrorData` keeps with `exposeErrors`.
 *
 * @example
 * ```ts
 * import { clientErrorData } from 'rxjs-llm-stream';
 *
 * response.write(`event: error\ndata: ${JSON.stringify(clientErrorData(error))}\n\n`);
 * ```
 *
 * @param error Anything a stream failed with.
 * @param options `exposeErrors`.
 * @returns Plain data, ready for `JSON.stringify`.
 */
export function clientErrorData(error: unknown, options: ErrorExposureOptions = {}): StreamErrorData {
  const data = streamErrorData(error);
  return options.exposeErrors === true ? data : publicErrorData(data);
}

/**
 * One line for a client that has a text field only (the UI message stream's `errorText`): the fixed
 * message and its codes, `the provider answered HTTP 429 (ProviderError, http-status)`.
 *
 * @example
 * ```ts
 * import { publicErrorText, streamErrorData } from 'rxjs-llm-stream';
 *
 * const errorText = publicErrorText(streamErrorData(error));
 * ```
 *
 * @param data An error's data.
 * @returns The text.
 */
export function publicErrorText(data: StreamErrorData): string {
  const safe = publicErrorData(data);
  return `${safe.message} (${[safe.name, safe.reason].filter((part) => part !== undefined).join(', ')})`;
}
