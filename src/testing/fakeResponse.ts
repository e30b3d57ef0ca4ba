import { BodyWatch, ServedBody } from './bodyWatch.js';
import type { ProviderStream } from './ProviderStream.js';

/** A real fetch `Response` serving a provider stream, that says what its consumer did with the body. */
export type FakeResponse = Response & ServedBody;

/** Options of `fakeResponse` and `fakeFetch`. */
export interface FakeResponseOptions {
  /**
   * After the last chunk, the body fails with this error instead of ending: a connection reset
   * (undici's `TypeError('terminated')`, a browser's `TypeError('network error')`).
   */
  readonly error?: unknown;
  /** The request's signal: when it fires, the body fails with its reason, as a real fetch body does. */
  readonly signal?: AbortSignal | null;
}

/**
 * The response headers of a stream: its `content-type`, and the other headers a provider sends
 * beside it when the stream names any (the AI SDK's `x-vercel-ai-ui-message-stream`).
 */
export function headersOf(stream: ProviderStream): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(stream.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['content-type'] = stream.contentType;
  return headers;
}

/**
 * A real `Response` whose body serves `stream`'s chunks one read at a time (nothing is read ahead),
 * with the stream's status and `content-type`; a stream that stalls keeps its body open and silent
 * after the last chunk. The response also says what the consumer did: `bodyState` (`open`, `read`,
 * `cancelled`, `aborted`, `failed`) and `cancelled`, a promise of whether the consumer gave up on
 * the body (cancelled its reader, or aborted the request through `signal`).
 *
 * @example
 * ```ts
 * import { take, lastValueFrom } from 'rxjs';
 * import { fromResponse } from 'rxjs-llm-stream';
 * import { fakeResponse, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const response = fakeResponse(providerStream({ choices: [{ text: 'Hello there' }] }, 'openai-chat'));
 * await lastValueFrom(fromResponse(response).pipe(take(1)));
 * await response.cancelled; // true: take(1) unsubscribed, and fromResponse cancelled the body
 * ```
 *
 * @param stream The chunks, status, content type and stall of a reply.
 * @param options `error` (a transport failure after the chunks), `signal`.
 * @returns A fresh `Response`: each call serves the stream anew, from copies of its chunks.
 */
export function fakeResponse(stream: ProviderStream, options: FakeResponseOptions = {}): FakeResponse {
  const watch = new BodyWatch();
  let next = 0;
  let body!: ReadableStreamDefaultController<Uint8Array>;
  // Resolves a pull left waiting by a stall, once the body is given up on.
  let wake: (() => void) | undefined;
  const stream$ = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        body = controller;
      },
      pull(controller) {
        const chunk = stream.chunks[next];
        if (chunk !== undefined) {
          next++;
          controller.enqueue(chunk.slice());
        } else if (options.error !== undefined) {
          watch.settle('failed');
          controller.error(options.error);
        } else if (!stream.stalls) {
          watch.settle('read');
          controller.close();
        } else {
          return new Promise<void>((resolve) => (wake = resolve));
        }
        return undefined;
      },
      cancel() {
        watch.settle('cancelled');
        wake?.();
      },
    },
    // No chunk is pulled before the consumer asks for it: a cancel after the second read leaves the
    // rest unsent, as a server's rest would be.
    { highWaterMark: 0 },
  );
  const signal = options.signal;
  if (signal) {
    const abort = (): void => {
      if (!watch.settle('aborted')) return;
      body.error(signal.reason);
      wake?.();
    };
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  }
  const response = new Response(stream$, { status: stream.status, headers: headersOf(stream) });
  return watch.attach(response);
}
