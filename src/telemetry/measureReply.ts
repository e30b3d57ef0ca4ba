import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ChatEvent } from '../types/events.js';
import { ReplyClock, type ReplyTimings } from './ReplyClock.js';
import { watchReply } from './watchReply.js';

/**
 * Options of {@link measureReply}.
 *
 * @example
 * ```ts
 * import type { MeasureReplyOptions } from 'rxjs-llm-stream';
 *
 * const options: MeasureReplyOptions = { onTimings: (timings) => console.log(timings.timeToFirstChunkMs) };
 * ```
 */
export interface MeasureReplyOptions {
  /** Told the reply's figures once it ended: completed, failed (a cut reply measures what arrived) or unsubscribed. */
  readonly onTimings?: (timings: ReplyTimings) => void;
  /** The clock, in milliseconds; default `performance.now()`. Virtual-time tests pass the scheduler's (`() => scheduler.now()`). */
  readonly now?: () => number;
}

/**
 * The reply's timings without OpenTelemetry: the time to the first chunk, the gaps between chunks
 * (median and longest), the duration and the output tokens per second (see {@link ReplyTimings}),
 * on the reply itself. The events pass on unchanged; at the end of the reply, before its completion
 * (or before its error, with what had arrived), one `reply-timings` event follows them, which
 * `finalizeCompletion` puts on the `Completion` (and on the `partial` of the error) as `replyTimings`.
 * `onTimings`, if given, is told the same figures, also when the subscriber leaves (then no event
 * follows: nobody would read it). The clock starts at the subscription: put it after a cold source,
 * whose subscription is the request.
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, measureReply } from 'rxjs-llm-stream';
 *
 * const completion = await lastValueFrom(
 *   bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), measureReply(), finalizeCompletion()),
 * );
 * console.log(`first chunk after ${completion.replyTimings?.timeToFirstChunkMs} ms, longest gap ${completion.replyTimings?.gapMaxMs} ms`);
 * ```
 */
export function measureReply(options: MeasureReplyOptions = {}): MonoTypeOperatorFunction<ChatEvent> {
  const now = options.now ?? (() => performance.now());
  return watchReply(() => {
    // Per subscription: a `retry` is a reply of its own.
    const clock = new ReplyClock(now());
    return {
      event: (event) => void clock.event(event, now),
      end: (end) => {
        const timings = clock.end(now());
        options.onTimings?.(timings);
        return end.kind === 'cancelled' ? undefined : { type: 'reply-timings', timings };
      },
    };
  });
}
