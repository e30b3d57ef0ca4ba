import { config, Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import type { ChatEvent } from '../types/events.js';
import type { ReplyEnd } from './InferenceRecord.js';

/**
 * What watches one subscription's reply: told each event, then once how it ended. What `end` returns,
 * if anything, is passed on as the reply's last event, before its completion or its error (never
 * after the subscriber left: nobody would read it).
 */
export interface ReplyWatcher {
  event(event: ChatEvent): void;
  end(end: ReplyEnd): ChatEvent | void;
}

/**
 * Passes the events on unchanged while a watcher (made per subscription, so `retry` starts afresh)
 * sees each one, and tells it once how the reply ended: completed, failed, or left by its subscriber.
 * What the watcher throws ends the stream with that error; when the stream is already failing, its own
 * error goes on and the watcher's is reported as RxJS reports an unhandled error.
 */
export function watchReply(start: () => ReplyWatcher): MonoTypeOperatorFunction<ChatEvent> {
  return (source) =>
    new Observable<ChatEvent>((subscriber) => {
      const watcher = start();
      let ended = false;
      const finish = (end: ReplyEnd): ChatEvent | void => {
        if (ended) return;
        ended = true;
        return watcher.end(end);
      };
      subscribeLinked(source, subscriber, {
        next: (event) => {
          watcher.event(event);
          subscriber.next(event);
        },
        error: (error) => {
          let last: ChatEvent | void = undefined;
          try {
            last = finish({ kind: 'error', error });
          } catch (thrown) {
            reportUnhandled(thrown);
          }
          if (last) subscriber.next(last);
          subscriber.error(error);
        },
        complete: () => {
          const last = finish({ kind: 'complete' });
          if (last) subscriber.next(last);
          subscriber.complete();
        },
      });
      return () => void finish({ kind: 'cancelled' });
    });
}

/** As RxJS reports an error nobody can receive: to `config.onUnhandledError`, else thrown on a timer. */
function reportUnhandled(error: unknown): void {
  const handler = config.onUnhandledError;
  if (handler !== null) handler(error);
  else
    setTimeout(() => {
      throw error;
    });
}
