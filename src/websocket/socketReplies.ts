import { Observable, OperatorFunction, Subscription } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { describeFailure } from '../io/transportFailure.js';
import { SocketRoute, SocketRouter } from './SocketRouter.js';
import { HeldBudget, ReplyFrames } from './ReplyFrames.js';
import { socketMessageText } from './socketMessageText.js';

/** Options of every socket splitter: what it holds for replies nobody reads yet. */
export interface SocketRepliesOptions {
  /**
   * The most characters of frames held, across the socket, for replies whose `frames` nobody has
   * subscribed to yet; a reply that would pass it errors with a `ProtocolError` (`too-large`) and
   * holds nothing more. Default 16 MiB.
   */
  readonly maxHeldChars?: number;
}

/** One reply of the socket: the frames of one response, for its dialect (`openai-responses`, `openai-realtime`). */
export interface SocketReply {
  readonly kind: 'reply';
  /** The response's id (its `response.created`); `undefined` for an `error` that came outside any reply. */
  readonly responseId: string | undefined;
  /** The lane (`stream_id`) the `response.create` named, if it named one. */
  readonly streamId: string | undefined;
  /**
   * The reply's frames, for `assembleChunks` with the socket's dialect: they complete after
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
 * The operator behind `responsesSocketReplies` and `realtimeSocketReplies`: the socket's messages
 * read by a router (the pure core that says which reply each belongs to), each reply's frames handed
 * to its `SocketReply`, the socket's failure made a typed error of every open reply and of the output.
 *
 * @example
 * ```ts
 * import { socketReplies } from './socketReplies.js';
 *
 * const replies = socketReplies((emit) => new ResponsesSocketRouter(emit), {});
 * ```
 */
export function socketReplies(
  makeRouter: (emit: (route: SocketRoute) => void) => SocketRouter,
  options: SocketRepliesOptions,
): OperatorFunction<unknown, SocketReply | SocketOutsideEvent> {
  return (source) =>
    new Observable<SocketReply | SocketOutsideEvent>((subscriber) => {
      const budget: HeldBudget = { held: 0, max: options.maxHeldChars ?? 16 * 1024 * 1024 };
      const replies = new Map<number, ReplyFrames>();
      let messages = 0;
      /** The output was unsubscribed: the replies being read keep the socket, as `groupBy`'s groups keep its source. */
      let outputGone = false;
      /** The socket ended, failed, or was let go: nothing more is read. */
      let stopped = false;
      /** The socket's subscription; one let go inside a synchronous source's subscribe call ends it as soon as it is added. */
      const upstream = new Subscription();

      const stop = (): void => {
        stopped = true;
        upstream.unsubscribe();
      };
      /** Lets the socket go once nobody listens: neither the output nor the reader of an open reply. */
      const release = (): void => {
        if (!outputGone || stopped) return;
        for (const frames of replies.values()) if (frames.isRead) return;
        const letGo = new StreamClosedEarlyError('the socket was let go while this reply was open', { reason: 'transport' });
        for (const frames of replies.values()) frames.error(letGo);
        replies.clear();
        stop();
      };
      const fail = (error: unknown): void => {
        if (stopped) return;
        stop();
        // The replies first: a reader that merges them gets its reply's error, with its partial, before the socket's.
        for (const frames of replies.values()) frames.error(error);
        replies.clear();
        subscriber.error(error);
      };
      const router = makeRouter((route) => {
        switch (route.type) {
          case 'open': {
            // A reply that begins once the output is gone has no one to take it.
            if (outputGone) return;
            const { responseId, streamId } = route;
            const described = responseId === undefined ? `reply ${route.reply}` : `response ${responseId}`;
            const frames = new ReplyFrames(budget, described, release);
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
            if (outputGone) return;
            return subscriber.next({ kind: 'outside', frame: route.frame, streamId: route.streamId, responseId: route.responseId });
        }
      });
      upstream.add(
        source.subscribe({
          next: (message) => {
            if (stopped) return;
            try {
              router.push(socketMessageText(message, ++messages));
            } catch (error) {
              fail(error);
            }
          },
          error: (cause: unknown) =>
            fail(
              isLlmStreamError(cause)
                ? cause
                : new StreamClosedEarlyError(`the socket failed after ${messages} messages: ${describeSocketFailure(cause)}`, {
                    reason: 'transport',
                    cause,
                  }),
            ),
          complete: () => {
            if (stopped) return;
            stopped = true;
            try {
              router.end();
            } catch (error) {
              return subscriber.error(error);
            }
            subscriber.complete();
          },
        }),
      );
      return () => {
        outputGone = true;
        release();
      };
    });
}
