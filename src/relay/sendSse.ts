import { Observable } from 'rxjs';
import { ClientBacklog } from './ClientBacklog.js';
import { Demand } from '../io/Demand.js';
import { RelayFormat, RelayFormatName, RelayFrame, relayFormat } from './RelayFormat.js';
import { uiMessageStreamHeaders } from '../ui/uiMessageChunks.js';
import { StreamEntry } from './streamEntries.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { SlowClientError } from './SlowClientError.js';
import { ErrorExposureOptions } from '../errors/publicErrorData.js';

/** The part of a Node `ServerResponse` (or any `Writable`) the sink uses. */
export interface SseWritable {
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  destroy(error?: Error): unknown;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  readonly writableEnded?: boolean;
  readonly destroyed?: boolean;
  /** A `ServerResponse`'s: the sink sends the status and headers when they are not sent yet. */
  readonly headersSent?: boolean;
  writeHead?(status: number, headers: Record<string, string>): unknown;
  flushHeaders?(): void;
}

/** Options of {@link sendSse}. */
export interface SendSseOptions extends ErrorExposureOptions {
  /** `chat-events` (default: this library's events, as `toMessageEvents` names them) or `ui-message-stream`. */
  readonly format?: RelayFormatName | RelayFormat;
  /**
   * The most bytes that may wait for the client while it is not draining, behind the next event (which is
   * written whole when the socket has room, however large); past it the client is dropped (`over-cap`).
   * Default 1 MiB.
   */
  readonly maxBufferedBytes?: number;
  /** How long the client may take nothing while bytes wait for it; then it is dropped (`stalled`). Default 30 s. */
  readonly stallTimeout?: number;
  /** A comment (`: heartbeat`) after this many milliseconds with nothing written, so proxies keep the connection. Default 15 s. */
  readonly heartbeatInterval?: number;
  /** Paused while the client is not draining, resumed when it drains: give the same to the source. */
  readonly demand?: Demand;
  /** Headers sent besides the format's own (`x-stream-id`), when the sink sends the head. */
  readonly headers?: Record<string, string>;
}

/** What a sink did, once the response is over. */
export interface SentReport {
  /** `complete`: the stream's end was written; `client-closed`: the client went away first. */
  readonly ended: 'complete' | 'client-closed';
  /** The id of the last event written: where the client resumes from. */
  readonly lastEventId: string | undefined;
  /** Frames merged into the one before them while the client was slow. */
  readonly merged: number;
}

/** The default cap on what may wait for one client. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

const CHAT_EVENT_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * Writes a stream's entries to a Node `ServerResponse` (or any writable) as Server-Sent Events, each
 * with its `id:`, at the pace the client takes them. When `write()` says the client's buffers are
 * full, the sink pauses `demand` (so a source that reads by demand stops reading its provider) and
 * keeps what arrives meanwhile in a backlog counted in bytes, where consecutive text deltas merge;
 * on `'drain'` it writes the backlog in one piece and resumes. A backlog over `maxBufferedBytes`, or
 * a client that takes nothing for `stallTimeout`, is dropped: the connection is destroyed, the source
 * unsubscribed, and the result fails with a `SlowClientError`. Idle, it writes a heartbeat comment.
 *
 * The result is cold: subscribing sends the head (when not sent) and starts. It emits one
 * `SentReport` when the response is over: the stream's end written (`complete`), or the client gone
 * (`client-closed`: the source is unsubscribed, which is no error). A source that fails has its error
 * written to the client as the stream's last event (its codes and a fixed message, `publicErrorData`;
 * its own message with `exposeErrors`), and then fails the result with it, so that the server logs it.
 *
 * ```
 * entries:  --1--2--3--4--end|
 * client:   --1--(slow.....)--(2+3+4 merged as 4)--|
 * ```
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { fromFetch } from 'rxjs/fetch';
 * import { Demand, fromResponse, decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 * import { sendSse, toStreamEntries } from 'rxjs-llm-stream/relay';
 *
 * createServer((request, response) => {
 *   const demand = new Demand(); // the client's pace reaches the provider
 *   const events$ = fromFetch(upstreamUrl, { selector: (r) => fromResponse(r, { demand }) }).pipe(
 *     decodeUtf8(),
 *     sseFrames(),
 *     assembleChunks(),
 *   );
 *   sendSse(events$.pipe(toStreamEntries()), response, { demand }).subscribe({ error: (err: unknown) => console.warn(err) });
 * }).listen(3000, '127.0.0.1');
 * ```
 *
 * @param entries$ The entries (`toStreamEntries()` numbers plain events; a store's reader gives its own).
 * @param response Where to write.
 * @param options Format, cap, stall timeout, heartbeat, demand, headers.
 * @returns One report when the response is over.
 */
