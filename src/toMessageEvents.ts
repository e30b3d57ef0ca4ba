import { Observable, OperatorFunction } from 'rxjs';
import { ChatEvent } from './events.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

/** The shape NestJS's `@Sse()` handlers return (its `MessageEvent`), with `data` always a string. */
export interface SseMessageEvent {
  /** The event as JSON. */
  readonly data: string;
  /** The event's `type` (`content`, `tool-call`, `finish`, ...), sent as the SSE `event` field. */
  readonly type: string;
  /** A running number, sent as the SSE `id` (1, 2, 3, ...). */
  readonly id: string;
}

/**
 * Maps `ChatEvent`s to the `{ data, type, id }` objects that a NestJS `@Sse()` handler returns, so a
 * server can re-emit a streamed reply to its own clients: `data` is the event as JSON (always a
 * string, never an object Nest would serialize its own way), `type` the event's type, `id` a running
 * number. Each value is a new object.
 *
 * @example
 * ```ts
 * import { Controller, Sse } from '@nestjs/common';
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, toMessageEvents } from 'rxjs-llm-stream';
 *
 * @Controller()
 * export class ChatController {
 *   @Sse('chat')
 *   chat() {
 *     return fromFetch(upstreamUrl, { selector: (r) => fromResponse(r) }).pipe(
 *       decodeUtf8(), sseFrames(), assembleChunks(), toMessageEvents(),
 *     );
 *   }
 * }
 * ```
 *
 * @returns An operator from `ChatEvent`s to message events.
 */
export function toMessageEvents(): OperatorFunction<ChatEvent, SseMessageEvent> {
  return (source) =>
    new Observable<SseMessageEvent>((subscriber) => {
      let count = 0;
      subscribeLinked(source, subscriber, {
        next: (event) => subscriber.next({ data: JSON.stringify(event), type: event.type, id: String(++count) }),
      });
    });
}
