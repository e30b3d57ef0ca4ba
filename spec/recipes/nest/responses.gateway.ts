import { Controller, Inject, Injectable, Query, Sse, type MessageEvent, type OnModuleDestroy } from '@nestjs/common';
import { Observable, defer, filter, mergeMap, share, take } from 'rxjs';
import WebSocket from 'ws';
import {
  assembleChunks,
  groupToolCallsByIndex,
  responsesSocketReplies,
  toMessageEvents,
  type ChatEvent,
  type SocketMessage,
  type SocketOutsideEvent,
  type SocketReply,
} from 'rxjs-llm-stream';

/** Where the gateway connects, and with which key: OpenAI's (`wss://api.openai.com/v1/responses`), or a server that speaks it. */
export interface ResponsesSocketConfig {
  readonly url: string;
  readonly apiKey: string;
}
export const RESPONSES_SOCKET = Symbol('ResponsesSocketConfig');

/** A `ws` socket's messages (text as a `Buffer`, which the splitter reads as UTF-8); a close completes, an unclean one errors. */
export function socketMessages(socket: WebSocket): Observable<SocketMessage> {
  return new Observable<SocketMessage>((subscriber) => {
    const onMessage = (data: Buffer): void => subscriber.next({ data });
    const onClose = (code: number): void =>
      code === 1000 || code === 1005 ? subscriber.complete() : subscriber.error(new Error(`the socket closed with code ${code}`));
    const onError = (error: Error): void => subscriber.error(error);
    socket.on('message', onMessage).on('close', onClose).on('error', onError);
    return () => socket.off('message', onMessage).off('close', onClose).off('error', onError);
  });
}

/**
 * One socket to the Responses API for the whole server, opened at the first question: each question
 * is a `response.create` on a lane of its own (`stream_id`), so replies stream side by side on it,
 * and `responsesSocketReplies` gives each question its own reply.
 */
@Injectable()
export class ResponsesGateway implements OnModuleDestroy {
  #socket: WebSocket | undefined;
  #replies: Observable<SocketReply | SocketOutsideEvent> | undefined;
  #lanes = 0;

  constructor(@Inject(RESPONSES_SOCKET) private readonly config: ResponsesSocketConfig) {}

  /** The reply to `input`, as `ChatEvent`s: a `ProviderError` if the request is refused, a `StreamClosedEarlyError` if the socket goes. */
  reply(input: string): Observable<ChatEvent> {
    return defer(() => {
      const { socket, replies } = this.#connection();
      const streamId = `lane-${++this.#lanes}`;
      const events = replies.pipe(
        filter((item): item is SocketReply => item.kind === 'reply' && item.streamId === streamId),
        take(1),
        mergeMap((reply) => reply.frames.pipe(assembleChunks({ dialect: 'openai-responses' }), groupToolCallsByIndex())),
      );
      // Sent once the reply is listened for, so that nothing of it comes before.
      const request = JSON.stringify({ type: 'response.create', model: 'gpt-5.4', input, stream_id: streamId });
      return new Observable<ChatEvent>((subscriber) => {
        const subscription = events.subscribe(subscriber);
        if (socket.readyState === WebSocket.OPEN) socket.send(request);
        else socket.once('open', () => socket.send(request));
        return subscription;
      });
    });
  }

  onModuleDestroy(): void {
    this.#socket?.close(1000);
  }

  #connection(): { socket: WebSocket; replies: Observable<SocketReply | SocketOutsideEvent> } {
    if (this.#socket === undefined || this.#replies === undefined || this.#socket.readyState >= WebSocket.CLOSING) {
      // The key goes in the upgrade request's header, to this URL only: ws follows no redirect.
      const socket = new WebSocket(this.config.url, { headers: { Authorization: `Bearer ${this.config.apiKey}` } });
      // With no question listening, a failure only closes the socket: the next question opens another.
      socket.on('error', () => undefined);
      this.#socket = socket;
      this.#replies = socketMessages(socket).pipe(responsesSocketReplies(), share());
    }
    return { socket: this.#socket, replies: this.#replies };
  }
}

@Controller('responses')
export class ResponsesController {
  constructor(private readonly gateway: ResponsesGateway) {}

  /** `GET /responses?q=...`: the reply as server-sent events, one per ChatEvent; a failure as one last `error` event. */
  @Sse()
  reply(@Query('q') question: string): Observable<MessageEvent> {
    return this.gateway.reply(question).pipe(toMessageEvents());
  }
}
