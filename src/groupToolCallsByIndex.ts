import { Observable, OperatorFunction } from 'rxjs';
import { CompletionTracker } from './core/CompletionTracker.js';
import { ChatEvent } from './events.js';
import { fillPartial } from './internal/fillPartial.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

/**
 * Joins tool-call fragments into whole calls, by choice and index, and passes every event through.
 *
 * Each `tool-call-delta` is re-emitted with `call`: the call as far as it has arrived (for "Calling
 * get_weather..." in a UI; a prefix that parses may still be growing, so never execute it). When a
 * call closes, at its `tool-call-end` or else when its choice finishes, one `tool-call` event with the
 * complete `ToolCall` (arguments parsed) is emitted just before the event that closed it, so a
 * consumer reacting to `finish` already has every call. Interleaved calls stay separate. A call that
 * never got an id or a name, or whose arguments do not parse, is a `ProtocolError`.
 *
 * ```
 * events: --delta(0,'{"ci')--delta(1,'{}')--delta(0,'ty":1}')--finish--|
 * out:    --delta'-----------delta'---------delta'-------------(call0 call1 finish)--|
 * ```
 *
 * @example
 * ```ts
 * import { assembleChunks, groupToolCallsByIndex } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks(), groupToolCallsByIndex()).subscribe((event) => {
 *   if (event.type === 'tool-call') runTool(event.call.name, event.call.args);
 * });
 * ```
 *
 * @returns An operator from `ChatEvent`s to `ChatEvent`s with `tool-call` events added.
 */
export function groupToolCallsByIndex(): OperatorFunction<ChatEvent, ChatEvent> {
  return (source) =>
    new Observable<ChatEvent>((subscriber) => {
      const tracker = new CompletionTracker();
      subscribeLinked(source, subscriber, {
        next(event) {
          if (event.type === 'tool-call') return; // ours to emit; an upstream copy would be a duplicate
          const closed = tracker.apply(event);
          if (event.type === 'tool-call-delta') {
            subscriber.next({ ...event, call: tracker.progress(event.choice, event.index) });
            return;
          }
          for (const { choice, call } of closed) subscriber.next({ type: 'tool-call', choice, call });
          subscriber.next(event);
        },
        error: (error) => subscriber.error(fillPartial(error, tracker)),
      });
    });
}
