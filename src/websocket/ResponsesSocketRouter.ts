import { SseFrame } from '../frames/SseParser.js';
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

/** Options of {@link ResponsesSocketRouter} and `responsesSocketReplies`. */
export interface ResponsesSocketRouterOptions extends SocketRouterOptions {
  /** The most replies open at once on the socket (one per lane at most, lanes are the server's); more is a `ProtocolError`. Default 256. */
  readonly maxOpenReplies?: number;
  /** The most output items one reply routes by id; past it its events are routed by their lane alone. Default 4096. */
  readonly maxItemsPerReply?: number;
}

/** The events that begin a response on its lane: the first of a response is `response.created` (`response.queued` under load). */
const START_EVENTS: ReadonlySet<string> = new Set(['response.created', 'response.queued']);
/** The events after which a response is over (the `openai-responses` dialect's end signals). */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** The steering events (WebSocket only): each names the response it steers in `steer.previous_response_id`. */
const STEER_EVENTS: ReadonlySet<string> = new Set(['response.steer.accepted', 'response.steer.pending', 'response.steer.failed']);

const DEFAULT_MAX_OPEN_REPLIES = 256;

/** The default lane: the one of every `response.create` that named no `stream_id`. */
const DEFAULT_LANE = '';

interface OpenReply {
  readonly reply: number;
  readonly lane: string;
  /** Set at the reply's `response.created` (or `.queued`). */
  responseId: string | undefined;
  readonly items: Set<string>;
}

/**
 * The pure core of `responsesSocketReplies`: reads the JSON text messages of one Responses API
 * WebSocket (`wss://api.openai.com/v1/responses`, the `ResponsesServerEvent`s of `openai` 7) and
 * says, for each, which reply it belongs to, so that each reply can be read as one
 * `openai-responses` stream.
 *
 * The socket carries several responses in turn, and at once on different lanes: a `response.create`
 * that names a `stream_id` is a lane of its own, whose events echo the `stream_id`; requests of one
 * lane are answered in turn (FIFO), so a lane has at most one response open. How an event is routed,
 * the first rule that applies:
 *
 * 1. a steering event (`response.steer.accepted`, `.pending`, `.failed`) goes to the open reply of
 *    the response it names (`steer.previous_response_id`), else outside any reply (a
 *    `response.steer.pending` comes after its response completed);
 * 2. an event with a `response` object goes to the open reply of that response id; a
 *    `response.created` or `response.queued` for a response not open begins a reply on its lane
 *    (closing the lane's reply that never ended: its reader sees a stream with no end signal);
 * 3. an event with an `item_id` of an item an open reply announced (`response.output_item.added`)
 *    goes to that reply;
 * 4. an `error` that answers a request (`ResponsesServerEvent.ResponseWsError`: an HTTP `status`, no
 *    `sequence_number`) is a reply of its own, whatever its lane has open: a refused
 *    `response.create` is answered (its reader gets the `ProviderError`), and the response running on
 *    the lane goes on;
 * 5. any other goes to its lane's open reply (an `error` of a response's stream, with its
 *    `sequence_number`, ends it); an `error` on a lane with none is a reply of its own, anything else
 *    is outside any reply.
 *
 * A reply closes after its terminal event (`response.completed`, `.incomplete`, `.failed`) or its
 * `error`. Each frame is `{ event: <type>, data: <the message as it came>, id: '' }`.
 *
 * @example
 * ```ts
 * import { ResponsesSocketRouter } from 'rxjs-llm-stream/core';
 *
 * const router = new ResponsesSocketRouter((route) => {
 *   if (route.type === 'frame') parsers.get(route.reply)?.push(route.frame);
 * });
 * socket.on('message', (data) => router.push(String(data)));
 * ```
 */
export class ResponsesSocketRouter implements SocketRouter {
  readonly #emit: (route: SocketRoute) => void;
  readonly #maxMessageSize: number;
  readonly #maxOpenReplies: number;
  readonly #lanes = new Map<string, OpenReply>();
  readonly #byResponse = new Map<string, OpenReply>();
  readonly #items: ReplyItems<OpenReply>;
  #nextReply = 0;
  #messages = 0;

