import { MonoTypeOperatorFunction, Observable, SchedulerLike, Subscription, asyncScheduler } from 'rxjs';
import type { ChatEvent, ContentEvent, ReasoningEvent, RefusalEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { TextSmoother, type TextSmootherOptions } from './TextSmoother.js';

/**
 * Options of {@link smoothText}.
 *
 * @example
 * ```ts
 * import { smoothText, type SmoothTextOptions } from 'rxjs-llm-stream';
 *
 * const options: SmoothTextOptions = { chunking: 'line', delay: 40 };
 * events$.pipe(smoothText(options)).subscribe(render);
 * ```
 */
export interface SmoothTextOptions extends TextSmootherOptions {
  /** Milliseconds between two units. Default 10. */
  readonly delay?: number;
  /** The scheduler the delay is waited on. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Is the page hidden? While it is, the delay is skipped and all that is held goes at once: a hidden
   * tab's timers are slowed to one a second or less, and the reply would fall behind while nobody
   * watches it. Default: `document.visibilityState === 'hidden'` where there is a `document`, else never.
   */
  readonly isHidden?: () => boolean;
}

/** The events whose text is smoothed. */
type TextEvent = ContentEvent | ReasoningEvent | RefusalEvent;

const DEFAULT_DELAY_MS = 10;

function documentIsHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden';
}

/**
 * Smooths a reply's text into words (or lines), one per delay: a burst of tokens reads as steady
 * typing, and a word is never shown cut in two. The text of `content`, `reasoning` and `refusal`
 * events is held (`TextSmoother`) and released a unit at a time, the first at once, then one every
 * `delay` ms; every other event passes in its place, after the text held before it, which goes out at
 * once; text of another channel (content after reasoning, another choice) does the same. At the end
 * and on an error, all that is held goes out at once, before the completion or the error; while the
 * page is hidden, at once too. Text is never dropped or reordered. A released `reasoning` unit carries
 * the token count of the latest reasoning event that had one.
 *
 * ```
 * events: a------------------f--|      a = content 'The sky is blue', f = finish
 * out:    T---s---i----------(bf)|     T = 'The ', s = 'sky ', i = 'is ', b = 'blue'
 * ```
 *
 * @example
 * ```ts
 * import { assembleChunks, decodeUtf8, smoothText, sseFrames } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), smoothText({ delay: 20 })).subscribe((event) => {
 *   if (event.type === 'content') answer.append(event.text);
 * });
 * ```
 *
 * @param options The unit (`chunking`, `locale`), the pace (`delay`, `scheduler`), the page's
 *   visibility (`isHidden`) and the cap on what is held (`maxPendingChars`).
 * @returns An operator over `ChatEvent`s whose text comes a unit at a time.
 */
export function smoothText(options: SmoothTextOptions = {}): MonoTypeOperatorFunction<ChatEvent> {
  const delay = options.delay ?? DEFAULT_DELAY_MS;
  const isHidden = options.isHidden ?? documentIsHidden;
  return (source) =>
    new Observable<ChatEvent>((subscriber) => {
      const scheduler = options.scheduler ?? asyncScheduler;
      const smoother = new TextSmoother(options);
      /** The channel held: what each released unit is an event of. */
      let channel: TextEvent | undefined;
      /** The wait after a unit was released; while it runs, text that arrives waits its turn. */
      let pace: Subscription | undefined;

      const emit = (text: string): void => {
        if (text !== '') subscriber.next({ ...channel!, text });
      };
      const flush = (): void => {
        pace?.unsubscribe();
        pace = undefined;
        emit(smoother.rest());
      };
      const release = (): void => {
        pace = undefined;
        if (isHidden()) return flush();
        const unit = smoother.next();
        if (unit === undefined) return;
        emit(unit);
        pace = scheduler.schedule(releaseLater, delay);
      };
      // A release the scheduler runs has no source call to route a throw (of `isHidden`) to the error channel.
      const releaseLater = (): void => {
        try {
          release();
        } catch (error) {
          flush(); // the text held is not lost with the stream
          subscriber.error(error);
        }
      };

      subscriber.add(() => {
        pace?.unsubscribe();
        smoother.rest(); // let the text go with the subscription
      });
      subscribeLinked(source, subscriber, {
        next: (event) => {
          if (event.type !== 'content' && event.type !== 'reasoning' && event.type !== 'refusal') {
            flush();
            subscriber.next(event);
            return;
          }
          if (channel === undefined || channel.type !== event.type || channel.choice !== event.choice) {
            flush();
            channel = event;
          } else if (event.type === 'reasoning' && event.reasoningTokens !== undefined) {
            channel = { ...(channel as ReasoningEvent), reasoningTokens: event.reasoningTokens };
          }
          smoother.push(event.text);
          if (pace === undefined) release();
        },
        error: (error) => {
          flush();
          subscriber.error(error);
        },
        complete: () => {
          flush();
          subscriber.complete();
        },
      });
    });
}
