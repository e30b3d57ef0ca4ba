import { Observable, SchedulerLike, Subscriber, asyncScheduler } from 'rxjs';
import { Demand } from './Demand.js';
import type { NodeReadableLike } from './NodeReadableLike.js';
import { watchIdle } from '../internal/idleWatch.js';
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
 * for every chunk, and `onIdle` is called when the body has been silent too long.
 */
function startReading(
  subscriber: Subscriber<Uint8Array>,
  reading: ChunkReading,
): { readonly read: BytesRead; chunk(bytes: Uint8Array): void; resumed(): void } {
  const read: BytesRead = { chunks: 0, bytes: 0 };
  // Silence while the reader's own demand holds the body back is not the body's silence: a timer
  // that fires then is noted, and started afresh when the demand resumes.
  let silentWhilePaused = false;
  const watch = (): (() => void) =>
    watchIdle(subscriber, reading.idleTimeout, reading.scheduler ?? asyncScheduler, () => {
      if (reading.demand?.paused === true) silentWhilePaused = true;
      else subscriber.error(idleBody(reading.idleTimeout, read));
    });
  let touch = watch();
  return {
    read,
    chunk(bytes) {
      read.chunks++;
      read.bytes += bytes.length;
      touch();
    },
    resumed() {
      if (!silentWhilePaused) return touch();
      silentWhilePaused = false;
      touch = watch();
    },
  };
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
    const progress = startReading(subscriber, reading);
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
          if (!subscriber.closed) subscriber.error(transportFailure(error, progress.read));
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
  return new Observable<Uint8Array>((subscriber) => {
    const encoder = new TextEncoder();
    const progress = startReading(subscriber, reading);
    let ended = false;
    const onData = (chunk: Uint8Array | string): void => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      progress.chunk(bytes);
      subscriber.next(bytes);
    };
    const onEnd = (): void => {
      ended = true;
      subscriber.complete();
    };
    const onError = (error: Error): void => {
      ended = true;
      subscriber.error(transportFailure(error, progress.read));
    };
    // A stream destroyed before its end (by its owner, or a reset socket) emits `close` without
    // `end`: that is a stream that stopped early, not a complete one.
    const onClose = (): void => {
      if (ended) return;
      ended = true;
      subscriber.error(closedBeforeEnd(progress.read));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    // A paused Node stream emits no `data`, and a socket under it is no longer read: the kernel's
    // buffers fill and the sender's writes block.
    const follow = (paused: boolean): void => {
      if (paused) stream.pause?.();
      else {
        progress.resumed();
        stream.resume?.();
      }
    };
    const unwatch = reading.demand?.watch(follow);
    if (reading.demand?.paused === true) follow(true);
    return () => {
      unwatch?.();
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
      if (!ended && stream.destroyed !== true) stream.destroy();
    };
  });
}
