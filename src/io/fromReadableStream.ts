import { Observable } from 'rxjs';

/** The part of a Node.js `Readable` this library uses (so that no Node types leak into browser builds). */
export interface NodeReadableLike {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): unknown;
  readonly destroyed?: boolean;
}

/** True for a WHATWG `ReadableStream` (browsers, Node 18+, Deno, workers). */
function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

/**
 * The chunks of a web `ReadableStream<Uint8Array>` (a fetch body) or a Node.js `Readable` (an
 * `http.IncomingMessage`, a file stream) as an `Observable<Uint8Array>`.
 *
 * Unsubscribing cancels at once: the web stream's reader is cancelled (`reader.cancel()`), the Node
 * stream destroyed, so the connection behind it closes now rather than when the next chunk happens to
 * arrive (which is how `from(stream)` behaves in RxJS 7). A stream can be read only once: a second
 * subscription errors, as the stream itself would.
 *
 * ```
 * stream:  --[bytes]--[bytes]--end
 * result:  --[bytes]--[bytes]--|
 * ```
 *
 * @example
 * ```ts
 * import { get } from 'node:http';
 * import { fromReadableStream, decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * get(url, (response) => {
 *   fromReadableStream(response).pipe(decodeUtf8(), sseFrames()).subscribe(console.log);
 * });
 * ```
 *
 * @param stream A web `ReadableStream<Uint8Array>` or a Node.js `Readable`.
 * @returns The stream's chunks; strings from a Node stream with an encoding set are encoded as UTF-8.
 */
export function fromReadableStream(stream: ReadableStream<Uint8Array> | NodeReadableLike): Observable<Uint8Array> {
  return isWebStream(stream) ? fromWebStream(stream) : fromNodeReadable(stream);
}

function fromWebStream(stream: ReadableStream<Uint8Array>): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    let reader: ReadableStreamDefaultReader<Uint8Array>;
    try {
      reader = stream.getReader();
    } catch (error) {
      subscriber.error(error); // locked: somebody else is reading it
      return;
    }
    let finished = false;
    const pump = (): void => {
      reader.read().then(
        (result) => {
          if (subscriber.closed) return;
          if (result.done) {
            finished = true;
            subscriber.complete();
            return;
          }
          subscriber.next(result.value);
          pump();
        },
        (error: unknown) => {
          finished = true;
          subscriber.error(error);
        },
      );
    };
    pump();
    return () => {
      // Cancel now, not at the next read: this is what closes the connection and stops the upstream
      // generating (and billing) the rest of the reply.
      if (!finished) reader.cancel().catch(() => undefined);
      else reader.releaseLock();
    };
  });
}

function fromNodeReadable(stream: NodeReadableLike): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    const encoder = new TextEncoder();
    let ended = false;
    const onData = (chunk: Uint8Array | string): void => {
      subscriber.next(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    };
    const onEnd = (): void => {
      ended = true;
      subscriber.complete();
    };
    const onError = (error: Error): void => {
      ended = true;
      subscriber.error(error);
    };
    // A stream destroyed before its end (by its owner, or a reset socket) emits `close` without
    // `end`: that is a stream that stopped early, not a complete one.
    const onClose = (): void => {
      if (!ended) onError(new Error('the stream closed before its end'));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    return () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
      if (!ended && stream.destroyed !== true) stream.destroy();
    };
  });
}
