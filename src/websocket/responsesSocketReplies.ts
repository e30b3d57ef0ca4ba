import { Observable, OperatorFunction } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { describeFailure } from '../io/transportFailure.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { ResponsesSocketRouter, ResponsesSocketRouterOptions } from './ResponsesSocketRouter.js';
import { HeldBudget, ReplyFrames } from './ReplyFrames.js';
import { SocketMessage, socketMessageText } from './socketMessageText.js';

/** Options of `responsesSocketReplies`. */
export interface ResponsesSocketRepliesOptions extends ResponsesSocketRouterOptions {
  /**
   * The most characters of frames held, across the socket, for replies whose `frames` nobody has
   * subscribed to yet; a reply that would pass it errors with a `ProtocolError` (`too-large`) and
   * holds nothing more. Default 16 MiB.
   */
  readonly maxHeldChars?: number;
}

/** One reply of the socket: the frames of one response, read as an `openai-responses` stream. */
export interface SocketReply {
  readonly kind: 'reply';
  /** The response's id (its `response.created`); `undefined` for an `error` that came outside any reply. */
  readonly responseId: string | undefined;
  /** The lane (`stream_id`) the `response.create` named, if it named one. */
  readonly streamId: string | undefined;
  /**
   * The reply's frames, for `assembleChunks({ dialect: 'openai-responses' })`: they complete after
   * the terminal event, or when the socket closes (the reply, cut, is then a `StreamClosedEarlyError`
   * with its partial), and error when the socket fails. Read once; frames that arrive before the
   * subscription are held (see `maxHeldChars`).
   */
  readonly frames: Observable<SseFrame>;
}

/** An event of the socket that belongs to no open reply (a `response.steer.pending` after its response completed). */
export interface SocketOutsideEvent {
  readonly kind: 'outside';
  readonly frame: SseFrame;
  readonly streamId: string | undefined;
  /** The response the event names, when it names one (a steering event's `previous_response_id`). */
  readonly responseId: string | undefined;
}

/** `closed with code 1006`, for the close event RxJS's `webSocket` errors with; a platform error's own message otherwise. */
function describeSocketFailure(cause: unknown): string {
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code !== 'number') return describeFailure(cause);
  const reason = (cause as { reason?: unknown }).reason;
  return `closed with code ${code}${typeof reason === 'string' && reason !== '' ? ` (${reason})` : ''}`;
}

/**
 * Splits a Responses API WebSocket (`wss://api.openai.com/v1/responses`) into one reply per
 * response: each a `SocketReply` whose `frames` the usual pipeline reads,
 * `assembleChunks({ dialect: 'openai-responses' })` and what follows, with the same guarantees as
 * over HTTP: a socket that closes mid-reply is a `StreamClosedEarlyError` with the reply's partial,
 * an `error` event a `ProviderError`.
 *
 * The source is the socket's messages (`SocketMessage`): RxJS's `webSocket` with a deserializer that
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
): OperatorFunction<SocketMessage, SocketReply | SocketOutsideEvent> {
  return (source) =>
    new Observable<SocketReply | SocketOutsideEvent>((subscriber) => {
      const budget: HeldBudget = { held: 0, max: options.maxHeldChars ?? 16 * 1024 * 1024 };
      const replies = new Map<number, ReplyFrames>();
      let messages = 0;
      const router = new ResponsesSocketRouter((route) => {
        switch (route.type) {
          case 'open': {
            const { responseId, streamId } = route;
            const frames = new ReplyFrames(budget, responseId === undefined ? `reply ${route.reply}` : `response ${responseId}`);
            replies.set(route.reply, frames);
            subscriber.next({ kind: 'reply', responseId, streamId, frames: frames.frames });
            return;
          }
          case 'frame':
            return replies.get(route.reply)?.next(route.frame);
          case 'close': {
            const frames = replies.get(route.reply);
            replies.delete(route.reply);
            return frames?.complete();
          }
          case 'outside':
            return subscriber.next({ kind: 'outside', frame: route.frame, streamId: route.streamId, responseId: route.responseId });
        }
      }, options);
      const failAll = (error: unknown): void => {
        // The replies first: a reader that merges them gets its reply's error, with its partial, before the socket's.
        for (const frames of replies.values()) frames.error(error);
        replies.clear();
        subscriber.error(error);
      };
      subscribeLinked(source, subscriber, {
        next: (message) => router.push(socketMessageText(message, ++messages)),
        error: (cause) =>
          failAll(
            isLlmStreamError(cause)
              ? cause
              : new StreamClosedEarlyError(`the socket failed after ${messages} messages: ${describeSocketFailure(cause)}`, {
                  reason: 'transport',
                  cause,
                }),
          ),
        complete: () => {
          router.end();
          subscriber.complete();
        },
      });
      return () => {
        for (const frames of replies.values()) {
          frames.error(new StreamClosedEarlyError('the socket was let go while this reply was open', { reason: 'transport' }));
        }
        replies.clear();
      };
    });
}
