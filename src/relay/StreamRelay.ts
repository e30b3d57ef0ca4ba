import { Observable, finalize } from 'rxjs';
import { Demand } from '../io/Demand.js';
import { RelayFormatName, relayFormat } from './RelayFormat.js';
import { parseStreamPosition } from './streamEntries.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { ChatEvent } from '../types/events.js';
import { MemoryStreamStore } from './MemoryStreamStore.js';
import { Producer } from './Producer.js';
import { readStream, storeFailure } from './readStream.js';
import { SendSseOptions, SentReport, SseWritable, sendSse } from './sendSse.js';
import { StreamStore } from './StreamStore.js';

/** Options of {@link StreamRelay}. */
export interface StreamRelayOptions extends Pick<SendSseOptions, 'maxBufferedBytes' | 'stallTimeout' | 'heartbeatInterval'> {
  /** Where the streams are kept: a `RedisStreamStore` for a fleet; by default a `MemoryStreamStore` (one instance). */
  readonly store?: StreamStore;
  /** The most entry bytes a producer may have waiting for the store before it pauses its source. Default 1 MiB. */
  readonly maxPendingBytes?: number;
  /** Told of every failure of a producer's source or of the store, with the stream's id: log it. */
  readonly onError?: (error: unknown, streamId: string) => void;
}

/** Options of {@link StreamRelay.start} and {@link StreamRelay.serve}. */
export interface RelayClientOptions {
  /** `chat-events` (default) or `ui-message-stream`. */
  readonly format?: RelayFormatName;
  /** Headers sent besides the format's own and `x-stream-id`. */
  readonly headers?: Record<string, string>;
}

/** A relay's report of one client: the sink's, with the stream's id; `no-content` when a 204 was sent. */
export interface RelayReport extends Omit<SentReport, 'ended'> {
  readonly streamId: string;
  readonly ended: SentReport['ended'] | 'no-content';
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
 * @example
 * ```ts
 * import { randomUUID } from 'node:crypto';
 * import type { IncomingMessage, ServerResponse } from 'node:http';
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 * import { StreamRelay } from 'rxjs-llm-stream/relay';
 *
 * const relay = new StreamRelay({ onError: (err, id) => console.warn(`stream ${id}:`, err) });
 *
 * function chat(request: IncomingMessage, response: ServerResponse, body: string): void {
 *   const reply = (demand: import('rxjs-llm-stream').Demand) =>
 *     fromFetch(upstreamUrl, { method: 'POST', body, selector: (r) => fromResponse(r, { demand }) }).pipe(
 *       decodeUtf8(),
 *       sseFrames(),
 *       assembleChunks(),
 *     );
 *   relay.start(reply, response, { streamId: randomUUID() }).subscribe({ error: (err: unknown) => console.warn(err) });
 * }
 *
 * function resume(request: IncomingMessage, response: ServerResponse, streamId: string): void {
 *   relay.serve(streamId, response, { lastEventId: request.headers['last-event-id'] as string | undefined }).subscribe();
 * }
 * ```
 */
export class StreamRelay {
  readonly store: StreamStore;
  private readonly producers = new Map<string, Producer>();

  constructor(private readonly options: StreamRelayOptions = {}) {
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
   * @param options `streamId` (default a random UUID), `format`, `headers`.
   */
  start(
    source: (demand: Demand) => Observable<ChatEvent>,
    response: SseWritable,
    options: RelayClientOptions & { readonly streamId?: string } = {},
  ): Observable<RelayReport> {
    return new Observable<RelayReport>((subscriber) => {
      const streamId = options.streamId ?? globalThis.crypto.randomUUID();
      const producer = new Producer(this.store, streamId, {
        maxPendingBytes: this.options.maxPendingBytes ?? 1024 * 1024,
        onError: this.options.onError,
        onOver: () => {
          if (this.producers.get(streamId) === producer) this.producers.delete(streamId);
        },
      });
      this.producers.set(streamId, producer);
      const sent = sendSse(producer.live, response, {
        ...this.sinkOptions(options, streamId),
        demand: producer.clientDemand,
        format: relayFormat(options.format),
      }).pipe(finalize(() => producer.detach()));
      let subscription: { unsubscribe(): void } | undefined;
      let cancelled = false;
      // The head (with x-stream-id) goes out once the store has the stream: a client that resumes
      // with that id, on any instance, finds it.
      this.store.create(streamId).then(
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
          response.writeHead?.(503, { 'content-type': 'text/plain' });
          response.end('the stream store is unavailable\n');
          subscriber.error(isLlmStreamError(error) ? error : storeFailure(streamId, error));
        },
      );
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
   * has it all. Unsubscribing, or the client leaving, only detaches this reader.
   */
  serve(
    streamId: string,
    response: SseWritable,
    options: RelayClientOptions & { readonly lastEventId?: string } = {},
  ): Observable<RelayReport> {
    return new Observable<RelayReport>((subscriber) => {
      const position = parseStreamPosition(options.lastEventId);
      const format = relayFormat(options.format, position);
      let cancelled = false;
      let subscription: { unsubscribe(): void } | undefined;
      this.store.state(streamId).then(
        (state) => {
          if (cancelled) return;
          // The `end` entry writes no event in the ChatEvent format: a client that has the one before it has it all. In the UI
          // stream it writes several: only a client past all of them (`12`, not `12:1`) has it all.
          const hasAll =
            format.name === 'chat-events'
              ? position.entry + 1 >= state.lastId
              : position.entry >= state.lastId && position.chunk === undefined;
          if (!state.stored || (state.ended && hasAll)) {
            response.writeHead?.(204, {});
            response.end();
            subscriber.next({ streamId, ended: 'no-content', lastEventId: options.lastEventId, merged: 0 });
            return subscriber.complete();
          }
          const demand = new Demand();
          const entries$ = readStream(this.store, streamId, { after: format.readAfter, demand });
          subscription = sendSse(entries$, response, { ...this.sinkOptions(options, streamId), demand, format }).subscribe({
            next: (report) => subscriber.next({ ...report, streamId }),
            error: (error: unknown) => subscriber.error(error),
            complete: () => subscriber.complete(),
          });
        },
        (error: unknown) => {
          if (cancelled) return;
          response.writeHead?.(503, { 'content-type': 'text/plain' });
          response.end('the stream store is unavailable\n');
          subscriber.error(storeFailure(streamId, error));
        },
      );
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
   * @returns Whether a live stream had that id.
   */
  async stop(streamId: string): Promise<boolean> {
    const local = this.producers.get(streamId);
    if (local !== undefined) {
      local.stop();
      return true;
    }
    return this.store.requestStop(streamId);
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
