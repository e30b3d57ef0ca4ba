import { Observable, from, lastValueFrom, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { StreamRecording, isCredentialHeader } from '../src/recording/StreamRecording';
import { isRecordingText, parseRecording, serializeRecording } from '../src/recording/recordingFile';
import { replayRecording } from '../src/recording/replayRecording';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ProtocolError, ProviderError } from '../src/errors/errors';
import { collect } from './support/collect';
import { recordStream } from '../src/recording/recordStream';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const HEADER = '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01T12:00:00.000Z"}';

/** A recording made by hand: `[t, bytes]` pairs. */
function recordingOf(...chunks: [number, Uint8Array][]): StreamRecording {
  const recording = new StreamRecording({ recordedAt: '2026-01-01T12:00:00.000Z' });
  for (const [t, chunk] of chunks) recording.append(chunk, t);
  return recording;
}

/** A recording's chunks as `[t, text]` pairs, to compare at a glance. */
const asPairs = (recording: StreamRecording): [number, string][] =>
  recording.chunks.map((chunk) => [chunk.t, new TextDecoder().decode(chunk.bytes)]);

describe('recordStream', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const values = { a: text('data: a'), b: text('\n\n'), c: text('data: [DONE]\n\n') };

  it('passes chunks through and records each with its time since the first chunk', () => {
    const recording = new StreamRecording();
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b 5ms c|', values);
      expectObservable(source.pipe(recordStream(recording, { clock: () => testScheduler.now() }))).toBe('--a--b 5ms c|', values);
      expectSubscriptions(source.subscriptions).toBe('^----- 5ms -!');
    });
    // a at 2, b at 5, c at 11: the first chunk is time 0, not the subscription.
    expect(asPairs(recording)).toEqual([
      [0, 'data: a'],
      [3, '\n\n'],
      [9, 'data: [DONE]\n\n'],
    ]);
  });

  it('passes an error through and keeps what arrived before it', () => {
    const recording = new StreamRecording();
    const reset = new Error('socket hang up');
    testScheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', values, reset).pipe(recordStream(recording, { clock: () => testScheduler.now() }))).toBe(
        'a-#',
        values,
        reset,
      );
    });
    expect(asPairs(recording)).toEqual([[0, 'data: a']]);
  });

  it('records nothing for an empty stream, and completes', () => {
    const recording = new StreamRecording();
    testScheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<Uint8Array>('|').pipe(recordStream(recording))).toBe('|');
    });
    expect(recording.chunks).toEqual([]);
  });

  it('unsubscribing reaches the source; nothing after it is recorded', () => {
    const recording = new StreamRecording();
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c|', values);
      expectObservable(source.pipe(recordStream(recording, { clock: () => testScheduler.now() })), '^--!').toBe('a-b-', values);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
    expect(asPairs(recording)).toEqual([
      [0, 'data: a'],
      [2, '\n\n'],
    ]);
  });

  it('stops a synchronous source when unsubscribed (take after it)', () => {
    let emitted = 0;
    const source = new Observable<Uint8Array>((subscriber) => {
      for (let i = 0; i < 100 && !subscriber.closed; i++) {
        emitted++;
        subscriber.next(bytes(i));
      }
      subscriber.complete();
    });
    const recording = new StreamRecording();
    source.pipe(recordStream(recording), take(3)).subscribe();
    expect(emitted).toBe(3);
    expect(recording.chunks.map((chunk) => Array.from(chunk.bytes))).toEqual([[0], [1], [2]]);
  });

  it('copies each chunk: a source that reuses its buffer does not rewrite the recording', () => {
    const buffer = new Uint8Array(3);
    const source = new Observable<Uint8Array>((subscriber) => {
      for (const value of [1, 2, 3]) {
        buffer.fill(value);
        subscriber.next(buffer);
      }
      subscriber.complete();
    });
    const recording = new StreamRecording();
    source.pipe(recordStream(recording)).subscribe();
    expect(recording.chunks.map((chunk) => Array.from(chunk.bytes))).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 3],
    ]);
  });

  it('uses performance.now by default: real gaps are recorded', async () => {
    const recording = new StreamRecording();
    const source = new Observable<Uint8Array>((subscriber) => {
      subscriber.next(text('a'));
      const timer = setTimeout(() => {
        subscriber.next(text('b'));
        subscriber.complete();
      }, 30);
      return () => clearTimeout(timer);
    });
    await lastValueFrom(source.pipe(recordStream(recording)));
    expect(recording.chunks[0]?.t).toBe(0);
    expect(recording.chunks[1]?.t).toBeGreaterThanOrEqual(25);
  });
});

