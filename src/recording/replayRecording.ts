import { Observable, SchedulerAction, SchedulerLike, asyncScheduler } from 'rxjs';
import { StreamRecording } from './StreamRecording.js';
import type { RecordedChunk } from './recordedChunks.js';
import { ResponseCheckOptions, checkedBody } from '../io/checkedBody.js';

/** Options of {@link replayRecording}. */
export interface ReplayRecordingOptions extends ResponseCheckOptions {
  /**
   * `'none'` (the default): every chunk at once, synchronously. `'original'`: the first chunk at
   * once, then each after the gap it had when it was recorded.
   */
  readonly timing?: 'original' | 'none';
  /**
   * Cut the bytes into pieces of this size instead of the recorded chunks. With original timing a
   * piece comes when its last byte had arrived.
   */
  readonly chunkSize?: number;
  /** Where the gaps are waited out: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
}

/** The pieces to emit and when, in ms since the first recorded chunk. */
function piecesOf(recording: StreamRecording, chunkSize: number | undefined): RecordedChunk[] {
  const chunks = recording.chunks;
  const start = chunks[0]?.t ?? 0;
  if (chunkSize === undefined) return chunks.map((chunk) => ({ t: chunk.t - start, bytes: chunk.bytes }));
  const all = recording.bytes();
  const pieces: RecordedChunk[] = [];
  let chunkIndex = 0;
  let chunkEnd = chunks[0]?.bytes.length ?? 0; // offset just after the current recorded chunk
  for (let offset = 0; offset < all.length; offset += chunkSize) {
    const end = Math.min(offset + chunkSize, all.length);
    // The recorded chunk that holds the piece's last byte, found by walking forward: linear overall.
    while (chunkEnd < end) chunkEnd += chunks[++chunkIndex]!.bytes.length;
    pieces.push({ t: chunks[chunkIndex]!.t - start, bytes: all.subarray(offset, end) });
  }
  return pieces;
}

/**
 * Plays a recording back as the `Observable<Uint8Array>` it came from, to run it through the
 * pipeline again: in a test, to reproduce a user's report, in a demo.
 *
 * By default the recorded chunks come synchronously, one after another. With `timing: 'original'`
 * the first comes at once and each next after the gap it had (gaps that run backwards, from a
 * hand-edited file, count as 0), on the `scheduler`; each is due at its recorded time counted from
 * the start of the replay, so timer rounding and late timers do not add up. `chunkSize` cuts the
 * bytes anew. The chunks
 * emitted are the recording's own (or views of them): do not modify them. Unsubscribing stops the
 * replay and cancels its timer.
 *
 * ```
 * recorded:  t=0 "da"  t=3 "ta: x\n\n"          (timing: 'original')
 * replay:    a--b|
 * ```
 *
 * @example
 * ```ts
 * import { parseRecording, replayRecording, decodeUtf8, sseFrames, assembleChunks, scanCompletion } from 'rxjs-llm-stream';
 *
 * replayRecording(parseRecording(text), { timing: 'original' })
 *   .pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanCompletion())
 *   .subscribe(render);
 * ```
 *
 * @param recording The recording to play.
 * @param options `timing`, `chunkSize`, `scheduler`, `contentTypes`.
 * @returns The recorded bytes.
 */
export function replayRecording(recording: StreamRecording, options: ReplayRecordingOptions = {}): Observable<Uint8Array> {
  const timing = options.timing ?? 'none';
  const { chunkSize } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  if (timing !== 'none' && timing !== 'original')
    throw new TypeError(`replayRecording: timing must be 'original' or 'none', got ${String(timing)}`);
  if (chunkSize !== undefined && (!Number.isInteger(chunkSize) || chunkSize < 1)) {
    throw new TypeError(`replayRecording: chunkSize must be a whole number >= 1, got ${String(chunkSize)}`);
  }
  const bytes$ = new Observable<Uint8Array>((subscriber) => {
    const pieces = piecesOf(recording, chunkSize);
    if (timing === 'none') {
      // Checked at each step, so that `take(n)` downstream stops a synchronous replay.
      for (const piece of pieces) {
        if (subscriber.closed) return;
        subscriber.next(piece.bytes);
      }
      subscriber.complete();
      return;
    }
    let index = 0;
    // Each piece is due at its time on the recorded timeline, measured from the start of the replay,
    // not from the previous timer: timers round (Node truncates fractions of a millisecond) and run
    // late under load, and chaining gap after gap would add up those errors over a long stream.
    const startedAt = scheduler.now();
    const emitDue = function (this: SchedulerAction<unknown>): void {
      const elapsed = scheduler.now() - startedAt;
      // Every piece due by now goes out, in order (one whose time runs backwards is due at once).
      while (index < pieces.length && pieces[index]!.t <= elapsed && !subscriber.closed) subscriber.next(pieces[index++]!.bytes);
      if (subscriber.closed) return;
      if (index === pieces.length) {
        subscriber.complete();
        return;
      }
      this.schedule(undefined, pieces[index]!.t - elapsed);
    };
    return scheduler.schedule(emitDue, Math.max(0, pieces[0]?.t ?? 0));
  });
  if (recording.status === undefined) return bytes$;
  return checkedBody({ status: recording.status, contentType: recording.contentType }, bytes$, options);
}
