import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { AwsEventStreamParser } from '../../src/core/index';
import { ProtocolError, ProviderError, StreamClosedEarlyError, type SseFrame } from '../../src/index';
import { crc32 } from '../../src/internal/crc32';
import { chunksOf, splitAt } from '../support/chunking';
import { codec, concat, eventMessage, exceptionMessage } from '../support/awsEventStream';

// The encoding: https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
// (prelude, headers of types 0-9, payload, message CRC), written here by @smithy/eventstream-codec.

function parse(pieces: readonly Uint8Array[], maxEventSize?: number): { frames: SseFrame[]; error?: unknown } {
  const frames: SseFrame[] = [];
  const parser = new AwsEventStreamParser((frame) => frames.push(frame), maxEventSize === undefined ? {} : { maxEventSize });
  try {
    for (const piece of pieces) parser.push(piece);
    parser.end();
    return { frames };
  } catch (error) {
    return { frames, error };
  }
}

/** A copy of `bytes` with `edit` applied and both CRCs made right again, by Node's own CRC-32. */
function resealed(bytes: Uint8Array, edit: (copy: Uint8Array) => void): Uint8Array {
  const copy = Uint8Array.from(bytes);
  edit(copy);
  const view = new DataView(copy.buffer);
  view.setUint32(8, zlibCrc32(copy.subarray(0, 8)));
  view.setUint32(copy.length - 4, zlibCrc32(copy.subarray(0, copy.length - 4)));
  return copy;
}

const first = eventMessage('messageStart', { role: 'assistant' });
const second = eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo 👋' } });
const stream = concat([first, second]);
const expected: SseFrame[] = [
  { event: 'messageStart', data: '{"role":"assistant"}', id: '' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"héllo 👋"}}', id: '' },
];

describe('crc32', () => {
  it('gives the IEEE check value and agrees with zlib', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(stream)).toBe(zlibCrc32(stream));
  });
});

describe('AwsEventStreamParser', () => {
  it.each([1, 2, 3, 7, 64, stream.length])('decodes the codec’s messages in pieces of %i bytes', (size) => {
    expect(parse(chunksOf(stream, size))).toEqual({ frames: expected });
  });

  it('gives the same frames however the bytes are split', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: stream.length }), { maxLength: 12 }), (cuts) => {
        expect(parse(splitAt(stream, cuts))).toEqual({ frames: expected });
      }),
    );
  });

  it('reads every header type the codec writes', () => {
    const message = codec.encode({
      headers: {
        ':message-type': { type: 'string', value: 'event' },
        ':event-type': { type: 'string', value: 'chunk' },
        yes: { type: 'boolean', value: true },
        no: { type: 'boolean', value: false },
        b: { type: 'byte', value: -3 },
        s: { type: 'short', value: 300 },
        i: { type: 'integer', value: 70000 },
        bin: { type: 'binary', value: new Uint8Array([1, 2, 3]) },
        t: { type: 'timestamp', value: new Date(0) },
        u: { type: 'uuid', value: '3e3d1e2a-0b52-4c4a-9f3a-4a8b5ed0c7a1' },
      },
      body: new TextEncoder().encode('{}'),
    });
    expect(parse([message])).toEqual({ frames: [{ event: 'chunk', data: '{}', id: '' }] });
  });

  it('ends with StreamClosedEarlyError at every cut inside a message', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      if (cut === first.length) continue;
      const { error } = parse([stream.subarray(0, cut)]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ reason: 'mid-message', position: { byteOffset: cut, event: cut < first.length ? 1 : 2 } });
    }
    expect(parse([stream.subarray(0, first.length)])).toEqual({ frames: [expected[0]] });
  });

  it('refuses a flipped prelude CRC, message CRC or length byte with its offset', () => {
    const flip = (at: number): Uint8Array => {
      const copy = Uint8Array.from(stream);
      copy[at]! ^= 1;
      return copy;
    };
    const at = first.length;
    expect(parse([flip(at + 9)]).error).toMatchObject({
      name: 'ProtocolError',
      reason: 'invalid-checksum',
      position: { byteOffset: at + 8 },
    });
    expect(parse([flip(stream.length - 1)]).error).toMatchObject({
      reason: 'invalid-checksum',
      position: { byteOffset: stream.length - 4, event: 2 },
    });
    // A length byte is covered by the prelude CRC.
    expect(parse([flip(2)]).error).toMatchObject({ reason: 'invalid-checksum', position: { byteOffset: 8, event: 1 } });
    // A payload byte, by the message CRC.
    expect(parse([flip(first.length - 6)]).error).toMatchObject({ reason: 'invalid-checksum', position: { byteOffset: first.length - 4 } });
  });

  it('refuses an unknown header type at its byte', () => {
    // The first header: name length (1), ':event-type' (11), then its type byte at offset 24.
    expect(first[12]).toBe(11);
    const bad = resealed(first, (copy) => (copy[24] = 10));
    const { error } = parse([bad]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ reason: 'invalid-message', position: { byteOffset: 24, event: 1 } });
  });

  it('refuses impossible lengths whose prelude CRC matches', () => {
    const tooShort = resealed(first, (copy) => new DataView(copy.buffer).setUint32(0, 15));
    expect(parse([tooShort]).error).toMatchObject({ reason: 'invalid-message', position: { byteOffset: 0 } });
    const headersTooLong = resealed(first, (copy) => new DataView(copy.buffer).setUint32(4, first.length - 15));
    expect(parse([headersTooLong]).error).toMatchObject({ reason: 'invalid-message', position: { byteOffset: 4 } });
  });

  it('refuses a message over maxEventSize from its prelude alone', () => {
    const { error } = parse([second.subarray(0, 12)], 64);
    expect(error).toMatchObject({ name: 'ProtocolError', reason: 'too-large', position: { byteOffset: 0 } });
  });

  it('refuses a payload that is not UTF-8 at its first bad byte', () => {
    const body = new Uint8Array([0x7b, 0xff, 0x7d]);
    const message = codec.encode({
      headers: { ':message-type': { type: 'string', value: 'event' }, ':event-type': { type: 'string', value: 'chunk' } },
      body,
    });
    const payloadAt = message.length - 4 - body.length;
    expect(parse([message]).error).toMatchObject({ reason: 'invalid-utf8', position: { byteOffset: payloadAt + 1 } });
  });

  it.each([
    ['throttlingException', true],
    ['modelStreamErrorException', true],
    ['validationException', false],
  ])('turns a %s message into a ProviderError (retryable %s)', (type, retryable) => {
    const { frames, error } = parse([first, exceptionMessage(type, 'Too many requests, please wait.')]);
    expect(frames).toEqual([expected[0]]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type, retryable, message: expect.stringContaining('Too many requests, please wait.') });
  });

  it('turns an error message into a ProviderError with its code and message headers', () => {
    const message = codec.encode({
      headers: {
        ':message-type': { type: 'string', value: 'error' },
        ':error-code': { type: 'string', value: 'InternalFailure' },
        ':error-message': { type: 'string', value: 'the model failed' },
      },
      body: new Uint8Array(0),
    });
    const { error } = parse([message]);
    expect(error).toMatchObject({ name: 'ProviderError', type: 'InternalFailure', code: 'InternalFailure', retryable: undefined });
    expect((error as Error).message).toContain('the model failed');
  });
});
