import { EMPTY, Observable, defer } from 'rxjs';
import { checkedBody } from './checkedBody.js';
import { BodySourceOptions, chunkReading } from './fromReadableStream.js';
import { webChunks } from './readChunks.js';
import { attemptsOf } from './answerAttempts.js';
import { readRateLimits } from '../rate-limits/readRateLimits.js';

/** Options of `fromResponse`. */
export type FromResponseOptions = BodySourceOptions;

/**
 * The body of a fetch `Response` as an `Observable<Uint8Array>`, for a streamed LLM reply.
 *
 * A non-2xx status is a `ProviderError` carrying the status, the provider's error body (parsed
 * when it is JSON), the rate limits its headers announced (`rateLimits`, see `readRateLimits`) and,
 * when `retryingFetch` or `retryRequest` made the request, every attempt (`attempts`). A body of
 * an unexpected content type (an HTML error page from a proxy, a JSON reply to a request that
 * forgot `stream: true`) is a `ProtocolError`, unless allowed by `contentTypes`. A body whose
 * connection fails midway (a reset, undici's `TypeError: terminated`) is a
 * `StreamClosedEarlyError` with the platform's error as `cause`; one silent for longer than
 * `idleTimeout` (ten minutes by default, `false` never) a `StreamIdleError`. `finalizeCompletion`
 * and `scanCompletion` put the completion so far in the `partial` of each. Unsubscribing cancels the
 * body reader at once (`reader.cancel()`), and is never reported as an error.
 *
 * With `fromFetch` from `rxjs/fetch`, unsubscribing also aborts the request itself:
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion$ = fromFetch(url, { method: 'POST', headers, body, selector: (r) => fromResponse(r, { idleTimeout: 120_000 }) }).pipe(
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks(),
 *   finalizeCompletion(),
 * );
 * ```
 *
 * @param response A fetch `Response` whose body has not been read.
 * With a `demand` (see `Demand`), the body is read only while the demand is not paused: the fetch
 * implementation then stops reading the socket, and the provider's writes block.
 *
 * @param options `contentTypes`, `idleTimeout`, `scheduler`, `demand`.
 * @returns The body's chunks.
 */
export function fromResponse(response: Response, options: FromResponseOptions = {}): Observable<Uint8Array> {
  const reading = chunkReading(options, 'fromResponse');
  return defer(() => {
    const body = response.body;
    const ok = response.status >= 200 && response.status <= 299;
    // The headers of an error answer are read for its error only: a reply's own limits are the caller's to read.
    const rateLimits = ok ? undefined : readRateLimits(response.headers);
    const attempts = ok ? undefined : attemptsOf(response);
    const head = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      ...(rateLimits === undefined ? {} : { rateLimits }),
      ...(attempts === undefined ? {} : { attempts }),
    };
    return checkedBody(head, body === null ? EMPTY : webChunks(body, reading), options);
  });
}
