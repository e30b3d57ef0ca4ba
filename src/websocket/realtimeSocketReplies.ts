import { OperatorFunction } from 'rxjs';
import { RealtimeSocketRouter, RealtimeSocketRouterOptions } from './RealtimeSocketRouter.js';
import { SocketOutsideEvent, SocketReply, SocketRepliesOptions, socketReplies } from './socketReplies.js';

/** Options of `realtimeSocketReplies`. */
export interface RealtimeSocketRepliesOptions extends RealtimeSocketRouterOptions, SocketRepliesOptions {}

/**
 * Splits an OpenAI Realtime session's socket (`wss://api.openai.com/v1/realtime`) into one reply per
 * `response.create`, each a `SocketReply` whose `frames` `assembleChunks({ dialect: 'openai-realtime' })`
 * reads: text, tool calls, the transcript and the audio of a spoken reply, into the same `ChatEvent`s
 * and `Completion` as any other provider's, so that a voice app's tool calls go through the same checks.
 * The session's own events (`session.*`, `conversation.*`, `input_audio_buffer.*`, `error`, ...) are
 * emitted as `SocketOutsideEvent`s: managing the session is the app's. `RealtimeSocketRouter` says
 * which event goes where; the guarantees are `responsesSocketReplies`' (a socket closed mid-reply is a
 * `StreamClosedEarlyError` with the reply's partial, the socket's failure a `transport` one).
 *
 * @example
 * ```ts
 * import { filter, mergeMap } from 'rxjs';
 * import { webSocket } from 'rxjs/webSocket';
 * import { realtimeSocketReplies, assembleChunks, groupToolCallsByIndex, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * // In a browser, with an ephemeral key the server made (`client_secrets`): never the API key.
 * const protocol = ['realtime', `openai-insecure-api-key.${ephemeralKey}`];
 * const session = webSocket<unknown>({ url, protocol, deserializer: (event) => event.data as string });
 * session.pipe(
 *   realtimeSocketReplies(),
 *   filter((item) => item.kind === 'reply'),
 *   mergeMap((reply) => reply.frames.pipe(assembleChunks({ dialect: 'openai-realtime' }), groupToolCallsByIndex(), finalizeCompletion())),
 * ).subscribe((completion) => completion.toolCalls.forEach(runTool));
 * ```
 *
 * @param options The caps: `maxMessageSize`, `maxOpenReplies`, `maxItemsPerReply`, `maxHeldChars`.
 * @returns An operator from the session's messages to its replies (and its own events).
 */
export function realtimeSocketReplies(
  options: RealtimeSocketRepliesOptions = {},
): OperatorFunction<unknown, SocketReply | SocketOutsideEvent> {
  return socketReplies((emit) => new RealtimeSocketRouter(emit, options), options);
}
