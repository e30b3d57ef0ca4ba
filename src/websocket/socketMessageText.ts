import { ProtocolError } from '../errors/errors.js';

/**
 * A message of a WebSocket as a source gives it: the text itself (RxJS `webSocket` with
 * `deserializer: (event) => event.data`), the browser's or Node's `MessageEvent`, or any object with
 * its `data` (RxJS `webSocket` with `deserializer: (event) => event`). The `ws` package hands a
 * text message to its listeners as a `Buffer`: bytes (an `ArrayBuffer` or a view of one) are read
 * as UTF-8.
 */
export type SocketMessage = string | { readonly data: unknown };

/** Decodes one message's bytes; `fatal`, so that bytes that are not UTF-8 are refused, never replaced. */
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of one socket message.
 *
 * @example
 * ```ts
 * import { socketMessageText } from 'rxjs-llm-stream/core';
 *
 * socketMessageText({ data: '{"type":"response.created"}' }); // '{"type":"response.created"}'
 * ```
 *
 * @param message A message, as {@link SocketMessage} says (anything else is refused: a source typed
 * `unknown`, as RxJS's `webSocket<unknown>` is, is checked here).
 * @param index Its place on the socket (from 1), for the error's message.
 * @returns Its text. Throws a `ProtocolError` for a message that holds no text or bytes
 * (a `Blob`: set the socket's `binaryType` to `'arraybuffer'`) or bytes that are not UTF-8.
 */
export function socketMessageText(message: unknown, index: number): string {
  const data: unknown = typeof message === 'object' && message !== null && 'data' in message ? message.data : message;
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    try {
      return decoder.decode(data);
    } catch (cause) {
      throw new ProtocolError(`message ${index} is not UTF-8`, { reason: 'invalid-utf8', cause, position: { event: index } });
    }
  }
  const kind = data === null ? 'null' : typeof data === 'object' ? (data.constructor?.name ?? 'an object') : typeof data;
  throw new ProtocolError(`message ${index} holds ${kind}, not text (a Blob? set binaryType to 'arraybuffer')`, {
    reason: 'invalid-message',
    position: { event: index },
  });
}