export function sendSse(entries$: Observable<StreamEntry>, response: SseWritable, options: SendSseOptions = {}): Observable<SentReport> {
  const maxBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const stallTimeout = options.stallTimeout ?? DEFAULT_STALL_TIMEOUT_MS;
  const heartbeatInterval = options.heartbeatInterval ?? DEFAULT_SSE_HEARTBEAT_MS;
  return new Observable<SentReport>((subscriber) => {
    const format =
      typeof options.format === 'object'
        ? options.format
        : relayFormat(options.format, undefined, { exposeErrors: options.exposeErrors === true });
    const backlog = new ClientBacklog();
    const demand = options.demand;
    let blocked = false;
    let over = false;
    let lastWriteAt = Date.now();
    let stall: ReturnType<typeof setTimeout> | undefined;

    if (response.headersSent === false && response.writeHead !== undefined) {
      const own = format.name === 'ui-message-stream' ? uiMessageStreamHeaders : CHAT_EVENT_HEADERS;
      response.writeHead(200, { ...own, ...options.headers });
      response.flushHeaders?.();
    }

    const report = (ended: SentReport['ended']): SentReport => ({ ended, lastEventId: backlog.lastTakenId, merged: backlog.mergedCount });
    /** Stops the timers and listeners; the subscriber's end then unsubscribes the source. */
    const finish = (): void => {
      over = true;
      clearTimeout(stall);
      clearInterval(heartbeat);
      response.removeListener('drain', onDrain);
      response.removeListener('close', onClose);
      response.removeListener('error', onClose);
      // Whatever this sink paused, it no longer holds back.
      demand?.resume();
    };
    const drop = (reason: 'over-cap' | 'stalled'): void => {
      const waiting = backlog.bytes;
      const behind = backlog.bytesBeyondNext;
      const message =
        reason === 'over-cap'
          ? `dropped a slow client: ${behind} bytes waited for it behind the next event, over the cap of ${maxBytes}`
          : `dropped a stalled client: it took nothing for ${stallTimeout} ms with ${waiting} bytes waiting`;
      finish();
      response.destroy();
      subscriber.error(new SlowClientError(message, { reason, bufferedBytes: waiting, lastEventId: backlog.lastTakenId }));
    };
    /** What follows a `write()` that answered false: hold the source back until `'drain'`, for at most the stall timeout. */
    const block = (): void => {
      blocked = true;
      demand?.pause();
      stall = setTimeout(() => drop('stalled'), stallTimeout);
    };
    const flush = (): void => {
      if (blocked || over || backlog.length === 0) return;
      lastWriteAt = Date.now();
      if (!response.write(backlog.take())) block();
    };
    function onDrain(): void {
      blocked = false;
      clearTimeout(stall);
      flush();
      if (!blocked) demand?.resume();
    }
    function onClose(): void {
      if (over) return;
      finish();
      subscriber.next(report('client-closed'));
      subscriber.complete();
    }
    const push = (frames: readonly RelayFrame[]): void => {
      for (const frame of frames) backlog.push(frame);
      // The socket has room: what waits is written, whatever its size. Only what waits behind the next
      // frame while the client is not draining counts against the cap.
      if (blocked && backlog.bytesBeyondNext > maxBytes) drop('over-cap');
      else flush();
    };
    /** Writes what waits and ends the response; a client that never takes it is cut off after the stall timeout. */
    const end = (): void => {
      const wasBlocked = blocked;
      finish();
      response.end(backlog.take());
      if (!wasBlocked) return;
      const cutOff = setTimeout(() => response.destroy(), stallTimeout);
      response.on('close', () => clearTimeout(cutOff));
    };
    response.on('drain', onDrain);
    response.on('close', onClose);
    response.on('error', onClose);
    const heartbeat = setInterval(() => {
      if (blocked || over || Date.now() - lastWriteAt < heartbeatInterval) return;
      lastWriteAt = Date.now();
      if (!response.write(': heartbeat\n\n')) block();
    }, heartbeatInterval);

    subscribeLinked(entries$, subscriber, {
      next: (entry) => {
        if (!over) push(format.frames(entry));
      },
      error: (error: unknown) => {
        if (over) return;
        for (const frame of format.fail(error, backlog.lastId ?? '0')) backlog.push(frame);
        end();
        subscriber.error(error);
      },
      complete: () => {
        if (over) return;
        end();
        subscriber.next(report('complete'));
        subscriber.complete();
      },
    });
    return () => {
      if (over) return;
      // Unsubscribed by the caller: the stream ends here, without its end (the client may resume).
      finish();
      if (response.writableEnded !== true && response.destroyed !== true) response.end();
    };
  });
}
