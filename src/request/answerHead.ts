import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import type { HeadersLike } from '../internal/headerValue.js';

/** What an emission or an error of a request said of its answer, for the retry decision. */
export type AnswerHead =
  /** The head of an answer, before its body: a fetch `Response`, Angular's `HttpHeaderResponse`. */
  | { readonly kind: 'head'; readonly status: number | undefined; readonly headers: HeadersLike | undefined }
  /** Angular's `HttpSentEvent` or `HttpUploadProgressEvent`: the request is on its way, nothing answered. */
  | { readonly kind: 'sent' }
  /** Anything else: a body chunk, a download progress, the whole response. The reply has started. */
  | { readonly kind: 'body' };

/** Angular's `HttpEventType` numbers: `Sent`, `UploadProgress`, `ResponseHeader`. */
const SENT = 0;
const UPLOAD_PROGRESS = 1;
const RESPONSE_HEADER = 2;

const isObject = (value: unknown): value is { readonly [key: string]: unknown } => typeof value === 'object' && value !== null;

/** The headers of an answer when they are readable (a fetch `Headers`, Angular's `HttpHeaders`). */
function headersOf(value: { readonly [key: string]: unknown }): HeadersLike | undefined {
  const headers = value['headers'];
  return isObject(headers) ? (headers as HeadersLike) : undefined;
}

/**
 * What a value emitted by a request is: a fetch `Response` (a status, headers and a body not yet
 * read) and Angular's `HttpHeaderResponse` (`type` 2) are heads; Angular's `HttpSentEvent` (0) and
 * upload progress (1) come before any answer; anything else is the reply itself.
 */
export function emittedHead(value: unknown): AnswerHead {
  if (!isObject(value)) return { kind: 'body' };
  const type = value['type'];
  if (type === SENT || type === UPLOAD_PROGRESS) return { kind: 'sent' };
  const status = typeof value['status'] === 'number' ? value['status'] : undefined;
  if (type === RESPONSE_HEADER) return { kind: 'head', status, headers: headersOf(value) };
  // A fetch Response: `body` is there (a stream or null), `bodyUsed` says nobody read it yet.
  if (status !== undefined && 'body' in value && value['bodyUsed'] === false) return { kind: 'head', status, headers: headersOf(value) };
  return { kind: 'body' };
}

/** What an error before the body says: an answer with a status, a connection failure, or neither. */
export type FailureKind =
  | { readonly kind: 'answer'; readonly status: number; readonly headers: HeadersLike | undefined }
  | { readonly kind: 'connection' }
  | { readonly kind: 'final' };

/**
 * What an error before the body says of the attempt: Angular's `HttpErrorResponse` has the status
 * (0 when no answer came: a connection failure) and the headers; a `ProviderError` of this library
 * made from an error status has the status; its `StreamClosedEarlyError` of a transport and its
 * `StreamIdleError` before any byte are connection failures; its other errors (a content type that
 * is no stream, an error inside the stream) would come again and are not retried; any other error
 * (a platform's `TypeError: fetch failed`) is a connection failure.
 */
export function failureKind(error: unknown): FailureKind {
  if (isLlmStreamError(error)) {
    const status = (error as { status?: unknown }).status;
    if (error.reason === 'http-status' && typeof status === 'number') return { kind: 'answer', status, headers: undefined };
    return error.reason === 'transport' || error.name === 'StreamIdleError' ? { kind: 'connection' } : { kind: 'final' };
  }
  if (!isObject(error)) return { kind: 'connection' };
  const status = error['status'];
  if (typeof status !== 'number' || status <= 0) return { kind: 'connection' };
  return { kind: 'answer', status, headers: headersOf(error) };
}
