import { StreamClosedEarlyError, StreamIdleError } from '../errors/errors.js';

/** What a source has read so far, for the messages of its errors. */
export interface BytesRead {
  chunks: number;
  bytes: number;
}

/** `after 812 bytes in 4 chunks`, or `before any byte arrived`. */
function soFar(read: BytesRead): string {
  if (read.bytes === 0) return 'before any byte arrived';
  return `after ${read.bytes} byte${read.bytes === 1 ? '' : 's'} in ${read.chunks} chunk${read.chunks === 1 ? '' : 's'}`;
}

/** A platform error's message with its own cause's (undici: `terminated (other side closed)`). */
export function describeFailure(error: unknown): string {
  const message = messageOf(error);
  const inner = typeof error === 'object' && error !== null ? messageOf((error as { cause?: unknown }).cause) : undefined;
  if (message === undefined) return String(error);
  return inner === undefined || inner === message ? message : `${message} (${inner})`;
}

/**
 * The message of an error, also of one from another realm (Node's `fetch` rejects with errors that
 * fail `instanceof Error` in a test's context).
 */
export function messageOf(error: unknown): string | undefined {
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/**
 * The error for a body whose transport failed before its end (a reset socket, a proxy that dropped
 * the connection, an abort): a `StreamClosedEarlyError` with the platform's error as `cause`, so
 * that a reader branches on one class whatever the platform (undici's `TypeError: terminated`,
 * Node's `Error: aborted`, a browser's `TypeError: network error`).
 */
export function transportFailure(cause: unknown, read: BytesRead): StreamClosedEarlyError {
  return new StreamClosedEarlyError(`the connection failed ${soFar(read)}: ${describeFailure(cause)}`, { reason: 'transport', cause });
}

/** The error for a Node stream destroyed before its end without an error of its own. */
export function closedBeforeEnd(read: BytesRead): StreamClosedEarlyError {
  return new StreamClosedEarlyError(`the stream closed before its end ${soFar(read)}`, { reason: 'transport' });
}

/** The error for a body that has been silent for `ms` milliseconds. */
export function idleBody(ms: number, read: BytesRead): StreamIdleError {
  return new StreamIdleError(`the body was silent for ${ms} ms ${soFar(read)}`);
}
