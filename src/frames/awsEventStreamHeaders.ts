import { ProtocolError } from '../errors/errors.js';

/**
 * The headers of one `application/vnd.amazon.eventstream` message: each is a name (1 length byte,
 * then UTF-8), a type byte and a value whose encoding the type says. Every type is read, so that a
 * malformed header is found wherever it is; only the string values are kept, since those are what
 * a stream is routed by (`:message-type`, `:event-type`, `:exception-type`, ...).
 */

/** The value size of each fixed-width type; -1 for the two types with a 2-byte length prefix. */
const VALUE_SIZE: readonly number[] = [
  0, // 0: boolean true
  0, // 1: boolean false
  1, // 2: byte
  2, // 3: short (int16 BE)
  4, // 4: integer (int32 BE)
  8, // 5: long (int64 BE)
  -1, // 6: byte array (uint16 BE length, bytes)
  -1, // 7: string (uint16 BE length, UTF-8)
  8, // 8: timestamp (int64 BE milliseconds)
  16, // 9: uuid
];
const STRING_TYPE = 7;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads the headers in `message[start, end)`; `base` is the stream offset of `message[0]`, for the
 * `position` of an error; `event` the message's 1-based number.
 */
export function readAwsHeaders(message: Uint8Array, start: number, end: number, base: number, event: number): Map<string, string> {
  const headers = new Map<string, string>();
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  let i = start;
  const fail = (what: string, at: number, reason: 'invalid-message' | 'invalid-utf8' = 'invalid-message'): ProtocolError =>
    new ProtocolError(`message ${event}: ${what} at byte ${base + at}`, { reason, position: { byteOffset: base + at, event } });
  const text = (from: number, to: number, what: string): string => {
    try {
      return utf8.decode(message.subarray(from, to));
    } catch (cause) {
      throw Object.assign(fail(`${what} is not UTF-8`, from, 'invalid-utf8'), { cause });
    }
  };
  while (i < end) {
    const headerStart = i;
    const nameLength = message[i]!;
    if (i + 1 + nameLength + 1 > end) throw fail('a header runs past the end of the headers', headerStart);
    const name = text(i + 1, i + 1 + nameLength, 'a header name');
    i += 1 + nameLength;
    const type = message[i]!;
    const size = VALUE_SIZE[type];
    if (size === undefined) throw fail(`header ${name} has the unknown type ${type}`, i);
    i++;
    let valueStart = i;
    let valueEnd = i + size;
    if (size === -1) {
      if (i + 2 > end) throw fail(`header ${name} runs past the end of the headers`, headerStart);
      valueStart = i + 2;
      valueEnd = valueStart + view.getUint16(i);
    }
    if (valueEnd > end) throw fail(`header ${name} runs past the end of the headers`, headerStart);
    if (type === STRING_TYPE) headers.set(name, text(valueStart, valueEnd, `header ${name}`));
    i = valueEnd;
  }
  return headers;
}
