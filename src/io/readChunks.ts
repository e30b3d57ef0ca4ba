import { Observable, SchedulerLike, Subscriber, asyncScheduler } from 'rxjs';
import { Demand } from './Demand.js';
import type { NodeReadableLike } from './NodeReadableLike.js';
import { IdleListener, IdleWatch } from '../internal/idleWatch.js';
import { BytesRead, closedBeforeEnd, idleBody, transportFailure } from './transportFailure.js';

/** How a source watches its body: the longest silence it allows, and the clock it measures with. */
export interface ChunkReading {
  /** Milliseconds of silence after which the body fails with `StreamIdleError` (`Infinity`: never). */
  readonly idleTimeout: number;
  readonly scheduler?: SchedulerLike;
  /** When given, the next chunk is read only while it is not paused. */
  readonly demand?: Demand;
}

/**
 * Counts what a source reads and watches its silences, for the source's own reading loop: `chunk`
 * for every chunk, `resumed` when the reader's demand opens again. It is its own `BytesRead`, for
 * the messages of the source's errors.
 */
class ChunkProgress implements BytesRead, IdleListener {
  chunks = 0;
  bytes = 0;
  protected readonly subscriber: Subscriber<Uint8Array>;
  readonly #reading: ChunkReading;
  #watch: IdleWatch;
  // Silence while the reader's own demand holds the body back is not the body's silence: a timer
  // that fires then is noted, and started afresh when the demand resumes.
  #silentWhilePaused = false;

  constructor(subscriber: Subscriber<Uint8Array>, reading: ChunkReading) {
    this.subscriber = subscriber;
    this.#reading = reading;
    this.#watch = this.#startWatch();
  }

  chunk(bytes: Uint8Array): void {
    this.chunks++;
    this.bytes += bytes.length;
    this.#watch.touch();
  }

  resumed(): void {
    if (!this.#silentWhilePaused) return this.#watch.touch();
    this.#silentWhilePaused = false;
    this.#watch = this.#startWatch();
  }

  onIdle(): void {
    if (this.#reading.demand?.paused === true) this.#silentWhilePaused = true;
    else this.subscriber.error(idleBody(this.#reading.idleTimeout, this));
  }

  #startWatch(): IdleWatch {
    const reading = this.#reading;
    return new IdleWatch(this.subscriber, reading.idleTimeout, reading.scheduler ?? asyncScheduler, this);
  }
}

/**
 * The chunks of a web `ReadableStream`, read one at a time; unsubscribing cancels the reader at
 * once. A read that fails (the connection reset, the request aborted) is a `StreamClosedEarlyError`
 * whose `cause` is the platform's error; silence longer than `idleTimeout` a `StreamIdleError`.
 */
export function webChunks(stream: ReadableStream<Uint8Array>, reading: ChunkReading): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    let reader: ReadableStreamDefaultReader<Uint8Array>;
    try {
      reader = stream.getReader();
    } catch (error) {
      subscriber.error(error); // locked: somebody else is reading it
      return;
    }
    const progress = new ChunkProgress(subscriber, reading);
    const demand = reading.demand;
    let finished = false;
    let waiting: (() => void) | undefined;
    const pump = (): void => {
      if (demand?.paused === true) {
        // Nothing is read while the consumer holds back: the stream's queue fills, and the platform
        // stops reading the socket behind it.
        waiting = demand.watch((paused) => {
          if (paused) return;
          waiting?.();
          waiting = undefined;
          progress.resumed();
          if (!subscriber.closed) pump();
        });
        return;
      }
      reader.read().then(
        (result) => {
          if (subscriber.closed) return;
          if (result.done) {
            finished = true;
            subscriber.complete();
            return;
          }
          progress.chunk(result.value);
          subscriber.next(result.value);
          pump();
        },
        (error: unknown) => {
          finished = true;
          // After an unsubscribe the cancel itself rejects the pending read: not a fault.
          if (!subscriber.closed) subscriber.error(transportFailure(error, progress));
        },
      );
    };
    pump();
    return () => {
      waiting?.();
      // Cancel now, not at the next read: this is what closes the connection and stops the upstream
      // generating (and billing) the rest of the reply.
      if (!finished) reader.cancel().catch(() => undefined);
      else reader.releaseLock();
    };
  });
}

/**
 * The chunks of a Node.js `Readable`; unsubscribing destroys it. An `error` (a reset socket gives
 * `Error: aborted`) is a `StreamClosedEarlyError` whose `cause` is that error, and so is a `close`
 * without `end` (the stream was destroyed before its end); silence longer than `idleTimeout` a
 * `StreamIdleError`. Strings (a stream with an encoding set) are encoded as UTF-8.
 */
export function nodeChunks(stream: NodeReadableLike, reading: ChunkReading): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => new NodeChunkReader(stream, reading, subscriber));
}

/** Encodes the chunks of a stream with an encoding set: shared, it keeps no state between calls. */
let encoder: TextEncoder | undefined;

/**
 * One subscription to a Node stream: its listeners, its progress and its teardown, in one object. A
 * gateway holds one per open reply, where a closure per listener with their shared contexts took
 * several times its size.
 */
class NodeChunkReader extends ChunkProgress {
  readonly #stream: NodeReadableLike;
  #ended = false;
  readonly #unwatch: (() => void) | undefined;

  constructor(stream: NodeReadableLike, reading: ChunkReading, subscriber: Subscriber<Uint8Array>) {
    super(subscriber, reading);
    this.#stream = stream;
    stream.on('data', this.#onData);
    stream.on('end', this.#onEnd);
    stream.on('error', this.#onError);
    stream.on('close', this.#onClose);
    const demand = reading.demand;
    if (demand === undefined) return;
    this.#unwatch = demand.watch((paused) => this.#follow(paused));
    if (demand.paused) this.#follow(true);
  }

  readonly #onData = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === 'string' ? (encoder ??= new TextEncoder()).encode(chunk) : chunk;
    this.chunk(bytes);
    this.subscriber.next(bytes);
  };

  readonly #onEnd = (): void => {
    this.#ended = true;
    this.subscriber.complete();
  };

  readonly #onError = (error: Error): void => {
    this.#ended = true;
    this.subscriber.error(transportFailure(error, this));
  };

  // A stream destroyed before its end (by its owner, or a reset socket) emits `close` without
  // `end`: that is a stream that stopped early, not a complete one.
  readonly #onClose = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    this.subscriber.error(closedBeforeEnd(this));
  };

  // A paused Node stream emits no `data`, and a socket under it is no longer read: the kernel's
  // buffers fill and the sender's writes block.
  #follow(paused: boolean): void {
    if (paused) this.#stream.pause?.();
    else {
      this.resumed();
      this.#stream.resume?.();
    }
  }

  /** The teardown: the listeners removed, and the stream destroyed unless it ended. */
  unsubscribe(): void {
    this.#unwatch?.();
    const stream = this.#stream;
    stream.removeListener('data', this.#onData);
    stream.removeListener('end', this.#onEnd);
    stream.removeListener('error', this.#onError);
    stream.removeListener('close', this.#onClose);
    if (!this.#ended && stream.destroyed !== true) stream.destroy();
  }
}
