import { Observable, Subscriber, finalize } from 'rxjs';
import { Demand } from '../io/Demand.js';
import { RelayFormatName, relayFormat } from './RelayFormat.js';
import { ResumePosition, STREAM_START, parseStreamPosition } from './streamEntries.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { ErrorExposureOptions } from '../errors/publicErrorData.js';
import { ChatEvent } from '../types/events.js';
import { MemoryStreamStore } from './MemoryStreamStore.js';
import { Producer } from './Producer.js';
import { randomStreamId } from './randomStreamId.js';
import { readStream, storeFailure } from './readStream.js';
import { SendSseOptions, SentReport, SseWritable, sendSse } from './sendSse.js';
import { SlowClientError } from './SlowClientError.js';
import { readStreamMetadata, writeStreamMetadata } from './streamMetadata.js';
import { checkpointingStore, readUiCheckpoint } from './uiCheckpoints.js';
import { StreamMetadata, StreamStore } from './StreamStore.js';

/** Where a relay's error arose: reading a source into the store (`produce`), or serving a client (`serve`, `start`). */
export interface RelayErrorContext {
  readonly during: 'produce' | 'start' | 'serve';
}

/** What an `authorize` hook is asked: may the request behind `context` do `action` to this stream? */
export interface StreamAccess<Context> {
  readonly action: 'serve' | 'stop';
  readonly streamId: string;
  /** What `start` kept with the stream (`undefined` when nothing is kept, or it expired). */
  readonly metadata: StreamMetadata | undefined;
  /** What the app passed to `serve` or `stop` as `context`: its request, its user. */
  readonly context: Context | undefined;
}

/** Options of {@link StreamRelay}. */
export interface StreamRelayOptions<Context = unknown>
  extends Pick<SendSseOptions, 'maxBufferedBytes' | 'stallTimeout' | 'heartbeatInterval'>, ErrorExposureOptions {
  /** Where the streams are kept: a `RedisStreamStore` for a fleet; by default a `MemoryStreamStore` (one instance). */
  readonly store?: StreamStore;
  /** The most entry bytes a producer may have waiting for the store before it pauses its source. Default 1 MiB. */
  readonly maxPendingBytes?: number;
  /**
   * Told of every failure of a producer's source, of the store, or of serving a client (a dropped
   * slow client aside: `serve` and `start` fail with it), with the stream's id and where it arose: the
   * error as it is, its own message included. Clients get its codes and a fixed message only (unless
   * `exposeErrors`): log it here.
   */
  readonly onError?: (error: unknown, streamId: string, context: RelayErrorContext) => void;
  /**
   * Decides whether a request may `serve` (resume) or `stop` a stream, from what `start` kept with it
   * (`metadata`, most often the user who started it) and the `context` the app passes (its request,
   * its user). Without it, whoever has a stream's id may do both: ids are unguessable
   * (`randomStreamId`), but they travel in URLs and logs. A refused `serve` is answered `403`; a
   * refused `stop` answers `false`, as for a stream that does not exist.
   */
  readonly authorize?: (access: StreamAccess<Context>) => boolean | Promise<boolean>;
}

/** Options of {@link StreamRelay.start} and {@link StreamRelay.serve}. */
export interface RelayClientOptions {
  /** `chat-events` (default) or `ui-message-stream`. */
  readonly format?: RelayFormatName;
  /** Headers sent besides the format's own and `x-stream-id`. */
  readonly headers?: Record<string, string>;
}

/** Options of {@link StreamRelay.start}. */
export interface RelayStartOptions extends RelayClientOptions {
  /** The stream's id; by default `randomStreamId()` (192 random bits). One you choose must be as hard to guess. */
  readonly streamId?: string;
  /** Kept with the stream, for `authorize` (the user who starts it: `{ userId }`). */
  readonly metadata?: StreamMetadata;
}

/** Options of {@link StreamRelay.serve}. */
export interface RelayServeOptions<Context = unknown> extends RelayClientOptions {
  /**
   * The client's `Last-Event-ID` (or a query's offset), as the request carried it: `12`, `12:3`, or
   * nothing (the start). Anything else (a word, an array from a repeated query parameter) is answered
   * `400` and reported as `bad-request`.
   */
  readonly lastEventId?: unknown;
  /** Given to `authorize`: the request, or the user, asking. */
  readonly context?: Context;
}

