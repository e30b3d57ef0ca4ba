import { OperatorFunction } from 'rxjs';
import { ResponsesSocketRouter, ResponsesSocketRouterOptions } from './ResponsesSocketRouter.js';
import { SocketOutsideEvent, SocketReply, SocketRepliesOptions, socketReplies } from './socketReplies.js';

export type { SocketOutsideEvent, SocketReply } from './socketReplies.js';

/** Options of `responsesSocketReplies`. */
export interface ResponsesSocketRepliesOptions extends ResponsesSocketRouterOptions, SocketRepliesOptions {}

/**
 * Splits a Responses API WebSocket (`wss://api.openai.com/v1/responses`) into one reply per
 * response: each a `SocketReply` whose `frames` the usual pipeline reads,
 * `assembleChunks({ dialect: 'openai-responses' })` and what follows, with the same guarantees as
 * over HTTP: a socket that closes mid-reply is a `StreamClosedEarlyError` with the reply's partial,
 * an `error` event a `ProviderError`.
 *
 * The source is the socket's messages (`SocketMessage`, checked as they come: the input is typed
 * `unknown`, as RxJS's `webSocket<unknown>` gives it): RxJS's `webSocket` with a deserializer that
 * keeps the text (`(event) => event.data`, or the event itself), or any socket wrapped as an
 * `Observable`. The socket may carry several responses in turn and, on lanes (`stream_id`), at once:
 * `ResponsesSocketRouter` says which event goes where, steering events (`response.steer.*`) to the
 * response they name. An event that belongs to no open reply is emitted as a `SocketOutsideEvent`,
 * never dropped. A message that is not a JSON object, or too large, errors every open reply and the
 * output with a `ProtocolError`; the socket's own failure (RxJS's `webSocket` errors with the close
 * event of an unclean close) is a `StreamClosedEarlyError` (`transport`, the platform's error as
 * `cause`). Unsubscribing lets the socket go; a reply still read then errors the same way.
 *
 * ```
 * messages: -c1-t1-c2-t1-t2-d1-t2-d2-|     c created, t text, d completed (of response 1 or 2)
 * output:   -R1----R2------------------|   R1.frames: -c1-t1----t1-d1|   R2.frames: -c2-t2-t2-d2|
 * ```
 *
 * @example
 * ```ts
 * import { mergeMap } from 'rxjs';
 * import { webSocket } from 'rxjs/webSocket';
 * import { responsesSocketReplies, assembleChunks, groupToolCallsByIndex, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const socket = webSocket<unknown>({ url, deserializer: (event) => event.data as string });
 * socket.pipe(
 *   responsesSocketReplies(),
 *   mergeMap((reply) =>
 *     reply.kind === 'reply'
 *       ? reply.frames.pipe(assembleChunks({ dialect: 'openai-responses' }), groupToolCallsByIndex(), finalizeCompletion())
 *       : [],
 *   ),
 * ).subscribe((completion) => render(completion.content ?? ''));
 * socket.next({ type: 'response.create', model: 'gpt-5', input: 'Hello' });
 * ```
 *
 * @param options The caps: `maxMessageSize`, `maxOpenReplies`, `maxItemsPerReply`, `maxHeldChars`.
 * @returns An operator from the socket's messages to its replies (and the events outside them).
 */
export function responsesSocketReplies(
  options: ResponsesSocketRepliesOptions = {},
): OperatorFunction<unknown, SocketReply | SocketOutsideEvent> {
  return socketReplies((emit) => new ResponsesSocketRouter(emit, options), options);
}
