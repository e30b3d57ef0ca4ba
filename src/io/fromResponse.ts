import { Observable, defer } from 'rxjs';
import { ProtocolError, ProviderError } from '../errors.js';
import { isJsonObject, nonEmptyString } from '../internal/json.js';
import { fromReadableStream } from './fromReadableStream.js';

/** Options of `fromResponse`. */
export interface FromResponseOptions {
  /**
   * The content types (`type/subtype`, parameters ignored) a streamed body may have; another is a
   * `ProtocolError`. `'any'` accepts whatever came. Default: `text/event-stream`,
   * `application/x-ndjson`, `application/ndjson` and `application/jsonl`.
   */
  readonly contentTypes?: readonly string[] | 'any';
}

const STREAM_TYPES: readonly string[] = ['text/event-stream', 'application/x-ndjson', 'application/ndjson', 'application/jsonl'];

/**
 * The body of a fetch `Response` as an `Observable<Uint8Array>`, for a streamed LLM reply.
 *
 * A non-2xx status is a `ProviderError` carrying the status and the provider's error body (parsed
 * when it is JSON). A body of an unexpected content type (an HTML error page from a proxy, a JSON
 * reply to a request that forgot `stream: true`) is a `ProtocolError`, unless allowed by
 * `contentTypes`. Unsubscribing cancels the body reader at once (`reader.cancel()`).
 *
 * With `fromFetch` from `rxjs/fetch`, unsubscribing also aborts the request itself:
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion$ = fromFetch(url, { method: 'POST', headers, body, selector: (r) => fromResponse(r) }).pipe(
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks(),
 *   finalizeCompletion(),
 * );
 * ```
 *
 * @param response A fetch `Response` whose body has not been read.
 * @param options `contentTypes`.
 * @returns The body's chunks.
 */
export function fromResponse(response: Response, options: FromResponseOptions = {}): Observable<Uint8Array> {
  return defer(() => {
    if (!response.ok) return errorFromStatus(response);
    const allowed = options.contentTypes ?? STREAM_TYPES;
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (allowed !== 'any' && !allowed.includes(contentType)) {
      response.body?.cancel().catch(() => undefined);
      return new Observable<never>((subscriber) =>
        subscriber.error(
          new ProtocolError(
            `expected a streamed body (${allowed.join(', ')}), got ${contentType === '' ? 'no content type' : contentType}`,
          ),
        ),
      );
    }
    if (response.body === null) return new Observable<Uint8Array>((subscriber) => subscriber.complete());
    return fromReadableStream(response.body);
  });
}

/** Reads an error response's body and fails with a `ProviderError` that carries it. */
function errorFromStatus(response: Response): Observable<never> {
  return new Observable<never>((subscriber) => {
    let cancelled = false;
    response.text().then(
      (text) => {
        if (cancelled) return;
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        const detail = isJsonObject(body) && body['error'] !== undefined ? body['error'] : body;
        const message = isJsonObject(detail) ? nonEmptyString(detail['message']) : typeof detail === 'string' ? detail.slice(0, 200) : undefined;
        const type = isJsonObject(detail) ? nonEmptyString(detail['type']) ?? nonEmptyString(detail['status']) : undefined;
        const rawCode = isJsonObject(detail) ? detail['code'] : undefined;
        subscriber.error(
          new ProviderError(`the provider answered HTTP ${response.status}${message ? `: ${message}` : ''}`, {
            status: response.status,
            body,
            ...(type === undefined ? {} : { type }),
            ...(typeof rawCode === 'string' || typeof rawCode === 'number' ? { code: rawCode } : {}),
          }),
        );
      },
      (error: unknown) => {
        if (!cancelled) subscriber.error(new ProviderError(`the provider answered HTTP ${response.status}`, { status: response.status, cause: error }));
      },
    );
    return () => {
      cancelled = true;
    };
  });
}
