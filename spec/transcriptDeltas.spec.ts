import { Observable, defer, filter, from, map, of, retry, take, throwError, concat } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { SseFrame } from '../src/frames/SseParser';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { sseFrames } from '../src/frames/sseFrames';
import { transcriptDeltas } from '../src/messages/transcriptDeltas';
import { bodyStream } from '../src/testing/bodyStream';
import { bodyText, downloadProgress } from '../src/testing/downloadProgress';
import { utf8 } from './support/chunking';
import { collectSync, runSync } from './support/collect';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

describe('transcriptDeltas', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('over strings', () => {
    it('emits the text new in each transcript', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const values = { a: 'He', b: 'Hello', c: 'Hello!', x: 'He', y: 'llo', z: '!' };
        const source = cold('  -a-b-c-|', values);
        const sourceSubs = '   ^------!';
        const expected = '     -x-y-z-|';
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
        expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      });
    });

    it('emits nothing for an unchanged transcript, nor for a held-back high surrogate alone', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: 'Hi', b: 'Hi', c: 'Hi\ud83d', d: 'Hi\ud83d\ude00', x: 'Hi', y: '\ud83d\ude00' };
        const source = cold('  -a-b-c-d-|', values);
        const expected = '     -x-----y-|';
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
      });
    });

    it('restarts at the divergence on a revision by default', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: 'hello', b: 'help', c: 'help me', x: 'hello', y: 'p', z: ' me' };
        const source = cold('  -a-b-c-|', values);
        const expected = '     -x-y-z-|';
        expectObservable(source.pipe(transcriptDeltas({ onRevision: 'restart' }))).toBe(expected, values);
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
      });
    });

    it('restarts a revision inside a surrogate pair at the start of the pair', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: 'a\ud83d\ude00', b: 'a\ud83d\ude01', x: 'a\ud83d\ude00', y: '\ud83d\ude01' };
        const source = cold('  -a-b-|', values);
        const expected = '     -x-y-|';
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
      });
    });

    it("errors with ProtocolError naming the offset on a revision under onRevision: 'error'", () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const values = { a: 'hello', b: 'help', x: 'hello' };
        const source = cold('  -a-b-c-|', values);
        const sourceSubs = '   ^--!';
        const expected = '     -x-#';
        const error = new ProtocolError('the transcript revised text already published, from code unit offset 3');
        expectObservable(source.pipe(transcriptDeltas({ onRevision: 'error' }))).toBe(expected, values, error);
        expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      });
    });

    it('errors with StreamClosedEarlyError when the transcript ends on a high surrogate', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: 'ok \ud83d', x: 'ok ' };
        const source = cold('  -a-|', values);
        const expected = '     -x-#';
        const error = new StreamClosedEarlyError('the transcript ended mid-character: it ends in a high surrogate without its low half');
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values, error);
      });
    });

    it('gives the published text as the partial of those errors', () => {
      const revised = runSync(['hello', 'help'], transcriptDeltas({ onRevision: 'error' }));
      expect(revised.error).toBeInstanceOf(ProtocolError);
      expect((revised.error as ProtocolError).partial).toBe('hello');
      const truncated = runSync(['ok', 'ok \ud83d'], transcriptDeltas());
      expect(truncated.values).toEqual(['ok', ' ']);
      expect(truncated.error).toBeInstanceOf(StreamClosedEarlyError);
      expect((truncated.error as StreamClosedEarlyError).partial).toBe('ok ');
    });
  });

  describe('over bytes', () => {
    it('emits the bytes new in each transcript, holding back an incomplete sequence', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const values = {
          a: bytes(0x63, 0x61, 0x66, 0xc3),
          b: bytes(0x63, 0x61, 0x66, 0xc3),
          c: bytes(0x63, 0x61, 0x66, 0xc3, 0xa9, 0x21),
          x: bytes(0x63, 0x61, 0x66),
          y: bytes(0xc3, 0xa9, 0x21),
        };
        const source = cold('  -a-b-c-|', values);
        const sourceSubs = '   ^------!';
        const expected = '     -x---y-|';
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
        expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      });
    });

    it('restarts a revision inside a character at the start of the character', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = {
          a: bytes(0x61, 0xc3, 0xa9),
          b: bytes(0x61, 0xc3, 0xa8),
          x: bytes(0x61, 0xc3, 0xa9),
          y: bytes(0xc3, 0xa8),
        };
        const source = cold('  -a-b-|', values);
        const expected = '     -x-y-|';
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values);
      });
    });

    it("errors with ProtocolError naming the byte offset on a revision under onRevision: 'error'", () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: bytes(0x61, 0xc3, 0xa9), b: bytes(0x61, 0xc3, 0xa8), x: bytes(0x61, 0xc3, 0xa9) };
        const source = cold('  -a-b-|', values);
        const expected = '     -x-#';
        const error = new ProtocolError('the transcript revised text already published, from byte offset 1');
        expectObservable(source.pipe(transcriptDeltas({ onRevision: 'error' }))).toBe(expected, values, error);
      });
      const outcome = runSync([bytes(0x61, 0xc3, 0xa9), bytes(0x61, 0xc3, 0xa8)], transcriptDeltas({ onRevision: 'error' }));
      expect((outcome.error as ProtocolError).position).toEqual({ byteOffset: 1 });
      expect((outcome.error as ProtocolError).partial).toEqual(bytes(0x61, 0xc3, 0xa9));
    });

    it('errors with StreamClosedEarlyError when the transcript ends mid-sequence', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const values = { a: bytes(0x61, 0xe2, 0x82), x: bytes(0x61) };
        const source = cold('  -a-|', values);
        const expected = '     -x-#';
        const error = new StreamClosedEarlyError(
          'the transcript ended mid-character: an incomplete UTF-8 sequence starts at byte offset 1',
        );
        expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values, error);
      });
      const outcome = runSync([bytes(0x61, 0xe2, 0x82)], transcriptDeltas());
      expect((outcome.error as StreamClosedEarlyError).partial).toEqual(bytes(0x61));
      expect((outcome.error as StreamClosedEarlyError).position).toEqual({ byteOffset: 1 });
    });

    it('keeps the output typed by the input kind', () => {
      const text: Observable<string> = of('a').pipe(transcriptDeltas());
      const encoded: Observable<Uint8Array> = of(bytes(0x61)).pipe(transcriptDeltas());
      expect(runSync([0], () => text).values).toEqual(['a']);
      expect(runSync([0], () => encoded).values).toEqual([bytes(0x61)]);
    });
  });

  it('errors with ProtocolError when a stream mixes strings and bytes', () => {
    const mixed = runSync<string | Uint8Array, string | Uint8Array>(['a', bytes(0x61, 0x62)], transcriptDeltas());
    expect(mixed.values).toEqual(['a']);
    expect(mixed.error).toBeInstanceOf(ProtocolError);
    expect((mixed.error as Error).message).toBe(
      'transcriptDeltas got a Uint8Array in a stream of string transcripts: a stream keeps one kind',
    );
    const reversed = runSync<string | Uint8Array, string | Uint8Array>([bytes(0x61), 'ab'], transcriptDeltas());
    expect((reversed.error as Error).message).toBe(
      'transcriptDeltas got a string in a stream of Uint8Array transcripts: a stream keeps one kind',
    );
  });

  it("ends a source's failure as a StreamClosedEarlyError with the source's error as cause and the text published as partial", () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const values = { a: 'x', x: 'x' };
      const reset = new Error('socket reset');
      const source = cold('  -a--#', values, reset);
      const sourceSubs = '   ^---!';
      const expected = '     -x--#';
      const typed = new StreamClosedEarlyError("the transcript's source failed after 1 character: socket reset", {
        cause: reset,
        partial: 'x',
      });
      expectObservable(source.pipe(transcriptDeltas())).toBe(expected, values, typed);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
    const { error } = collectSync(throwError(() => new Error('socket reset')).pipe(transcriptDeltas()));
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect(error).toMatchObject({ message: "the transcript's source failed before any text arrived: socket reset", partial: undefined });
    expect((error as Error).cause).toEqual(new Error('socket reset'));
  });

  it('passes a library error from the source through unchanged', () => {
    const early = new ProtocolError('bad frame', { partial: 'kept' });
    const { error } = collectSync(
      concat(
        of('a'),
        throwError(() => early),
      ).pipe(transcriptDeltas()),
    );
    expect(error).toBe(early);
    expect(early.partial).toBe('kept');
  });

  it("ends Angular's HttpErrorResponse with status 0 (the network failed) as a StreamClosedEarlyError with it as cause", () => {
    const terminated = new TypeError('terminated');
    const response = {
      name: 'HttpErrorResponse',
      status: 0,
      error: terminated,
      message: 'Http failure response for (unknown url): 0 undefined',
    };
    const { values, error } = collectSync(
      concat(
        of('data: a\n\n'),
        throwError(() => response),
      ).pipe(transcriptDeltas()),
    );
    expect(values).toEqual(['data: a\n\n']);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect(error).toMatchObject({
      message: "the transcript's source failed after 9 characters: terminated",
      partial: 'data: a\n\n',
      cause: response,
    });
  });

  it("ends Angular's HttpErrorResponse with an error status as a ProviderError with the status and the parsed body", () => {
    const body = '{"error":{"code":429,"message":"Rate limit reached","type":"requests"}}';
    const response = {
      name: 'HttpErrorResponse',
      status: 429,
      error: body,
      message: 'Http failure response for /v1: 429 Too Many Requests',
    };
    const { error } = collectSync(throwError(() => response).pipe(transcriptDeltas()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      message: 'the provider answered HTTP 429: Rate limit reached',
      status: 429,
      type: 'requests',
      code: 429,
      body: JSON.parse(body),
      cause: response,
    });
  });

  it('never emits for a never source, and completes for an empty one', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<string>('-').pipe(transcriptDeltas())).toBe('-');
      expectObservable(cold<string>('|').pipe(transcriptDeltas())).toBe('|');
    });
  });

  it('lets an early unsubscribe reach the source', () => {
    testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const values = { a: '1', b: '12', c: '123', x: '1', y: '2' };
      const source = hot('   -a--b--c--|', values);
      const unsub = '        -----!';
      const sourceSubs = '   ^----!';
      const expected = '     -x--y-';
      expectObservable(source.pipe(transcriptDeltas()), unsub).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('stops a synchronous source when unsubscribed', () => {
    const produced: number[] = [];
    const synchronous = new Observable<string>((subscriber) => {
      let transcript = '';
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        produced.push(i);
        transcript += String(i);
        subscriber.next(transcript);
      }
    });
    const outcome = runSync([0], () => synchronous.pipe(transcriptDeltas(), take(3)));
    expect(outcome.values).toEqual(['0', '1', '2']);
    expect(produced).toEqual([0, 1, 2]);
  });

  it('starts with nothing published on resubscription', () => {
    let attempt = 0;
    // The first attempt publishes 'stale' and fails; the retry's 'fresh' is all new, not a revision.
    const source = defer(() =>
      attempt++ === 0
        ? concat(
            of('stale'),
            throwError(() => new Error('reset')),
          )
        : of('fresh'),
    );
    const outcome = runSync([0], () => source.pipe(transcriptDeltas({ onRevision: 'error' }), retry(1)));
    expect(outcome).toEqual({ values: ['stale', 'fresh'] });
  });

  it("turns Angular HttpClient progress events (reportProgress, responseType 'text') into SSE frames", () => {
    // Plain objects shaped like Angular's HttpEvents: 3 is HttpEventType.DownloadProgress, whose
    // `partialText` is the whole body so far; 4 is HttpEventType.Response.
    type DownloadProgress = { type: 3; loaded: number; partialText?: string };
    type HttpEventLike = { type: 0 } | DownloadProgress | { type: 4; body: string };
    // The progress the test kit reports for a body in four chunks: the whole text so far after each.
    const stream = bodyStream(['data: {"', 'n":1}\n\ndata:', ' caf\u00e9\n\ndata: [DO', 'NE]\n\n']);
    const events: HttpEventLike[] = [
      { type: 0 },
      ...downloadProgress(stream).map((progress): DownloadProgress => ({ type: 3, ...progress })),
      { type: 4, body: bodyText(stream) },
    ];
    expect(events.map((e) => (e.type === 3 ? e.loaded : e.type))).toEqual([0, 8, 20, 37, 42, 4]);

    const frames$ = from(events).pipe(
      filter((e): e is DownloadProgress => e.type === 3 /* HttpEventType.DownloadProgress */),
      map((e) => e.partialText ?? ''),
      transcriptDeltas(),
      sseFrames(),
    );

    const outcome = runSync([0], () => frames$);
    const frame = (data: string): SseFrame => ({ event: 'message', data, id: '' });
    expect(outcome).toEqual({ values: [frame('{"n":1}'), frame('caf\u00e9'), frame('[DONE]')] });
  });

  it('gives sseFrames the same text as the whole body, for UTF-8 transcripts too', () => {
    const body = 'data: \u20ac\ud83d\ude00\n\n';
    const encoded = utf8(body);
    // Every prefix of the encoded body, so most of them end inside the euro sign or the emoji.
    const transcripts = Array.from({ length: encoded.length + 1 }, (_, n) => encoded.subarray(0, n));
    const outcome = runSync(transcripts, transcriptDeltas());
    expect(outcome.error).toBeUndefined();
    const text = outcome.values.map((delta) => new TextDecoder('utf-8', { fatal: true }).decode(delta));
    expect(text.join('')).toBe(body);
    expect(runSync([text.join('')], sseFrames()).values).toEqual([{ event: 'message', data: '\u20ac\ud83d\ude00', id: '' }]);
  });
});
