import { Observable } from 'rxjs';
import { ProtocolError, RequestAttempt } from '../errors/errors.js';
import { ErrorBodyContext, parseErrorBody, providerErrorFromBody } from '../errors/errorBody.js';
import type { RateLimits } from '../types/rateLimits.js';

/** What a response said before its body: its status and content type. */
export interface ResponseHead {
  readonly status: number;
  /** The `content-type` header as sent, parameters included (`undefined` when there was none). */
  readonly contentType: string | undefined;
  /** The rate limits its headers announced (`readRateLimits`), given to the `ProviderError` of an error status. */
  readonly rateLimits?: RateLimits;
  /** The attempts of a retrying request that ended in this response, given to the `ProviderError` of an error status. */
  readonly attempts?: readonly RequestAttempt[];
}

/** Options every source of a response body takes. */
export interface ResponseCheckOptions {
  /**
   * The content types (`type/subtype`, parameters ignored) a streamed body may have; another is a
   * `ProtocolError`. `'any'` accepts whatever came. Default: {@link STREAM_CONTENT_TYPES}.
   */
  readonly contentTypes?: readonly string[] | 'any';
}

/**
 * The content types of the streamed bodies this library reads: server-sent events and the three
 * names servers use for newline-delimited JSON, and AWS's binary event stream (Amazon Bedrock's
 * streamed replies, read by `awsEventStreamFrames`).
 */
export const STREAM_CONTENT_TYPES: readonly string[] = [
  'text/event-stream',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/vnd.amazon.eventstream',
];

/** The most of an error body that is read: an error answer is short, and one that is not is cut. */
const MAX_ERROR_BODY = 1024 * 1024;

/** `text/event-stream` for `Text/Event-Stream; charset=utf-8`. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The body as a streamed reply, after the checks every source makes of the response it belongs
 * to, so that a fetch `Response`, a Node `IncomingMessage` and a replayed recording fail the same
 * way: a non-2xx status is a `ProviderError` with the status and the provider's error body (read
 * whole, up to 1 MiB, and parsed when it is JSON); a content type not in `contentTypes` is a
 * `ProtocolError` naming it (an HTML error page from a proxy, a JSON reply to a request that forgot
 * `stream: true`), and the body is released unread. The error of an error status also carries the
 * head's `rateLimits` and `attempts`.
 */
export function checkedBody(head: ResponseHead, body$: Observable<Uint8Array>, options: ResponseCheckOptions = {}): Observable<Uint8Array> {
  if (head.status < 200 || head.status > 299) {
    return errorAnswer(body$, {
      status: head.status,
      ...(head.rateLimits === undefined ? {} : { rateLimits: head.rateLimits }),
      ...(head.attempts === undefined ? {} : { attempts: head.attempts }),
    });
  }
  const allowed = options.contentTypes ?? STREAM_CONTENT_TYPES;
  const type = mediaType(head.contentType);
  if (allowed === 'any' || allowed.includes(type)) return body$;
  return new Observable<never>((subscriber) => {
    // Subscribed and dropped at once: that cancels the reader (or destroys the Node stream), so the
    // connection closes now instead of holding a body nobody will read.
    body$.subscribe({ error: () => undefined }).unsubscribe();
    const got = type === '' ? 'no content type' : type;
    subscriber.error(new ProtocolError(`expected a streamed body (${allowed.join(', ')}), got ${got}`, { reason: 'unknown-format' }));
  });
}

/** Reads an error answer's body and fails with the `ProviderError` that carries it. */
function errorAnswer(body$: Observable<Uint8Array>, context: ErrorBodyContext): Observable<never> {
  return new Observable<never>((subscriber) => {
    const decoder = new TextDecoder();
    let text = '';
    let length = 0;
    const fail = (): void => subscriber.error(providerErrorFromBody(parseErrorBody(text + decoder.decode()), context));
    const reading = body$.subscribe({
      next(bytes) {
        length += bytes.length;
        text += decoder.decode(bytes, { stream: true });
        if (length >= MAX_ERROR_BODY) fail(); // and the teardown below cancels the rest
      },
      error: (cause: unknown) => subscriber.error(providerErrorFromBody(parseErrorBody(text), { ...context, cause })),
      complete: fail,
    });
    return reading;
  });
}
