import { Observable, OperatorFunction } from 'rxjs';
import { ChatEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { ErrorExposureOptions, clientErrorData } from '../errors/publicErrorData.js';

/** The shape NestJS's `@Sse()` handlers return (its `MessageEvent`), with `data` always a string. */
export interface SseMessageEvent {
  /** The event as JSON. */
  readonly data: string;
  /** The event's `type` (`content`, `tool-call`, `finish`, ...), sent as the SSE `event` field. */
  readonly type: string;
  /** A running number, sent as the SSE `id` (1, 2, 3, ...). */
  readonly id: string;
}

/** Options of {@link toMessageEvents}. */
export interface MessageEventsOptions extends ErrorExposureOptions {
  /** Told of the failure, with its own message, before the client gets the safe `error` event: log it here. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Maps `ChatEvent`s to the `{ data, type, id }` objects that a NestJS `@Sse()` handler returns, so a
 * server can re-emit a streamed reply to its own clients: `data` is the event as JSON (always a
 * string, never an object Nest would serialize its own way), `type` the event's type, `id` a running
 * number. Each value is a new object.
 *
 * A failure ends the stream with one last event, numbered after the others, instead of an error:
 * `type` `error`, `data` the error as `StreamErrorData` with nothing but codes (class name, reason,
 * position, a `ProviderError`'s status) and a fixed message (`publicErrorData`): the error's own
 * message (a provider's error page naming an internal host, a 401 naming the key's tail) stays on the
 * server, given to `onError` for the log; `exposeErrors: true` sends it. A client reading with
 * `assembleChunks({ dialect: 'chat-events' })` rebuilds it as the same class, and the operators after
 * it give it the completion so far as `partial`. Left to Nest, an error would instead become a JSON
 * 500 or an `error` event saying "Internal server error", depending on timing.
 *
 * ```
 * events:  --content--content--#
 * out:     --{1}------{2}------({3 error}|)
 * ```
 *
 * @example
 * ```ts
 * import { Controller, Sse, type MessageEvent } from '@nestjs/common';
 * import { Observable } from 'rxjs';
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, toMessageEvents } from 'rxjs-llm-stream';
 *
 * @Controller()
 * export class ChatController {
 *   @Sse('chat')
 *   chat(): Observable<MessageEvent> {
 *     return fromFetch(upstreamUrl, { selector: (r) => fromResponse(r) }).pipe(
 *       decodeUtf8(), sseFrames(), assembleChunks(),
 *       toMessageEvents({ onError: (err) => console.warn('upstream failed', err) }),
 *     );
 *   }
 * }
 * ```
 *
 * @param options `onError` (the failure, for the server's log), `exposeErrors`.
 * @returns An operator from `ChatEvent`s to message events, ending with an `error` event on failure.
 */
export function toMessageEvents(options: MessageEventsOptions = {}): OperatorFunction<ChatEvent, SseMessageEvent> {
  return (source) =>
    new Observable<SseMessageEvent>((subscriber) => {
      let count = 0;
      subscribeLinked(source, subscriber, {
        next: (event) => subscriber.next({ data: JSON.stringify(event), type: event.type, id: String(++count) }),
        error(error) {
          options.onError?.(error);
          subscriber.next({ data: JSON.stringify(clientErrorData(error, options)), type: 'error', id: String(++count) });
          subscriber.complete();
        },
      });
    });
}
