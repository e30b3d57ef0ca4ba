import { ProtocolError } from '../errors/errors.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../internal/json.js';
import {
  DEFAULT_MAX_MESSAGE_SIZE,
  SocketRoute,
  SocketRouter,
  SocketRouterOptions,
  parseSocketMessage,
  socketFrame,
} from './SocketRouter.js';
import { DEFAULT_MAX_ITEMS_PER_REPLY, ReplyItems } from './ReplyItems.js';

/** Options of {@link RealtimeSocketRouter} and `realtimeSocketReplies`. */
export interface RealtimeSocketRouterOptions extends SocketRouterOptions {
  /** The most responses open at once (the session's, and those out of band); more is a `ProtocolError`. Default 64. */
  readonly maxOpenReplies?: number;
  /** The most output items one reply routes by id (the MCP progress events name only their item). Default 4096. */
  readonly maxItemsPerReply?: number;
}

interface OpenReply {
  readonly reply: number;
  readonly responseId: string;
  readonly items: Set<string>;
}

/**
 * The pure core of `realtimeSocketReplies`: reads the server events of an OpenAI Realtime session
 * (`RealtimeServerEvent` of `openai` 7) and says which reply each belongs to, one reply per
 * `response.create`, for the `openai-realtime` dialect.
 *
 * A `response.created` begins a reply (its `response.id`); an event that names a response
 * (`response_id`, or the `response` object of `response.done`) goes to that reply, and
 * `response.done` closes it; an MCP progress event, which names only its item, goes to the reply
 * that announced the item. Replies may overlap (a response out of band, `conversation: "none"`,
 * beside the session's). Everything else is the session's, outside any reply: `session.*`,
 * `conversation.*`, `input_audio_buffer.*`, `output_audio_buffer.*`, `rate_limits.updated`, and
 * `error`, which names the client event it answers (`error.event_id`), not a response.
 *
 * @example
 * ```ts
 * import { RealtimeSocketRouter } from 'rxjs-llm-stream/core';
 *
 * const router = new RealtimeSocketRouter((route) => {
 *   if (route.type === 'outside') handleSessionEvent(route.frame);
 * });
 * socket.on('message', (data) => router.push(String(data)));
 * ```
 */
export class RealtimeSocketRouter implements SocketRouter {
  readonly #emit: (route: SocketRoute) => void;
  readonly #maxMessageSize: number;
  readonly #maxOpenReplies: number;
  readonly #byResponse = new Map<string, OpenReply>();
  readonly #items: ReplyItems<OpenReply>;
  #nextReply = 0;
  #messages = 0;

  constructor(emit: (route: SocketRoute) => void, options: RealtimeSocketRouterOptions = {}) {
    this.#emit = emit;
    this.#maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    this.#maxOpenReplies = options.maxOpenReplies ?? 64;
    this.#items = new ReplyItems(options.maxItemsPerReply ?? DEFAULT_MAX_ITEMS_PER_REPLY);
  }

  /** Reads one text message of the socket. Throws a `ProtocolError` for a message that is not a JSON object or is too large. */
  push(text: string): void {
    this.#route(parseSocketMessage(text, ++this.#messages, this.#maxMessageSize), text);
  }

  /** The socket is over: every open reply closes (its reader sees a reply that stopped before its `response.done`). */
  end(): void {
    for (const open of [...this.#byResponse.values()]) this.#close(open);
  }

  #route(payload: JsonObject, text: string): void {
    const type = payload['type'];
    const frame = socketFrame(payload, text);
    const response = payload['response'];
    const responseId = nonEmptyString(payload['response_id']) ?? (isJsonObject(response) ? nonEmptyString(response['id']) : undefined);
    let open = responseId === undefined ? undefined : this.#byResponse.get(responseId);
    if (open === undefined && type === 'response.created' && responseId !== undefined) open = this.#begin(responseId);
    if (open === undefined && typeof type === 'string' && type.startsWith('response.'))
      open = this.#items.find(nonEmptyString(payload['item_id']));
    if (open === undefined) return this.#emit({ type: 'outside', frame, streamId: undefined, responseId });
    if (type === 'response.output_item.added') this.#items.remember(open, payload);
    this.#emit({ type: 'frame', reply: open.reply, frame });
    if (type === 'response.done') this.#close(open);
  }

  #begin(responseId: string): OpenReply {
    if (this.#byResponse.size >= this.#maxOpenReplies) {
      throw new ProtocolError(`message ${this.#messages} begins a reply while ${this.#byResponse.size} are open, the most allowed`, {
        reason: 'too-large',
        position: { event: this.#messages },
      });
    }
    const open: OpenReply = { reply: this.#nextReply++, responseId, items: new Set() };
    this.#byResponse.set(responseId, open);
    this.#emit({ type: 'open', reply: open.reply, responseId, streamId: undefined });
    return open;
  }

  #close(open: OpenReply): void {
    if (this.#byResponse.get(open.responseId) !== open) return;
    this.#byResponse.delete(open.responseId);
    this.#items.forget(open);
    this.#emit({ type: 'close', reply: open.reply });
  }
}