/**
 * A relay's report of one client: the sink's, with the stream's id; `no-content` when a 204 was sent,
 * `bad-request` a 400 (a malformed `Last-Event-ID`), `forbidden` a 403 (`authorize` said no).
 */
export interface RelayReport extends Omit<SentReport, 'ended'> {
  readonly streamId: string;
  readonly ended: SentReport['ended'] | 'no-content' | 'bad-request' | 'forbidden';
}

/** A `Last-Event-ID` this relay could have written. */
const EVENT_ID = /^\d{1,15}(?::\d{1,9})?$/;

/** Where a client that sent `lastEventId` stands; `undefined` when it is malformed. */
function resumePositionOf(lastEventId: unknown): ResumePosition | undefined {
  if (lastEventId === undefined || lastEventId === null) return STREAM_START;
  if (typeof lastEventId !== 'string') return undefined;
  const id = lastEventId.trim();
  if (id === '') return STREAM_START;
  return EVENT_ID.test(id) ? parseStreamPosition(id) : undefined;
}

/** Answers a request that gets no stream, with `status` and a line of text that names nothing internal. */
function answer(response: SseWritable, status: number, text: string): void {
  if (response.writableEnded === true || response.destroyed === true) return;
  if (response.headersSent !== true) response.writeHead?.(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

/**
 * Serves streamed replies to clients that are slow, that reconnect, and that land on another
 * instance: one per process, over one store. `start` begins a reply: it makes the stream in the
 * store, reads the source (by demand: at the first client's pace while it is attached, and no
 * faster than the store takes it), appends each event, and sends it to that client. `serve` sends a
 * stream to any client, from any instance: what is stored after its `Last-Event-ID`, then each event
 * as it is appended, to the end, or `204` when there is nothing to send. `stop` ends a generation
 * from any instance; a client that disconnects only detaches.
 *
 * Facing browsers: every request is answered (`400` for a malformed `Last-Event-ID`, `403` when
 * `authorize` says no, `503` when the store fails before the stream starts); an error reaches the
 * client as its codes and a fixed message, its own message going to `onError`; stream ids are
 * unguessable, and `authorize` decides who may resume or stop a stream from what `start` kept with it.
 *
 * @example
 * ```ts
 * import type { IncomingMessage, ServerResponse } from 'node:http';
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, type Demand } from 'rxjs-llm-stream';
 * import { StreamRelay } from 'rxjs-llm-stream/relay';
 *
 * // The app's own authentication says who asks; the relay keeps the starter's id with the stream.
 * const relay = new StreamRelay<{ userId: string }>({
 *   onError: (err, id, { during }) => console.warn(`stream ${id} (${during}):`, err),
 *   authorize: ({ metadata, context }) => context !== undefined && metadata?.['userId'] === context.userId,
 * });
 *
 * function chat(userId: string, response: ServerResponse, messages: unknown): void {
 *   const reply = (demand: Demand) =>
 *     fromFetch(upstreamUrl, {
 *       method: 'POST',
 *       headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env['UPSTREAM_API_KEY']}` },
 *       body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
 *       selector: (r) => fromResponse(r, { demand }),
 *     }).pipe(decodeUtf8(), sseFrames(), assembleChunks());
 *   relay.start(reply, response, { metadata: { userId } }).subscribe({ error: (err: unknown) => console.warn(err) });
 * }
 *
 * function resume(userId: string, request: IncomingMessage, response: ServerResponse, streamId: string): void {
 *   relay.serve(streamId, response, { lastEventId: request.headers['last-event-id'], context: { userId } }).subscribe();
 * }
 * ```
 */
export class StreamRelay<Context = unknown> {
  readonly store: StreamStore;
  private readonly producers = new Map<string, Producer>();

  constructor(private readonly options: StreamRelayOptions<Context> = {}) {
    this.store = options.store ?? new MemoryStreamStore();
  }

  /**
   * Starts a reply and sends it to `response` (with `x-stream-id`). The generation goes on when that
   * client leaves, and ends only at its own end or a `stop`. The result is cold: subscribing starts;
   * unsubscribing detaches the client. It fails with a `SlowClientError` when the client is dropped,
   * and with the store's error when the store fails (the client is told either way it can be).
   *
   * @param source Makes the reply's events from the demand it must read by (give it to `fromResponse`).
   * @param response Where the first client reads.
   * @param options `streamId` (default `randomStreamId()`), `metadata` (for `authorize`), `format`, `headers`.
   */
  start(
    source: (demand: Demand) => Observable<ChatEvent>,
    response: SseWritable,
    options: RelayStartOptions = {},
  ): Observable<RelayReport> {
    return new Observable<RelayReport>((subscriber) => {
      const streamId = options.streamId ?? randomStreamId();
      let subscription: { unsubscribe(): void } | undefined;
      let cancelled = false;
      try {
        const onError = this.options.onError;
        // The producer's appends also keep the UI encoder's state now and then, for UI clients that resume late.
        const producer = new Producer(checkpointingStore(this.store, streamId), streamId, {
          maxPendingBytes: this.options.maxPendingBytes ?? 1024 * 1024,
          onError: onError === undefined ? undefined : (error, id) => onError(error, id, { during: 'produce' }),
          onOver: () => {
            if (this.producers.get(streamId) === producer) this.producers.delete(streamId);
          },
        });
        const sent = sendSse(producer.live, response, {
          ...this.sinkOptions(options, streamId),
          demand: producer.clientDemand,
          format: relayFormat(options.format, STREAM_START, { exposeErrors: this.options.exposeErrors === true }),
        }).pipe(finalize(() => producer.detach()));
        const made = this.store.create(streamId).then(() => {
          // The producer is known here once the stream is: a stop on this instance finds it.
          this.producers.set(streamId, producer);
          return options.metadata === undefined ? undefined : writeStreamMetadata(this.store, streamId, options.metadata);
        });
        // The head (with x-stream-id) goes out once the store has the stream and its metadata: a client
        // that resumes with that id, on any instance, finds both.
        made.then(
          () => {
            if (cancelled || response.destroyed === true) {
              // The client left while the stream was being made: the reply goes on into the store, for it to resume.
              producer.detach();
              producer.run(source);
              if (!cancelled) subscriber.next({ streamId, ended: 'client-closed', lastEventId: undefined, merged: 0 });
              if (!cancelled) subscriber.complete();
              return;
            }
            subscription = sent.subscribe({
              next: (report) => subscriber.next({ ...report, streamId }),
              error: (error: unknown) => subscriber.error(error),
              complete: () => subscriber.complete(),
            });
            producer.run(source);
          },
          (error: unknown) => {
            producer.failCreate(error);
            if (cancelled) return;
            answer(response, 503, 'the stream store is unavailable\n');
            subscriber.error(isLlmStreamError(error) ? error : storeFailure(streamId, error));
          },
        );
      } catch (error) {
        this.failRequest(error, streamId, 'start', response, subscriber);
      }
      return () => {
        cancelled = true;
        subscription?.unsubscribe();
      };
    });
  }

  /**
   * Sends stream `streamId` to `response`, from whichever instance produces it: the entries after
   * `lastEventId` (the start without one), then each as it is appended, to the end. Answers `204`
   * (and reports `no-content`) when the store holds no such stream, or it has ended and the client
   * has it all; `400` (`bad-request`) for a malformed `lastEventId`; `403` (`forbidden`) when
   * `authorize` refuses. Unsubscribing, or the client leaving, only detaches this reader.
   */
  serve(streamId: string, response: SseWritable, options: RelayServeOptions<Context> = {}): Observable<RelayReport> {
    return new Observable<RelayReport>((subscriber) => {
      let cancelled = false;
      let subscription: { unsubscribe(): void } | undefined;
      const refuse = (status: number, ended: 'no-content' | 'bad-request' | 'forbidden', text: string): void => {
        if (status === 204) {
          response.writeHead?.(204, {});
          response.end();
        } else answer(response, status, text);
        subscriber.next({
          streamId,
          ended,
          lastEventId: typeof options.lastEventId === 'string' ? options.lastEventId : undefined,
          merged: 0,
        });
        subscriber.complete();
      };
      try {
        const position = resumePositionOf(options.lastEventId);
        if (position === undefined) {
          refuse(400, 'bad-request', 'Last-Event-ID must be an event id this stream sent (12, or 12:3)\n');
          return;
        }
        const formatName = options.format ?? 'chat-events';
        this.store
          .state(streamId)
          .then(async (state) => {
            if (cancelled) return;
            // The `end` entry writes no event in the ChatEvent format: a client that has the one before it has it all. In the UI
            // stream it writes several: only a client past all of them (`12`, not `12:1`) has it all.
            const hasAll =
              formatName === 'chat-events'
                ? position.entry + 1 >= state.lastId
                : position.entry >= state.lastId && position.chunk === undefined;
            if (!state.stored) return refuse(204, 'no-content', '');
            if (!(await this.allows('serve', streamId, options.context)))
              return cancelled ? undefined : refuse(403, 'forbidden', 'forbidden\n');
            if (cancelled) return;
            if (state.ended && hasAll) return refuse(204, 'no-content', '');
            // A UI client is encoded from the checkpoint before its position: reading starts there, not at the first entry.
            const through = position.chunk === undefined ? position.entry : position.entry - 1;
            const checkpoint = formatName === 'ui-message-stream' ? await readUiCheckpoint(this.store, streamId, through) : undefined;
            if (cancelled) return;
            const exposeErrors = this.options.exposeErrors === true;
            const format = relayFormat(formatName, position, checkpoint === undefined ? { exposeErrors } : { exposeErrors, checkpoint });
            const demand = new Demand();
            const entries$ = readStream(this.store, streamId, { after: format.readAfter, demand });
            subscription = sendSse(entries$, response, { ...this.sinkOptions(options, streamId), demand, format }).subscribe({
              next: (report) => subscriber.next({ ...report, streamId }),
              error: (error: unknown) => {
                if (!(error instanceof SlowClientError)) this.options.onError?.(error, streamId, { during: 'serve' });
                subscriber.error(error);
              },
              complete: () => subscriber.complete(),
            });
          })
          .catch((error: unknown) => {
            if (cancelled) return;
            this.options.onError?.(error, streamId, { during: 'serve' });
            answer(response, 503, 'the stream store is unavailable\n');
            subscriber.error(isLlmStreamError(error) ? error : storeFailure(streamId, error));
          });
      } catch (error) {
        this.failRequest(error, streamId, 'serve', response, subscriber);
      }
      return () => {
        cancelled = true;
        subscription?.unsubscribe();
      };
    });
  }

  /**
   * Ends the generation of `streamId` wherever it runs: at once when it runs here, else through the
   * store, which its producer checks at every heartbeat. Its source is cancelled (the provider's
   * request aborted) and its readers get a `StreamClosedEarlyError` with `reason: 'stopped'`.
   *
   * @param streamId The stream.
   * @param options `context`: given to `authorize` (the request, or the user, asking).
   * @returns Whether a live stream had that id and `authorize` allowed the stop.
   */
  async stop(streamId: string, options: { readonly context?: Context } = {}): Promise<boolean> {
    if (!(await this.allows('stop', streamId, options.context))) return false;
    const local = this.producers.get(streamId);
    if (local !== undefined) {
      local.stop();
      return true;
    }
    return this.store.requestStop(streamId);
  }

  /** Whether `authorize` (when there is one) lets `context` do `action` to the stream. */
  private async allows(action: 'serve' | 'stop', streamId: string, context: Context | undefined): Promise<boolean> {
    const authorize = this.options.authorize;
    if (authorize === undefined) return true;
    const metadata = await readStreamMetadata(this.store, streamId);
    return (await authorize({ action, streamId, metadata, context })) === true;
  }

  /** A request the relay could not even begin to serve (a bug, a throwing store): answered, told, reported. */
  private failRequest(
    error: unknown,
    streamId: string,
    during: 'start' | 'serve',
    response: SseWritable,
    subscriber: Subscriber<RelayReport>,
  ): void {
    this.options.onError?.(error, streamId, { during });
    answer(response, 500, 'the relay failed\n');
    subscriber.error(error);
  }

  private sinkOptions(options: RelayClientOptions, streamId: string): SendSseOptions {
    const { maxBufferedBytes, stallTimeout, heartbeatInterval } = this.options;
    return {
      ...(maxBufferedBytes === undefined ? {} : { maxBufferedBytes }),
      ...(stallTimeout === undefined ? {} : { stallTimeout }),
      ...(heartbeatInterval === undefined ? {} : { heartbeatInterval }),
      headers: { ...options.headers, 'x-stream-id': streamId },
    };
  }
}
