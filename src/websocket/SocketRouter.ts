import { SseFrame } from '../frames/SseParser.js';
import { ProtocolError } from '../errors/errors.js';
import { JsonObject, excerpt, isJsonObject } from '../internal/json.js';

/** Options every socket router takes. */
export interface SocketRouterOptions {
  /**
   * The longest message (UTF-16 code units) the router reads; a longer one is a `ProtocolError`
   * (`too-large`), refused before it is parsed. Default 16 MiB, as `sseFrames`' `maxEventSize`.
   */
  readonly maxMessageSize?: number;
}

/** What the router tells its owner, one step at a time, in the order of the socket. */
export type SocketRoute =
  /** A reply begins: a `response.created` (or `.queued`) for a response its lane had not open, or an `error` outside any reply. */
  | { readonly type: 'open'; readonly reply: number; readonly responseId: string | undefined; readonly streamId: string | undefined }
  /** A frame of an open reply. */
  | { readonly type: 'frame'; readonly reply: number; readonly frame: SseFrame }
  /** A reply is over: after its terminal event, its `error`, or when a new response took its lane without it having ended. */
  | { readonly type: 'close'; readonly reply: number }
  /** An event that belongs to no open reply (a `response.steer.pending` after its response completed, a lane's stray event). */
  | { readonly type: 'outside'; readonly frame: SseFrame; readonly streamId: string | undefined; readonly responseId: string | undefined };

/**
 * The pure core of a socket's splitter: reads each text message and says, through the callback it was
 * made with, which reply it belongs to (`SocketRoute`).
 */
export interface SocketRouter {
  /** Reads one text message of the socket; throws a `ProtocolError` for one that is not a JSON object or is too large. */
  push(text: string): void;
  /** The socket is over: every open reply closes. */
  end(): void;
}

export const DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

/**
 * One message of a socket as a JSON object; `index` (from 1) names it in the errors. Too long a
 * message is refused before it is parsed.
 *
 * @example
 * ```ts
 * import { parseSocketMessage } from 'rxjs-llm-stream/core';
 *
 * parseSocketMessage('{"type":"response.created"}', 1, 1024); // { type: 'response.created' }
 * ```
 */
export function parseSocketMessage(text: string, index: number, maxMessageSize: number): JsonObject {
  const where = `message ${index}`;
  if (text.length > maxMessageSize) {
    throw new ProtocolError(`${where} is ${text.length} characters long, over the ${maxMessageSize} allowed`, {
      reason: 'too-large',
      position: { event: index },
    });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (cause) {
    throw new ProtocolError(`${where} is not JSON: ${excerpt(text)}`, { reason: 'invalid-json', cause, position: { event: index } });
  }
  if (!isJsonObject(payload)) {
    throw new ProtocolError(`${where} is not a JSON object: ${excerpt(text)}`, { reason: 'invalid-payload', position: { event: index } });
  }
  return payload;
}

/** The frame of one message: named by its `type`, its text as it came. */
export function socketFrame(payload: JsonObject, text: string): SseFrame {
  return { event: typeof payload['type'] === 'string' ? payload['type'] : 'message', data: text, id: '' };
}
