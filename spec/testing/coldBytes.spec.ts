import { Observable, map, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError, StreamClosedEarlyError, StreamIdleError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { idleTimeout } from '../../src/io/idleTimeout';
import { sseFrames } from '../../src/frames/sseFrames';
import { bodyStream } from '../../src/testing/bodyStream';
import { coldBytes } from '../../src/testing/coldBytes';

// coldBytes places a stream's chunks in virtual time: by a marble string (each letter the next
// chunk), or evenly. The bodies are decoded to text so that the marbles below read as what arrives.

const scheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const text = (bytes$: Observable<Uint8Array>): Observable<string> => bytes$.pipe(map((bytes) => new TextDecoder().decode(bytes)));

const three = bodyStream(['ab', 'cd', 'ef']);
const values = { a: 'ab', b: 'cd', c: 'ef' };

/** A whole openai-chat reply in three events. */
const hello = bodyStream([
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n',
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n',
  'data: [DONE]\n\n',
]);

describe('coldBytes', () => {
  it('places each chunk at its letter, in order, whatever the letters are', () => {
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, '-a--b-c|'))).toBe('-a--b-c|', values);
      expectObservable(text(coldBytes(three, '-x--x-x|'))).toBe('-a--b-c|', values);
    });
  });

  it('reads groups and time progressions as RxJS marbles do', () => {
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, '(ab) 5ms (c|)'))).toBe('(ab) 5ms (c|)', values);
    });
  });

  it('spreads the chunks one every n, the end with the last', () => {
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, { every: 2 }))).toBe('--a-b-(c|)', values);
      expectObservable(text(coldBytes(three))).toBe('-ab(c|)', values);
    });
  });

  it('spreads the chunks evenly over a duration, the last and the end at its end', () => {
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, { over: 9 }))).toBe('---a--b--(c|)', values);
      expectObservable(text(coldBytes(bodyStream([]), { over: 9 }))).toBe('|');
    });
  });

  it('is cold: each subscription gets the whole timing from its own start', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const body$ = text(coldBytes(three, '-a-b-c|'));
      expectObservable(body$).toBe('-a-b-c|', values);
      expectObservable(cold('---x|').pipe(map(() => body$))).toBe('---x|', { x: cold('-a-b-c|', values) });
    });
  });

  it('gives each subscriber copies: a consumer that overwrites its bytes changes nothing for the next', () => {
    scheduler().run(({ expectObservable }) => {
      const body$ = coldBytes(three, 'abc|');
      body$.subscribe((bytes) => bytes.fill(0));
      expectObservable(text(body$)).toBe('abc|', values);
    });
  });

  it('delivers only the chunks placed where the marbles never end: the rest are still to come', () => {
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, '-a-b'))).toBe('-a-b', values);
    });
  });

  it('stops delivering when unsubscribed', () => {
    scheduler().run(({ expectObservable }) => {
      const delivered: string[] = [];
      const body$ = text(coldBytes(three, '-a-b-c|')).pipe(map((chunk) => (delivered.push(chunk), chunk)));
      expectObservable(body$.pipe(take(1))).toBe('-(a|)', values);
      expectObservable(body$, '^--!').toBe('-a-', values);
    });
  });

  it('gives the completion of a whole reply at the frame of its end signal, through the real pipeline', () => {
    scheduler().run(({ expectObservable }) => {
      const content$ = coldBytes(hello, '--a--b--c|').pipe(
        decodeUtf8(),
        sseFrames(),
        assembleChunks(),
        finalizeCompletion(),
        map((completion) => `${completion.content}/${completion.finishReason}`),
      );
      expectObservable(content$).toBe('---------(x|)', { x: 'Hello/stop' });
    });
  });

  describe('a stream that stalls', () => {
    const stalled = { ...hello, chunks: hello.chunks.slice(0, 1), stalls: true };

    it('never ends', () => {
      scheduler().run(({ expectObservable }) => {
        expectObservable(text(coldBytes(stalled, { every: 3 }))).toBe('---a', { a: new TextDecoder().decode(stalled.chunks[0]) });
      });
    });

    it('fails with a StreamIdleError in virtual time under idleTimeout, no real timer', () => {
      scheduler().run(({ expectObservable }) => {
        const content$ = coldBytes(stalled, '-a').pipe(
          decodeUtf8(),
          idleTimeout(1000),
          sseFrames(),
          assembleChunks(),
          finalizeCompletion(),
        );
        expectObservable(content$).toBe('- 1000ms #', undefined, expect.any(StreamIdleError));
      });
    });

    it('refuses marbles that end it', () => {
      expect(() => coldBytes(stalled, '-a|')).toThrow(new TypeError("coldBytes: the stream stalls, so '-a|' cannot end it with |"));
    });
  });

  it('makes a # the connection failing: a StreamClosedEarlyError whose cause is the platform error', () => {
    const reset = new Error('aborted');
    scheduler().run(({ expectObservable }) => {
      expectObservable(text(coldBytes(three, '-a-b#', { error: reset }))).toBe(
        '-a-b#',
        { a: 'ab', b: 'cd' },
        expect.objectContaining({ name: 'StreamClosedEarlyError', reason: 'transport', cause: reset }),
      );
    });
    scheduler().run(({ expectObservable }) => {
      const error = new StreamClosedEarlyError('the connection failed after 4 bytes in 2 chunks: terminated', {
        reason: 'transport',
        cause: new TypeError('terminated'),
      });
      expectObservable(text(coldBytes(three, 'ab#'))).toBe('ab#', { a: 'ab', b: 'cd' }, error);
    });
  });

  it('checks the status as fromResponse does: an error status is a ProviderError with the body it carried', () => {
    const limited = bodyStream(['{"error":{"message":"Rate limit reached","type":"rate', '_limit_exceeded"}}'], {
      status: 429,
      contentType: 'application/json',
    });
    scheduler().run(({ expectObservable }) => {
      expectObservable(coldBytes(limited, '-a-b|')).toBe(
        '----#',
        undefined,
        expect.objectContaining({
          name: 'ProviderError',
          status: 429,
          type: 'rate_limit_exceeded',
          message: expect.stringContaining('Rate limit'),
        }),
      );
    });
  });

  it('checks the content type as fromResponse does: an HTML page is a ProtocolError, unless allowed', () => {
    const page = bodyStream('<html>hi</html>', { contentType: 'text/html' });
    scheduler().run(({ expectObservable }) => {
      expectObservable(coldBytes(page, '-a|')).toBe('#', undefined, expect.any(ProtocolError));
      expectObservable(text(coldBytes(page, '-a|', { contentTypes: 'any' }))).toBe('-a|', { a: '<html>hi</html>' });
    });
  });

  it('works outside run mode with the scheduler given', () => {
    const testScheduler = scheduler();
    const seen: string[] = [];
    text(coldBytes(three, { every: 5 }, { scheduler: testScheduler })).subscribe({
      next: (chunk) => seen.push(`${testScheduler.now()}:${chunk}`),
      complete: () => seen.push(`${testScheduler.now()}:|`),
    });
    testScheduler.flush();
    expect(seen).toEqual(['5:ab', '10:cd', '15:ef', '15:|']);
  });

  it.each([
    ['-a-b|', "coldBytes: '-a-b|' places 2 chunks before its end, the stream has 3"],
    ['-a-b-c-d', "coldBytes: '-a-b-c-d' places 4 chunks, the stream has 3"],
    ['abcd|', "coldBytes: 'abcd|' places 4 chunks before its end, the stream has 3"],
    ['^a-b-c|', "coldBytes: a cold body has no subscription marks (^ or !): '^a-b-c|'"],
    ['a-b-c-!', "coldBytes: a cold body has no subscription marks (^ or !): 'a-b-c-!'"],
  ])('refuses marbles that do not fit the stream: %j', (marbles, message) => {
    expect(() => coldBytes(three, marbles)).toThrow(new TypeError(message));
  });

  it('refuses a timing that is not a number of milliseconds', () => {
    expect(() => coldBytes(three, { every: -1 })).toThrow(new TypeError('coldBytes: the timing must be a number of milliseconds, got -1'));
    expect(() => coldBytes(three, { over: NaN })).toThrow(new TypeError('coldBytes: the timing must be a number of milliseconds, got NaN'));
  });
});
