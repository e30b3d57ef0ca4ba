import { Observable, SchedulerLike } from 'rxjs';
import { Demand } from './Demand.js';
import type { NodeReadableLike } from './NodeReadableLike.js';
import { ChunkReading, nodeChunks, webChunks } from './readChunks.js';
import { ResponseCheckOptions, checkedBody } from './checkedBody.js';
import { readRateLimits } from '../rate-limits/readRateLimits.js';

/**
 * How long a body may be silent before it fails with `StreamIdleError`: ten minutes, the request
 * timeout of the official SDKs. Reasoning models can think in silence for minutes, so the default
 * is generous; it exists so that a stalled connection ends at all.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60 * 1000;

/** Options of `fromReadableStream` and `fromResponse`. */
export interface BodySourceOptions extends ResponseCheckOptions {
  /**
   * Milliseconds without a byte after which the body fails with a `StreamIdleError` (and the
   * connection is closed). Default {@link DEFAULT_IDLE_TIMEOUT_MS} (ten minutes); `false` never.
   * Keep-alive comments are bytes: a server that pings while it thinks is not idle.
   */
  readonly idleTimeout?: number | false;
  /** Where the idle timer runs: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
  /**
   * Reads the next chunk only while this gate is open (see `Demand`): a consumer that pauses it
   * stops the reading of the body, and so of the connection under it, until it resumes. Without
   * it the body is read as fast as it comes. A Node stream must then have `pause` and `resume`.
   */
  readonly demand?: Demand;
}

/** A Node `http.IncomingMessage` (a client's response), told apart by its status code. */
interface NodeResponseLike extends NodeReadableLike {
  readonly statusCode?: number;
  readonly headers?: { readonly [name: string]: string | string[] | undefined };
}

/** True for a WHATWG `ReadableStream` (browsers, Node 18+, Deno, workers). */
function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

/** The reading settings the options ask for, checked once when the source is made. */
export function chunkReading(options: BodySourceOptions, caller: string): ChunkReading {
  const timeout = options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (timeout !== false && !(typeof timeout === 'number' && timeout > 0)) {
    throw new TypeError(`${caller}: idleTimeout must be a positive number of milliseconds or false, got ${String(timeout)}`);
  }
  return {
    idleTimeout: timeout === false ? Infinity : timeout,
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    ...(options.demand === undefined ? {} : { demand: options.demand }),
  };
}

/**
 * The chunks of a web `ReadableStream<Uint8Array>` (a fetch body) or a Node.js `Readable` (an
 * `http.IncomingMessage`, a file stream) as an `Observable<Uint8Array>`.
 *
 * Every way the body can fail ends typed, after whatever chunks arrived: a transport failure (a
 * reset socket, a dropped proxy connection, Node's `Error: aborted`) is a `StreamClosedEarlyError`
 * whose `cause` is the platform's error; a Node stream that closes before its end is one too; a body
 * silent for longer than `idleTimeout` (ten minutes by default) is a `StreamIdleError`. An
 * `http.IncomingMessage` is checked as `fromResponse` checks a `Response`: a non-2xx status is a
 * `ProviderError` with the status and the provider's error body, an unexpected content type a
 * `ProtocolError`.
 *
 * Unsubscribing cancels at once, and silently: the web stream's reader is cancelled, the Node stream
 * destroyed, so the connection behind it closes now rather than when the next chunk happens to
 * arrive (which is how `from(stream)` behaves in RxJS 7). A stream can be read only once: a second
 * subscription errors, as the stream itself would.
 *
 * ```
 * stream:  --[bytes]--[bytes]--end
 * result:  --[bytes]--[bytes]--|
 * stream:  --[bytes]--[bytes]--RST
 * result:  --[bytes]--[bytes]--#  StreamClosedEarlyError { cause: Error: aborted }
 * ```
 *
 * @example
 * ```ts
 * import { get } from 'node:http';
 * import { fromReadableStream, decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * get(url, (response) => {
 *   fromReadableStream(response, { idleTimeout: 120_000 })
 *     .pipe(decodeUtf8(), sseFrames())
 *     .subscribe({ next: console.log, error: (err) => console.error(err.name, err.message) });
 * });
 * ```
 *
 * @param stream A web `ReadableStream<Uint8Array>` or a Node.js `Readable`.
 * With a `demand`, the next chunk is read only while the demand is not paused, so a slow consumer
 * holds the connection back instead of buffering what it cannot take yet.
 *
 * @param options `idleTimeout`, `contentTypes` (for an `http.IncomingMessage`), `scheduler`, `demand`.
 * @returns The stream's chunks; strings from a Node stream with an encoding set are encoded as UTF-8.
 */
export function fromReadableStream(
  stream: ReadableStream<Uint8Array> | NodeReadableLike,
  options: BodySourceOptions = {},
): Observable<Uint8Array> {
  const reading = chunkReading(options, 'fromReadableStream');
  if (isWebStream(stream)) return webChunks(stream, reading);
  const response = stream as NodeResponseLike;
  if (reading.demand !== undefined && (typeof stream.pause !== 'function' || typeof stream.resume !== 'function')) {
    throw new TypeError('fromReadableStream: a demand needs a stream with pause() and resume()');
  }
  const chunks = nodeChunks(stream, reading);
  if (typeof response.statusCode !== 'number') return chunks;
  const contentType = response.headers?.['content-type'];
  const ok = response.statusCode >= 200 && response.statusCode <= 299;
  const rateLimits = ok || response.headers === undefined ? undefined : readRateLimits(response.headers);
  return checkedBody(
    {
      status: response.statusCode,
      contentType: Array.isArray(contentType) ? contentType[0] : contentType,
      ...(rateLimits === undefined ? {} : { rateLimits }),
    },
    chunks,
    options,
  );
}