  constructor(emit: (route: SocketRoute) => void, options: ResponsesSocketRouterOptions = {}) {
    this.#emit = emit;
    this.#maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    this.#maxOpenReplies = options.maxOpenReplies ?? DEFAULT_MAX_OPEN_REPLIES;
    this.#items = new ReplyItems(options.maxItemsPerReply ?? DEFAULT_MAX_ITEMS_PER_REPLY);
  }

  /** The replies open now (begun, not yet closed), in the order they began. */
  get openReplies(): readonly number[] {
    return [...this.#lanes.values()].map((open) => open.reply).sort((a, b) => a - b);
  }

  /** Reads one text message of the socket. Throws a `ProtocolError` for a message that is not a JSON object or is too large. */
  push(text: string): void {
    this.#route(parseSocketMessage(text, ++this.#messages, this.#maxMessageSize), text);
  }

  /** The socket is over: every open reply closes (its reader sees a stream that stopped before its end signal). */
  end(): void {
    for (const open of [...this.#lanes.values()]) this.#close(open);
  }

  #route(payload: JsonObject, text: string): void {
    const type = typeof payload['type'] === 'string' ? payload['type'] : undefined;
    const streamId = typeof payload['stream_id'] === 'string' ? payload['stream_id'] : undefined;
    const lane = streamId ?? DEFAULT_LANE;
    const frame = socketFrame(payload, text);

    if (type !== undefined && STEER_EVENTS.has(type)) {
      const steer = payload['steer'];
      const target = isJsonObject(steer) ? nonEmptyString(steer['previous_response_id']) : undefined;
      const open = target === undefined ? undefined : this.#byResponse.get(target);
      if (open === undefined) return this.#emit({ type: 'outside', frame, streamId, responseId: target });
      return this.#emit({ type: 'frame', reply: open.reply, frame });
    }

    const response = payload['response'];
    const responseId = isJsonObject(response) ? nonEmptyString(response['id']) : undefined;
    let open = responseId === undefined ? undefined : this.#byResponse.get(responseId);
    if (open === undefined && type !== undefined && START_EVENTS.has(type)) open = this.#begin(lane, responseId, streamId);
    open ??= this.#items.find(nonEmptyString(payload['item_id']));
    if (open === undefined && type === 'error' && payload['sequence_number'] === undefined && typeof payload['status'] === 'number') {
      return this.#answer(frame, streamId);
    }
    open ??= this.#lanes.get(lane);
    if (open === undefined) {
      if (type !== 'error') return this.#emit({ type: 'outside', frame, streamId, responseId });
      return this.#answer(frame, streamId);
    }

    // The item ids a reply announces, so that their events find it whatever their lane says.
    if (type === 'response.output_item.added') this.#items.remember(open, payload);
    this.#emit({ type: 'frame', reply: open.reply, frame });
    if (type === 'error' || (type !== undefined && TERMINAL_EVENTS.has(type))) this.#close(open);
  }

  /** An `error` that is a reply of its own, opened and closed at once: no lane's reply is touched. */
  #answer(frame: SseFrame, streamId: string | undefined): void {
    const reply = this.#nextReply++;
    this.#emit({ type: 'open', reply, responseId: undefined, streamId });
    this.#emit({ type: 'frame', reply, frame });
    this.#emit({ type: 'close', reply });
  }

  /** A new reply on `lane`; a reply the lane still had open never ended, and closes first. */
  #begin(lane: string, responseId: string | undefined, streamId: string | undefined): OpenReply {
    const previous = this.#lanes.get(lane);
    if (previous !== undefined) this.#close(previous);
    if (this.#lanes.size >= this.#maxOpenReplies) {
      throw new ProtocolError(`message ${this.#messages} begins a reply while ${this.#lanes.size} are open, the most allowed`, {
        reason: 'too-large',
        position: { event: this.#messages },
      });
    }
    const open: OpenReply = { reply: this.#nextReply++, lane, responseId, items: new Set() };
    this.#lanes.set(lane, open);
    if (responseId !== undefined) this.#byResponse.set(responseId, open);
    this.#emit({ type: 'open', reply: open.reply, responseId, streamId });
    return open;
  }

  #close(open: OpenReply): void {
    if (this.#lanes.get(open.lane) !== open) return;
    this.#lanes.delete(open.lane);
    if (open.responseId !== undefined) this.#byResponse.delete(open.responseId);
    this.#items.forget(open);
    this.#emit({ type: 'close', reply: open.reply });
  }
}
