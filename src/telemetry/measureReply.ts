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
  readonly onTimings: (timings: ReplyTimings) => void;
  /** The clock, in milliseconds; default `performance.now()`. Virtual-time tests pass the scheduler's (`() => scheduler.now()`). */
  readonly now?: () => number;
}

/**
 * The reply's timings without OpenTelemetry: passes the events on unchanged and, once the reply
 * ended, tells `onTimings` the time to the first chunk, the gaps between chunks (median and longest),
 * the duration and the output tokens per second (see {@link ReplyTimings}). The clock starts at the
 * subscription: put it after a cold source, whose subscription is the request.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, measureReply } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks({ dialect: 'openai-chat' }),
 *   measureReply({ onTimings: (t) => console.log(`first chunk after ${t.timeToFirstChunkMs} ms, longest gap ${t.gapMaxMs} ms`) }),
 *   finalizeCompletion(),
 * );
 * ```
 */
export function measureReply(options: MeasureReplyOptions): MonoTypeOperatorFunction<ChatEvent> {
  const now = options.now ?? (() => performance.now());
  return watchReply(() => {
    const clock = new ReplyClock(now());
    return {
      event: (event) => void clock.event(event, now),
      end: () => options.onTimings(clock.end(now())),
    };
  });
}
