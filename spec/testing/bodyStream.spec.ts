import { bodyStream, contentTypeOf } from '../../src/testing/bodyStream';
import { bodyText, downloadProgress } from '../../src/testing/downloadProgress';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('bodyStream', () => {
  it('makes each element one chunk (a string as its UTF-8 bytes), status 200, not stalling', () => {
    expect(bodyStream(['data: é\n', Uint8Array.of(0x0a)])).toEqual({
      dialect: 'openai-chat',
      contentType: 'text/event-stream',
      status: 200,
      chunks: [utf8('data: é\n'), Uint8Array.of(0x0a)],
      stalls: false,
    });
    expect(bodyStream('one piece').chunks).toEqual([utf8('one piece')]);
  });

  it('takes the dialect, content type, status and stall it is given', () => {
    expect(bodyStream('x', { dialect: 'ollama', status: 503, stalls: true, contentType: 'application/json' })).toMatchObject({
      dialect: 'ollama',
      contentType: 'application/json',
      status: 503,
      stalls: true,
    });
  });

  it('copies the bytes it is given', () => {
    const bytes = utf8('data: [DONE]\n\n');
    const stream = bodyStream([bytes]);
    bytes.fill(0);
    expect(bodyText(stream)).toBe('data: [DONE]\n\n');
  });

  it.each([
    ['openai-chat', 'text/event-stream'],
    ['anthropic', 'text/event-stream'],
    ['gemini', 'text/event-stream'],
    ['ollama', 'application/x-ndjson'],
    ['bedrock-converse', 'application/vnd.amazon.eventstream'],
    ['bedrock-invoke', 'application/vnd.amazon.eventstream'],
  ] as const)('labels %s bodies %s', (dialect, contentType) => {
    expect(contentTypeOf(dialect)).toBe(contentType);
    expect(bodyStream('', { dialect }).contentType).toBe(contentType);
  });
});

describe('downloadProgress', () => {
  it('reports the bytes and the text so far after every chunk', () => {
    expect(downloadProgress(bodyStream(['data: a\n', '\n', 'data: [DONE]\n\n']))).toEqual([
      { loaded: 8, partialText: 'data: a\n' },
      { loaded: 9, partialText: 'data: a\n\n' },
      { loaded: 23, partialText: 'data: a\n\ndata: [DONE]\n\n' },
    ]);
  });

  it('holds back a character split across chunks until its last byte arrives, as the client decoder does', () => {
    const [c3, a9] = [...utf8('é')];
    expect(downloadProgress(bodyStream([Uint8Array.of(0x63, 0x61, 0x66, c3!), Uint8Array.of(a9!)]))).toEqual([
      { loaded: 4, partialText: 'caf' },
      { loaded: 5, partialText: 'café' },
    ]);
  });

  it('gives nothing for an empty body', () => {
    expect(downloadProgress(bodyStream([]))).toEqual([]);
  });
});

describe('bodyText', () => {
  it('joins and decodes the chunks, characters split across them included', () => {
    const bytes = utf8('data: "naïve ☕"\n\n');
    expect(bodyText(bodyStream([bytes.subarray(0, 10), bytes.subarray(10, 15), bytes.subarray(15)]))).toBe('data: "naïve ☕"\n\n');
  });

  it('ends a body cut inside a character with U+FFFD, as a client decoding the whole body would', () => {
    expect(bodyText(bodyStream([Uint8Array.of(0x61, 0xe2, 0x98)]))).toBe('a\ufffd');
  });
});

describe('bodyStream with a chunking', () => {
  const body = 'data: {"text":"Grüß dich"}\n\ndata: [DONE]\n\n';

  it('cuts the whole body anew, as providerStream cuts its own', () => {
    expect(bodyStream(body, { chunking: { every: 10 } }).chunks.map((chunk) => chunk.length)).toEqual([10, 10, 10, 10, 4]);
    expect(bodyStream(['data: ', '[DONE]\n\n'], { chunking: 'whole' }).chunks).toEqual([utf8('data: [DONE]\n\n')]);
    expect(bodyText(bodyStream(body, { chunking: { random: 3, maxSize: 4 } }))).toBe(body);
  });

  it("cuts inside every multi-byte character with 'inside-characters'", () => {
    const chunks = bodyStream(body, { chunking: 'inside-characters' }).chunks;
    // ü is c3 bc, ß c3 9f: each cut between its bytes.
    expect(chunks.map((chunk) => [chunk[0], chunk[chunk.length - 1]])).toEqual([
      [0x64, 0xc3],
      [0xbc, 0xc3],
      [0x9f, 0x0a],
    ]);
    const decoder = new TextDecoder();
    expect(chunks.map((chunk) => decoder.decode(chunk, { stream: true }))).toEqual([
      'data: {"text":"Gr',
      'ü',
      'ß dich"}\n\ndata: [DONE]\n\n',
    ]);
  });

  it('keeps an empty chunk it is given, when no chunking is asked for', () => {
    expect(bodyStream(['data: a\n\n', '', 'data: [DONE]\n\n']).chunks.map((chunk) => chunk.length)).toEqual([9, 0, 14]);
  });
});
