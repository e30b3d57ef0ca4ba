import {
  MonoTypeOperatorFunction,
  Observable,
  OperatorFunction,
  SchedulerLike,
  Subscription,
  animationFrameScheduler,
  asyncScheduler,
} from 'rxjs';
import type { ChatEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { FrameBatch } from './FrameBatch.js';
import { LatestValue } from './LatestValue.js';

/**
 * Options of {@link batchEventsPerFrame} and {@link latestPerFrame}: when a frame comes.
 *
 * @example
 * ```ts
 * import { asyncScheduler } from 'rxjs';
 * import { latestPerFrame, type PerFrameOptions } from 'rxjs-llm-stream';
 *
 * // On a server-rendered page or in a worker: ten updates a second at most.
 * const options: PerFrameOptions = { scheduler: asyncScheduler, delay: 100 };
 * snapshots$.pipe(latestPerFrame(options)).subscribe((snapshot) => (view.text = snapshot.content ?? ''));
 * ```
 */
export interface PerFrameOptions {
  /**
   * The scheduler a frame is asked of. Default: RxJS's `animationFrameScheduler` where
   * `requestAnimationFrame` exists (a browser's window), else `asyncScheduler` (Node, a worker
   * without frames), checked at each subscription.
   */
  readonly scheduler?: SchedulerLike;
  /**
   * Milliseconds from the first value after a frame to the next frame, passed to the scheduler.
   * Default 0 (the next animation frame), or 16 (about 60 a second) on the `asyncScheduler` chosen
   * where there is no `requestAnimationFrame`. On `animationFrameScheduler` a delay above 0 is a timer, not a frame.
   */
  readonly delay?: number;
}

/** Where there are no animation frames, the fallback's frame: about 60 a second, as a screen would. */
const FALLBACK_FRAME_MS = 16;

/**
 * Paces a screen's updates to its animation frames: the events that arrived between two frames go out
 * as one batch, in the frame, the deltas of each channel joined (a choice's content, reasoning and
 * refusal; a tool call's arguments: see `FrameBatch`). Nothing is dropped and no text moves across
 * another event. When the source completes or errors, what is pending goes out at once, before the
 * completion or the error; on unsubscribe, the frame asked for is cancelled.
 *
 * A reply streaming a thousand deltas a second, each rendered, costs a thousand renders; a screen
 * shows sixty. Frames come from `animationFrameScheduler` in a browser, else every 16 ms (see
 * `PerFrameOptions`); a hidden tab gets no frames, so its batches wait until it is shown (or the end).
 *
 * ```
 * events: -a-b-c---d----|
 * frames: -----x------x----
 * out:    -----[abc]--[d]|
 * ```
 *
 * @example
 * ```ts
 * import { assembleChunks, batchEventsPerFrame, decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), batchEventsPerFrame()).subscribe((events) => {
 *   for (const event of events) if (event.type === 'content') answer.append(event.text);
 * });
 * ```
 *
 * @param options The scheduler and delay of a frame (see `PerFrameOptions`).
 * @returns An operator from `ChatEvent`s to one batch of them per frame that had any.
 */
export function batchEventsPerFrame(options: PerFrameOptions = {}): OperatorFunction<ChatEvent, readonly ChatEvent[]> {
  return (source) => paced(source, options, () => new FrameBatch());
}

/**
 * Paces a screen's updates to its animation frames, keeping of what arrived between two frames only
 * the latest: for values that each hold all before them, such as the `CompletionSnapshot`s of
 * `scanCompletion` (the latest snapshot has every delta of the ones it replaces). When the source
 * completes or errors, the latest goes out at once, before the completion or the error; on
 * unsubscribe, the frame asked for is cancelled. Frames as `batchEventsPerFrame` has them.
 *
 * ```
 * snapshots: -a-b-c---d----|
 * frames:    -----x------x----
 * out:       -----c------d-|
 * ```
 *
 * @example
 * ```ts
 * import { signal } from '@angular/core';
 * import { assembleChunks, decodeUtf8, latestPerFrame, scanCompletion, sseFrames } from 'rxjs-llm-stream';
 *
 * const text = signal('');
 * bytes$
 *   .pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanCompletion(), latestPerFrame())
 *   .subscribe((snapshot) => text.set(snapshot.content ?? ''));
 * ```
 *
 * @param options The scheduler and delay of a frame (see `PerFrameOptions`).
 * @returns An operator that emits the latest value of each frame that had one.
 */
export function latestPerFrame<T>(options: PerFrameOptions = {}): MonoTypeOperatorFunction<T> {
  return (source) => paced(source, options, () => new LatestValue<T>());
}

/** What a frame gathers: the values since the last frame, and what the frame emits of them. */
interface FrameGatherer<T, R> {
  readonly isEmpty: boolean;
  add(value: T): void;
  take(): R;
}

function paced<T, R>(source: Observable<T>, options: PerFrameOptions, gatherer: () => FrameGatherer<T, R>): Observable<R> {
  return new Observable<R>((subscriber) => {
    // Chosen at subscription: a page may gain or lose its frames between two subscriptions (tests do).
    const hasFrames = typeof requestAnimationFrame === 'function';
    const scheduler = options.scheduler ?? (hasFrames ? animationFrameScheduler : asyncScheduler);
    const delay = options.delay ?? (options.scheduler === undefined && !hasFrames ? FALLBACK_FRAME_MS : 0);
    const pending = gatherer();
    let frame: Subscription | undefined;
    const emitPending = (): void => {
      frame = undefined;
      if (!pending.isEmpty) subscriber.next(pending.take());
    };
    const cancelFrame = (): void => {
      frame?.unsubscribe();
      frame = undefined;
    };
    subscriber.add(() => {
      cancelFrame();
      pending.take(); // nobody will see it: let it go with the subscription
    });
    subscribeLinked(source, subscriber, {
      next: (value) => {
        pending.add(value);
        frame ??= scheduler.schedule(emitPending, delay);
      },
      error: (error) => {
        cancelFrame();
        emitPending();
        subscriber.error(error);
      },
      complete: () => {
        cancelFrame();
        emitPending();
        subscriber.complete();
      },
    });
  });
}
