import { FakeResponse, fakeResponse } from './fakeResponse.js';
import type { ProviderStream } from './ProviderStream.js';

/** Answers a request with the stream to serve; a throw (or a rejection) is the fetch failing before any response. */
export type FakeFetchHandler = (request: Request) => ProviderStream | Promise<ProviderStream>;

/** Options of `fakeFetch`. */
export interface FakeFetchOptions {
  /**
   * After the last chunk, every body fails with this error instead of ending: a connection reset
   * (undici's `TypeError('terminated')`).
   */
  readonly error?: unknown;
}

/** One call of a fake `fetch`: the request it was given, and what became of it. */
export interface FakeFetchCall {
  readonly request: Request;
  /** The response, once the fake answered (never, when the request was aborted first or the handler threw). */
  readonly response: FakeResponse | undefined;
  /**
   * Resolves `true` once the consumer aborted the request or cancelled its body, `false` once the
   * body was read to its end or failed, or the fetch itself failed.
   */
  readonly cancelled: Promise<boolean>;
}

/** A `fetch` that serves provider streams and records its calls. */
export interface FakeFetch {
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Every call so far, in order. */
  readonly calls: readonly FakeFetchCall[];
  /** The first call's `cancelled` (pending until a first call is made). */
  readonly cancelled: Promise<boolean>;
}

/** Where a relative URL points: the page's address in a browser, else a local host. */
function absolute(input: RequestInfo | URL): RequestInfo | URL {
  if (typeof input !== 'string') return input;
  const base = (globalThis as { location?: { href?: string } }).location?.href ?? 'http://localhost/';
  return new URL(input, base);
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it fires. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | null): Promise<T> {
  if (signal === null) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * A `fetch` for tests of code that fetches a streamed reply: every call answers with a real
 * `Response` (see `fakeResponse`) serving `reply`, or the stream a handler returns for the request.
 * It honours the request's `AbortSignal` as a real fetch does: aborted before the answer, the call
 * rejects with the signal's reason; after it, the body fails with it. It records each call (its
 * `Request`, its response) and reports whether the consumer gave up: `cancelled` resolves `true`
 * when the request was aborted or the body cancelled (`fromFetch` aborts on unsubscribe,
 * `fromResponse` cancels the body), `false` when the body was read to its end.
 *
 * A relative URL is resolved against `location` where there is one, else `http://localhost/`.
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 * import { fakeFetch, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const fetch = fakeFetch(providerStream({ choices: [{ text: 'Hi' }] }, 'openai-chat'));
 * globalThis.fetch = fetch; // or jest.spyOn(globalThis, 'fetch').mockImplementation(fetch)
 * fromFetch('https://api.example.com/v1/chat/completions', { selector: (r) => fromResponse(r) })
 *   .pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion())
 *   .subscribe((completion) => console.log(completion.content)); // 'Hi'
 * await fetch.cancelled; // false: read to its end
 * ```
 *
 * @param reply The stream every call serves, or a handler that chooses one for each request.
 * @param options `error`: a transport failure after the chunks of every body.
 * @returns The fake, a function with `calls` and `cancelled`.
 */
export function fakeFetch(reply: ProviderStream | FakeFetchHandler, options: FakeFetchOptions = {}): FakeFetch {
  const calls: FakeFetchCall[] = [];
  let reportFirst!: (cancelled: Promise<boolean>) => void;
  const first = new Promise<Promise<boolean>>((resolve) => (reportFirst = resolve));

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(absolute(input), init);
    // The caller's own signal: the copy inside `request` follows it, but only while `request` lives.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : null);
    let settle!: (cancelled: boolean) => void;
    const call: { request: Request; response: FakeResponse | undefined; cancelled: Promise<boolean> } = {
      request,
      response: undefined,
      cancelled: new Promise<boolean>((resolve) => (settle = resolve)),
    };
    calls.push(call);
    if (calls.length === 1) reportFirst(call.cancelled);
    let stream: ProviderStream;
    try {
      if (signal?.aborted) throw signal.reason;
      stream = await abortable(Promise.resolve(typeof reply === 'function' ? reply(request) : reply), signal);
    } catch (error) {
      settle(signal?.aborted === true);
      throw error;
    }
    const response = fakeResponse(stream, { signal, ...(options.error === undefined ? {} : { error: options.error }) });
    call.response = response;
    void response.cancelled.then(settle);
    return response;
  };
  return Object.defineProperties(fetch, {
    calls: { value: calls, enumerable: true },
    cancelled: { value: first.then((cancelled) => cancelled), enumerable: true },
  }) as FakeFetch;
}