describe('StreamRecording', () => {
  it('joins its bytes and counts them', () => {
    const recording = recordingOf([0, text('ab')], [1, text('')], [2, text('cde')]);
    expect(recording.byteLength).toBe(5);
    expect(new TextDecoder().decode(recording.bytes())).toBe('abcde');
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('append refuses the time %p', (t) => {
    expect(() => new StreamRecording().append(text('a'), t)).toThrow(RangeError);
  });

  it('defaults recordedAt to now', () => {
    const before = Date.now();
    const recordedAt = Date.parse(new StreamRecording().recordedAt);
    expect(recordedAt).toBeGreaterThanOrEqual(before);
    expect(recordedAt).toBeLessThanOrEqual(Date.now());
  });
});

describe('serializeRecording and parseRecording', () => {
  it('writes the documented format, line by line', () => {
    const recording = new StreamRecording({
      recordedAt: '2026-01-01T12:00:00.000Z',
      source: 'http://127.0.0.1:8080/v1/chat/completions',
      contentType: 'text/event-stream',
    });
    recording.append(text('data: hi\n\n'), 0);
    recording.append(bytes(0xc3), 12.3456789);
    recording.append(bytes(0xc3, 0xa9), 40);
    expect(serializeRecording(recording)).toBe(
      [
        '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01T12:00:00.000Z",' +
          '"source":"http://127.0.0.1:8080/v1/chat/completions","contentType":"text/event-stream"}',
        '{"t":0,"b":"ZGF0YTogaGkKCg=="}',
        '{"t":12.346,"b":"ww=="}',
        '{"t":40,"b":"w6k="}',
        '',
      ].join('\n'),
    );
  });

  it('leaves out source and contentType when unknown', () => {
    expect(serializeRecording(recordingOf())).toBe(`${HEADER}\n`);
  });

  it('round-trips every byte value 0..255, in one chunk and cut into uneven chunks', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const recording = recordingOf(
      [0, all],
      [1, all.subarray(0, 1)],
      [2, all.subarray(1, 3)],
      [5, all.subarray(3, 7)],
      [9, all.subarray(7)],
    );
    const parsed = parseRecording(serializeRecording(recording));
    expect(parsed.recordedAt).toBe('2026-01-01T12:00:00.000Z');
    expect(parsed.chunks.map((chunk) => chunk.t)).toEqual([0, 1, 2, 5, 9]);
    expect(parsed.chunks.map((chunk) => Array.from(chunk.bytes))).toEqual(recording.chunks.map((chunk) => Array.from(chunk.bytes)));
    expect(Array.from(parsed.bytes())).toEqual([...Array.from(all), ...Array.from(all)]);
  });

  it('writes the same base64 as Node for every length from 0 to 20 (all three padding cases)', () => {
    for (let length = 0; length <= 20; length++) {
      const chunk = Uint8Array.from({ length }, (_, i) => (i * 97 + length * 31) & 255);
      const line = serializeRecording(recordingOf([0, chunk])).split('\n')[1]!;
      expect(JSON.parse(line)).toEqual({ t: 0, b: Buffer.from(chunk).toString('base64') });
    }
  });

  it('keeps UTF-8 characters split across chunks, which replay and decode whole', async () => {
    // "é" is C3 A9; "🙂" is F0 9F 99 82: each is cut between chunks.
    const recording = recordingOf([0, bytes(0x64, 0xc3)], [1, bytes(0xa9, 0xf0)], [2, bytes(0x9f)], [3, bytes(0x99, 0x82, 0x21)]);
    const parsed = parseRecording(serializeRecording(recording));
    expect(parsed.chunks.map((chunk) => Array.from(chunk.bytes))).toEqual([[0x64, 0xc3], [0xa9, 0xf0], [0x9f], [0x99, 0x82, 0x21]]);
    const decoded = await lastValueFrom(replayRecording(parsed).pipe(decodeUtf8(), toArray()));
    expect(decoded.join('')).toBe('dé🙂!');
  });

  it('reads CRLF line ends, blank lines and unknown fields', () => {
    const parsed = parseRecording(
      `${HEADER.replace('}', ',"comment":"later writers may add fields"}')}\r\n\r\n{"t":0,"b":"ZGF0YTogaGkKCg==","x":1}\r\n\n`,
    );
    expect(asPairs(parsed)).toEqual([[0, 'data: hi\n\n']]);
    expect(parsed.source).toBeUndefined();
    expect(parsed.contentType).toBeUndefined();
  });

  it.each([
    ['an empty file', '', 1, 'recording line 1: empty: a recording starts with its header line'],
    ['a raw SSE body', 'data: {"a":1}\n\n', 1, 'recording line 1: not JSON'],
    [
      'an NDJSON body',
      '{"model":"llama3","done":false}\n',
      1,
      'recording line 1: not a recording header (format must be "rxjs-llm-stream/recording")',
    ],
    ['a header that is an array', '[1]\n', 1, 'recording line 1: not a JSON object'],
    [
      'another version',
      '{"format":"rxjs-llm-stream/recording","version":2,"recordedAt":"2026-01-01T12:00:00.000Z"}\n',
      1,
      'recording line 1: unsupported recording version 2 (this reader knows 1)',
    ],
    ['no recordedAt', '{"format":"rxjs-llm-stream/recording","version":1}\n', 1, 'recording line 1: "recordedAt" must be an ISO 8601 date'],
    [
      'a recordedAt that is no date',
      '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"yesterday"}\n',
      1,
      'recording line 1: "recordedAt" must be an ISO 8601 date',
    ],
    [
      'a source that is not a string',
      '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01","source":7}\n',
      1,
      'recording line 1: "source" must be a string',
    ],
    [
      'a status that is no HTTP status',
      '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01","status":"429"}\n',
      1,
      'recording line 1: "status" must be an HTTP status code',
    ],
    [
      'a status out of range',
      '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01","status":42}\n',
      1,
      'recording line 1: "status" must be an HTTP status code',
    ],
    [
      'headers that are not strings',
      '{"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01","headers":{"retry-after":7}}\n',
      1,
      'recording line 1: "headers" must be an object of strings',
    ],
    ['a chunk line cut short', `${HEADER}\n{"t":0,"b":"ZGF0\n`, 2, 'recording line 2: not JSON'],
    [
      'a negative time',
      `${HEADER}\n{"t":0,"b":"ww=="}\n{"t":-1,"b":"ww=="}\n`,
      3,
      'recording line 3: "t" must be a number of milliseconds >= 0',
    ],
    ['a time as a string', `${HEADER}\n{"t":"0","b":"ww=="}\n`, 2, 'recording line 2: "t" must be a number of milliseconds >= 0'],
    ['no bytes', `${HEADER}\n{"t":0}\n`, 2, 'recording line 2: "b" must be the chunk\'s bytes in standard base64'],
    [
      'a character outside base64',
      `${HEADER}\n{"t":0,"b":"ww!="}\n`,
      2,
      'recording line 2: "b" must be the chunk\'s bytes in standard base64',
    ],
    [
      'base64 without its padding',
      `${HEADER}\n{"t":0,"b":"ww"}\n`,
      2,
      'recording line 2: "b" must be the chunk\'s bytes in standard base64',
    ],
    ['padding in the middle', `${HEADER}\n{"t":0,"b":"w=k="}\n`, 2, 'recording line 2: "b" must be the chunk\'s bytes in standard base64'],
    ['URL-safe base64', `${HEADER}\n{"t":0,"b":"-_8="}\n`, 2, 'recording line 2: "b" must be the chunk\'s bytes in standard base64'],
    [
      'a fault after a blank line (lines count from 1, blank ones too)',
      `${HEADER}\n\n\n{"t":0,"b":null}\n`,
      4,
      'recording line 4: "b" must be the chunk\'s bytes in standard base64',
    ],
  ])('refuses %s with a ProtocolError naming the line', (_name, file, line, message) => {
    let caught: unknown;
    try {
      parseRecording(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProtocolError);
    expect(caught).toMatchObject({ message, position: { line } });
  });

  it('writes and reads back the status and the headers, never keeping credentials or cookies', () => {
    const recording = new StreamRecording({
      recordedAt: '2026-01-01T12:00:00.000Z',
      contentType: 'application/json',
      status: 429,
      headers: {
        'Content-Type': 'application/json',
        'retry-after': '7',
        'x-ratelimit-remaining-tokens': '0',
        'set-cookie': 'session=s3cret',
        'x-api-key': 's3cret',
        authorization: 'Bearer s3cret',
        'x-session-id': 's3cret',
        'x-auth-token': 's3cret',
      },
    });
    recording.append(text('{"error":{"message":"slow down"}}'), 0);
    const file = serializeRecording(recording);
    expect(file).not.toContain('s3cret');
    expect(file.split('\n')[0]).toBe(
      '{"format":"rxjs-llm-stream/recording","version":1,' +
        '"recordedAt":"2026-01-01T12:00:00.000Z","contentType":"application/json","status":429,' +
        '"headers":{"content-type":"application/json","retry-after":"7","x-ratelimit-remaining-tokens":"0"}}',
    );
    const parsed = parseRecording(file);
    expect(parsed.status).toBe(429);
    expect(parsed.headers).toEqual({ 'content-type': 'application/json', 'retry-after': '7', 'x-ratelimit-remaining-tokens': '0' });
  });

  it.each([
    ['set-cookie', true],
    ['Cookie', true],
    ['authorization', true],
    ['proxy-authorization', true],
    ['x-api-key', true],
    ['api-key', true],
    ['x-goog-api-key', true],
    ['x-amz-security-token', true],
    ['x-session-id', true],
    ['x-csrf-token', true],
    ['content-type', false],
    ['x-request-id', false],
    ['x-ratelimit-remaining-tokens', false],
    ['openai-processing-ms', false],
    ['anthropic-ratelimit-tokens-remaining', false],
  ])('isCredentialHeader(%j) is %j', (name, credential) => {
    expect(isCredentialHeader(name)).toBe(credential);
  });

  it('isRecordingText tells a recording from a raw body by its first line', () => {
    expect(isRecordingText(`${HEADER}\n{"t":0,"b":"ww=="}\n`)).toBe(true);
    expect(isRecordingText(HEADER.replace('"version":1', '"version":9'))).toBe(true); // parseRecording then says why not
    expect(isRecordingText('data: {"format":"rxjs-llm-stream/recording"}\n\n')).toBe(false);
    expect(isRecordingText('{"model":"llama3","done":false}\n')).toBe(false);
    expect(isRecordingText('{"format":"rxjs-llm-stream/recording"\n')).toBe(false);
    expect(isRecordingText('')).toBe(false);
  });
});

describe('replayRecording', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const a = text('a');
  const b = text('b');
  const c = text('c');
  const d = text('d');

  it('by default emits the recorded chunks synchronously, in order, then completes', () => {
    const recording = recordingOf([0, a], [50, b], [900, c]);
    const seen: Uint8Array[] = [];
    let completed = false;
    replayRecording(recording).subscribe({ next: (chunk) => seen.push(chunk), complete: () => (completed = true) });
    expect(seen).toEqual([a, b, c]);
    expect(completed).toBe(true);
  });

  it('a synchronous replay stops when unsubscribed (take after it)', () => {
    const recording = recordingOf([0, a], [1, b], [2, c]);
    const seen: Uint8Array[] = [];
    let completed = false;
    replayRecording(recording)
      .pipe(take(2))
      .subscribe({ next: (chunk) => seen.push(chunk), complete: () => (completed = true) });
    expect(seen).toEqual([a, b]);
    expect(completed).toBe(true);
  });

  it('an empty recording completes at once, in both timings', () => {
    testScheduler.run(({ expectObservable }) => {
      expectObservable(replayRecording(recordingOf())).toBe('|');
      expectObservable(replayRecording(recordingOf(), { timing: 'original' })).toBe('|');
    });
  });

  it("timing 'original' replays the recorded gaps on the scheduler, chunks of the same moment together", () => {
    testScheduler.run(({ expectObservable }) => {
      const recording = recordingOf([0, a], [3, b], [3, c], [10, d]);
      expectObservable(replayRecording(recording, { timing: 'original' })).toBe('a--(bc)---(d|)', { a, b, c, d });
    });
  });

  it("timing 'original' measures from the first chunk, whatever its own time", () => {
    testScheduler.run(({ expectObservable }) => {
      const recording = recordingOf([100, a], [104, b]);
      expectObservable(replayRecording(recording, { timing: 'original' })).toBe('a---(b|)', { a, b });
    });
  });

  it('a gap that runs backwards (a hand-edited file) counts as 0', () => {
    testScheduler.run(({ expectObservable }) => {
      const recording = recordingOf([0, a], [5, b], [2, c], [11, d]);
      expectObservable(replayRecording(recording, { timing: 'original' })).toBe('a----(bc)--(d|)', { a, b, c, d });
    });
  });

  it('unsubscribing stops an original-timing replay and its timer', () => {
    testScheduler.run(({ expectObservable }) => {
      const recording = recordingOf([0, a], [3, b], [10, c]);
      expectObservable(replayRecording(recording, { timing: 'original' }), '^----!').toBe('a--b-', { a, b });
    });
  });

  it('chunkSize cuts the bytes anew; with original timing a piece comes when its last byte had arrived', () => {
    const recording = recordingOf([0, text('abc')], [5, text('defg')], [9, text('h')]);
    testScheduler.run(({ expectObservable }) => {
      expectObservable(replayRecording(recording, { timing: 'original', chunkSize: 2 })).toBe('x----(yz)(w|)', {
        x: text('ab'),
        y: text('cd'), // its "d" arrived at 5
        z: text('ef'),
        w: text('gh'), // its "h" arrived at 9
      });
    });
    const pieces: string[] = [];
    replayRecording(recording, { chunkSize: 3 }).subscribe((piece) => pieces.push(new TextDecoder().decode(piece)));
    expect(pieces).toEqual(['abc', 'def', 'gh']); // timing none: all at once
  });

  it('a larger chunkSize waits for the recorded chunk that completes the piece', () => {
    const recording = recordingOf([0, text('ab')], [4, text('cd')], [6, text('e')]);
    testScheduler.run(({ expectObservable }) => {
      expectObservable(replayRecording(recording, { timing: 'original', chunkSize: 3 })).toBe('----x-(y|)', {
        x: text('abc'),
        y: text('de'),
      });
    });
  });

  it('uses asyncScheduler by default: real gaps are waited out', async () => {
    const recording = recordingOf([0, a], [40, b]);
    const started = performance.now();
    const chunks = await lastValueFrom(replayRecording(recording, { timing: 'original' }).pipe(toArray()));
    expect(chunks).toEqual([a, b]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it.each([
    [{ chunkSize: 0 }, 'replayRecording: chunkSize must be a whole number >= 1, got 0'],
    [{ chunkSize: 1.5 }, 'replayRecording: chunkSize must be a whole number >= 1, got 1.5'],
    [{ timing: 'fast' as 'none' }, "replayRecording: timing must be 'original' or 'none', got fast"],
  ])('refuses %j', (options, message) => {
    expect(() => replayRecording(recordingOf(), options)).toThrow(new TypeError(message));
  });

  it('a stream recorded, written, read and replayed with original timing comes out as it went in', () => {
    const values = { a: text('data: {"x":'), b: text('1}\n\n'), c: text('data: [DONE]\n\n') };
    const recording = new StreamRecording();
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a---b 9ms c|', values);
      expectObservable(source.pipe(recordStream(recording, { clock: () => testScheduler.now() }))).toBe('-a---b 9ms c|', values);
    });
    const parsed = parseRecording(serializeRecording(recording));
    // A fresh scheduler: the first one's clock has moved on.
    const replayScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    replayScheduler.run(({ expectObservable }) => {
      // The replay starts with the first chunk and ends with the last: the lead-in before `a` and
      // the wait for completion after `c` were never bytes, so they are not in the recording.
      expectObservable(replayRecording(parsed, { timing: 'original' })).toBe('a---b 9ms (c|)', values);
    });
  });

  it('a recording with an error status replays as the same ProviderError as live, its chunks read as the body', async () => {
    const recording = new StreamRecording({ status: 503, contentType: 'application/json' });
    recording.append(text('{"error":{"message":"overloaded",'), 0);
    recording.append(text('"type":"overloaded_error"}}'), 5);
    const { values, error } = await collect(replayRecording(recording));
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ message: 'the provider answered HTTP 503: overloaded', status: 503, type: 'overloaded_error' });
  });

  it('a recording with status 200 and an HTML content type is the same ProtocolError as live, unless allowed', async () => {
    const recording = new StreamRecording({ status: 200, contentType: 'text/html; charset=utf-8' });
    recording.append(text('data: x\n\n'), 0);
    const refused = await collect(replayRecording(recording));
    expect(refused.error).toBeInstanceOf(ProtocolError);
    expect((refused.error as Error).message).toMatch(/got text\/html$/);
    const allowed = await collect(replayRecording(recording, { contentTypes: 'any' }));
    expect(allowed).toEqual({ values: [text('data: x\n\n')] });
  });

  it('a recording without a status (made by hand, or by an older writer) replays its chunks unchecked', async () => {
    const recording = new StreamRecording({ contentType: 'text/html' });
    recording.append(text('<html>'), 0);
    expect(await collect(replayRecording(recording))).toEqual({ values: [text('<html>')] });
  });

  it('replays from a plain array of chunks just as from(…) would, with timing none', async () => {
    const recording = recordingOf([0, a], [1, b]);
    expect(await lastValueFrom(replayRecording(recording).pipe(toArray()))).toEqual(await lastValueFrom(from([a, b]).pipe(toArray())));
  });
});
