import { crc32 } from '../../internal/crc32.js';

const encoder = new TextEncoder();

/** The header value type `string` of the event-stream format (a 2-byte length, then UTF-8). */
const STRING = 7;

/**
 * One `application/vnd.amazon.eventstream` message, as Amazon Bedrock sends its events: the prelude
 * (total length, headers length, their CRC-32), the headers, the payload and the CRC-32 of all that.
 */
function message(headers: readonly (readonly [name: string, value: string])[], payload: string): Uint8Array {
  const encoded = headers.map(([name, value]) => [encoder.encode(name), encoder.encode(value)] as const);
  const headersLength = encoded.reduce((sum, [name, value]) => sum + 1 + name.length + 1 + 2 + value.length, 0);
  const body = encoder.encode(payload);
  const total = 12 + headersLength + body.length + 4;
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(bytes, 0, 8));
  let at = 12;
  for (const [name, value] of encoded) {
    bytes[at++] = name.length;
    bytes.set(name, at);
    at += name.length;
    bytes[at++] = STRING;
    view.setUint16(at, value.length);
    at += 2;
    bytes.set(value, at);
    at += value.length;
  }
  bytes.set(body, at);
  view.setUint32(total - 4, crc32(bytes, 0, total - 4));
  return bytes;
}

/** An `event` message: `:event-type`, `:content-type` JSON, `:message-type` event, the JSON payload. */
export function awsEventMessage(eventType: string, payload: string): Uint8Array {
  return message(
    [
      [':event-type', eventType],
      [':content-type', 'application/json'],
      [':message-type', 'event'],
    ],
    payload,
  );
}

/** An `exception` message (`throttlingException`, `modelStreamErrorException`, ...) with its JSON payload. */
export function awsExceptionMessage(exceptionType: string, payload: string): Uint8Array {
  return message(
    [
      [':exception-type', exceptionType],
      [':content-type', 'application/json'],
      [':message-type', 'exception'],
    ],
    payload,
  );
}
