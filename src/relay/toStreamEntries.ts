import { Observable, OperatorFunction } from 'rxjs';
import { StreamEntry } from './streamEntries.js';
import { streamErrorData } from '../errors/streamErrorData.js';
import { ChatEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Numbers `ChatEvent`s as the entries of a relayed stream (1, 2, 3, ...), for `sendSse` or a store:
 * each event an `event` entry, then an `end` entry when the source completes. A failure becomes an
 * `error` entry (its `StreamErrorData`, as `toMessageEvents` sends it) and the `end`, and the result
 * completes: log the error with `tap({ error })` before this operator.
 *
 * ```
 * events:  --content--content--#
 * entries: --{1}------{2}------({3 error}{4 end}|)
 * ```
 *
 * @example
 * ```ts
 * import { sendSse, toStreamEntries } from 'rxjs-llm-stream/relay';
 *
 * sendSse(events$.pipe(toStreamEntries()), response).subscribe();
 * ```
 *
 * @returns An operator from events to entries.
 */
export function toStreamEntries(): OperatorFunction<ChatEvent, StreamEntry> {
  return (source) =>
    new Observable<StreamEntry>((subscriber) => {
      let id = 0;
      subscribeLinked(source, subscriber, {
        next: (event) => subscriber.next({ id: ++id, kind: 'event', type: event.type, data: JSON.stringify(event) }),
        error(error) {
          subscriber.next({ id: ++id, kind: 'error', type: '', data: JSON.stringify(streamErrorData(error)) });
          subscriber.next({ id: ++id, kind: 'end', type: '', data: '' });
          subscriber.complete();
        },
        complete() {
          subscriber.next({ id: ++id, kind: 'end', type: '', data: '' });
          subscriber.complete();
        },
      });
    });
}
