import { MonoTypeOperatorFunction, Observable } from 'rxjs';
import { StreamRecording } from './StreamRecording.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/** Options of `recordStream`. */
export interface RecordStreamOptions {
  /**
   * The clock arrival times are read from, in milliseconds (default `performance.now`). Only
   * differences matter. In marble tests, `() => testScheduler.now()`.
   */
  readonly clock?: () => number;
}

/**
 * Passes the bytes of a stream through unchanged and keeps a copy of each chunk, with its arrival
 * time (milliseconds since the first chunk), in `recording`: the raw pieces, to save with
 * `serializeRecording` and replay with `replayRecording` when a reply went wrong.
 *
 * Place it first, on the bytes, so that the recording holds exactly what the server sent, before
 * any layer could refuse it. Each chunk is copied, since a source may reuse its buffer. Completion,
 * errors and unsubscription pass through; what arrived before them stays recorded, so a cut-off
 * reply is recorded up to its cut. Each subscription appends to the same recording with its own
 * clock origin: give every request its own `StreamRecording` (for example inside `defer`), or a
 * retried request adds a second copy after the first.
 *
 * Intuition: `tap` that writes into a flight recorder.
 *
 * ```
 * bytes:     a--b-----c|
 * out:       a--b-----c|
 * recording: {t:0,a} {t:3,b} {t:9,c}
 * ```
 *
 * @example
 * ```ts
 * import { StreamRecording, recordStream, serializeRecording } from 'rxjs-llm-stream';
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const recording = new StreamRecording({ source: url });
 * const completion$ = bytes$.pipe(
 *   recordStream(recording),
 *   decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion(),
 * );
 * completion$.subscribe({ error: () => saveForLater(serializeRecording(recording)) });
 * ```
 *
 * @param recording Where the chunks are appended.
 * @param options `clock`.
 * @returns An operator that passes the bytes through.
 */
export function recordStream(recording: StreamRecording, options: RecordStreamOptions = {}): MonoTypeOperatorFunction<Uint8Array> {
  const clock = options.clock ?? (() => performance.now());
  return (source) =>
    new Observable<Uint8Array>((subscriber) => {
      // Per subscription: times count from this subscription's first chunk.
      let origin: number | undefined;
      subscribeLinked(source, subscriber, {
        next(chunk) {
          const now = clock();
          origin ??= now;
          // Never below 0, should a caller's clock step backwards.
          recording.append(chunk, Math.max(0, now - origin));
          subscriber.next(chunk);
        },
      });
    });
}
