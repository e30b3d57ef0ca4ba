import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../errors/errors.js';
import { crc32 } from '../internal/crc32.js';
import { isJsonObject } from '../internal/json.js';
import { firstInvalidUtf8 } from '../internal/utf8.js';
import { readAwsHeaders } from './awsEventStreamHeaders.js';
import type { SseFrame } from './SseParser.js';

/** The default of {@link AwsEventStreamParserOptions.maxEventSize}: 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Options of {@link AwsEventStreamParser} and `awsEventStreamFrames`. */
export interface AwsEventStreamParserOptions {
  /**
   * The largest message (its total length, in bytes) the parser will hold; a prelude that announces
   * more is a `ProtocolError` (`too-large`) before any of it is buffered. Default 16 MiB.
   */
  readonly maxEventSize?: number;
}

/** The prelude: total length, headers length (uint32 BE each) and their CRC-32. */
const PRELUDE = 12;
/** The prelude and the message CRC: the size of a message with no headers and no payload. */
const OVERHEAD = 16;

/** The Bedrock exception types that a retry may get past, and those it never will. */
const RETRYABLE: ReadonlyMap<string, boolean> = new Map([
  ['throttlingException', true],
  ['serviceUnavailableException', true],
  ['modelStreamErrorException', true],
  ['internalServerException', true],
  ['validationException', false],
  ['accessDeniedException', false],
]);

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The pure core of `awsEventStreamFrames`: the bytes of an `application/vnd.amazon.eventstream`
 * body (AWS's binary event stream, which Bedrock's `ConverseStream` and
 * `InvokeModelWithResponseStream` answer with) in, `SseFrame`s out, over any chunking, each byte
 * copied at most once.
 *
 * Each message is a prelude (total length, headers length, the prelude's CRC-32), typed headers, a
 * payload and the CRC-32 of all that. An `event` message becomes a frame: `event` its
 * `:event-type`, `data` its payload as UTF-8. An `exception` or `error` message is a
 * `ProviderError` (`type` the `:exception-type` or `:error-code`, the message from the payload's
 * `message` or the `:error-message` header, `retryable` for the exception types Bedrock documents).
 * A checksum that does not match (`invalid-checksum`), an impossible length or a header of unknown
 * type (`invalid-message`), or a message over `maxEventSize` (`too-large`) is a `ProtocolError` whose
 * `position.byteOffset` is the offset of the faulty field in the stream; bytes that stop inside a
 * message are a `StreamClosedEarlyError` (`mid-message`).
 *
 * @example
 * ```ts
 * import { AwsEventStreamParser } from 'rxjs-llm-stream/core';
 *
 * const parser = new AwsEventStreamParser((frame) => console.log(frame.event, frame.data));
 * parser.push(firstBytes);
 * parser.push(moreBytes); // logs 'contentBlockDelta {"contentBlockIndex":0,...}'
 * parser.end();
 * ```
 */
export class AwsEventStreamParser {
  private readonly maxEventSize: number;
  /** The stream offset of the message being read. */
  private offset = 0;
  /** Messages read so far: while one is being read, `messageCount + 1` is its number. */
  private messageCount = 0;
  /** The prelude while it arrives in pieces. */
  private readonly prelude = new Uint8Array(PRELUDE);
  private preludeFill = 0;
  /** The message while it arrives in pieces (allocated once its prelude has been checked). */
  private message: Uint8Array | undefined = undefined;
  private messageFill = 0;

  constructor(
    private readonly onFrame: (frame: SseFrame) => void,
    options: AwsEventStreamParserOptions = {},
  ) {
    this.maxEventSize = options.maxEventSize ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Reads one piece of the body; calls `onFrame` for each event message it completes. */
  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.message === undefined) {
        if (this.preludeFill === 0 && chunk.length - i >= PRELUDE) {
          // The usual case: the prelude, and often the whole message, is in this chunk: no copy.
          const total = this.checkPrelude(chunk, i);
          if (chunk.length - i >= total) {
            this.readMessage(chunk.subarray(i, i + total));
            i += total;
            continue;
          }
          this.message = new Uint8Array(total);
          this.messageFill = 0;
        } else {
          const take = Math.min(PRELUDE - this.preludeFill, chunk.length - i);
          this.prelude.set(chunk.subarray(i, i + take), this.preludeFill);
          this.preludeFill += take;
          i += take;
          if (this.preludeFill < PRELUDE) return;
          const total = this.checkPrelude(this.prelude, 0);
          this.message = new Uint8Array(total);
          this.message.set(this.prelude);
          this.messageFill = PRELUDE;
          this.preludeFill = 0;
        }
      }
      const message = this.message;
      const take = Math.min(message.length - this.messageFill, chunk.length - i);
      message.set(chunk.subarray(i, i + take), this.messageFill);
      this.messageFill += take;
      i += take;
      if (this.messageFill === message.length) {
        this.message = undefined;
        this.readMessage(message);
      }
    }
  }

  /** Ends the stream: bytes of a message that never completed are a `StreamClosedEarlyError`. */
  end(): void {
    const received = this.message === undefined ? this.preludeFill : this.messageFill;
    if (received === 0) return;
    const event = this.messageCount + 1;
    const expected = this.message === undefined ? '' : ` of ${this.message.length}`;
    throw new StreamClosedEarlyError(
      `the stream ended mid-message: message ${event} (at byte ${this.offset}) has ${received}${expected} bytes`,
      { reason: 'mid-message', position: { byteOffset: this.offset + received, event } },
    );
  }

  /** Checks the prelude at `bytes[at]`; returns the message's total length. */
  private checkPrelude(bytes: Uint8Array, at: number): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset + at, PRELUDE);
    const total = view.getUint32(0);
    const headersLength = view.getUint32(4);
    if (crc32(bytes, at, at + 8) !== view.getUint32(8)) {
      throw this.protocolError('the prelude CRC does not match', 8, 'invalid-checksum');
    }
    if (total < OVERHEAD) throw this.protocolError(`the total length ${total} is less than ${OVERHEAD}`, 0, 'invalid-message');
    if (headersLength > total - OVERHEAD) {
      throw this.protocolError(`the headers length ${headersLength} does not fit in a message of ${total} bytes`, 4, 'invalid-message');
    }
    if (total > this.maxEventSize) {
      throw this.protocolError(`message too large: ${total} bytes, more than ${this.maxEventSize}`, 0, 'too-large');
    }
    return total;
  }

  /** Reads one whole message (its CRC not yet checked). */
  private readMessage(message: Uint8Array): void {
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
    const crcAt = message.length - 4;
    if (crc32(message, 0, crcAt) !== view.getUint32(crcAt)) {
      throw this.protocolError('the message CRC does not match', crcAt, 'invalid-checksum');
    }
    const event = this.messageCount + 1;
    const payloadStart = PRELUDE + view.getUint32(4);
    const headers = readAwsHeaders(message, PRELUDE, payloadStart, this.offset, event);
    const payload = message.subarray(payloadStart, crcAt);
    const messageType = headers.get(':message-type');
    switch (messageType) {
      case 'event': {
        const eventType = headers.get(':event-type');
        if (eventType === undefined) throw this.protocolError('an event message has no :event-type header', 0, 'invalid-message');
        const data = this.text(payload, payloadStart);
        this.messageCount = event;
        this.offset += message.length;
        this.onFrame({ event: eventType, data, id: '' });
        return;
      }
      case 'exception':
      case 'error':
        throw this.providerError(messageType, headers, this.text(payload, payloadStart));
      default:
        throw this.protocolError(
          messageType === undefined ? 'a message has no :message-type header' : `a message of the unknown type ${messageType}`,
          0,
          'invalid-message',
        );
    }
  }

  /** The payload as UTF-8; invalid UTF-8 is a `ProtocolError` at its first bad byte. */
  private text(payload: Uint8Array, payloadStart: number): string {
    try {
      return utf8.decode(payload);
    } catch (cause) {
      const at = payloadStart + Math.max(0, firstInvalidUtf8(payload));
      throw Object.assign(this.protocolError('the payload is not UTF-8', at, 'invalid-utf8'), { cause });
    }
  }

  private providerError(messageType: 'exception' | 'error', headers: Map<string, string>, payload: string): ProviderError {
    const type = messageType === 'exception' ? headers.get(':exception-type') : headers.get(':error-code');
    let body: unknown = payload;
    try {
      body = JSON.parse(payload);
    } catch {
      // not JSON: the body is kept as text
    }
    const fromBody = isJsonObject(body) ? (body['message'] ?? body['Message']) : undefined;
    const message = typeof fromBody === 'string' ? fromBody : (headers.get(':error-message') ?? (payload || 'no message'));
    const event = this.messageCount + 1;
    const retryable = type === undefined ? undefined : RETRYABLE.get(type);
    return new ProviderError(`the provider reported an ${messageType} at message ${event}: ${message}${type ? ` (${type})` : ''}`, {
      position: { byteOffset: this.offset, event },
      body,
      ...(type === undefined ? {} : { type }),
      ...(messageType === 'error' && type !== undefined ? { code: type } : {}),
      ...(retryable === undefined ? {} : { retryable }),
    });
  }

  private protocolError(
    what: string,
    at: number,
    reason: 'invalid-checksum' | 'invalid-message' | 'invalid-utf8' | 'too-large',
  ): ProtocolError {
    const byteOffset = this.offset + at;
    return new ProtocolError(`message ${this.messageCount + 1}: ${what} at byte ${byteOffset}`, {
      reason,
      position: { byteOffset, event: this.messageCount + 1 },
    });
  }
}
