import { Observable, VirtualTimeScheduler, defer, of, retry, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../src/reply/assembleChunks';
import { SseFrame } from '../src/frames/SseParser';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { LlmStreamError, StreamIdleError } from '../src/errors/errors';
import { isLlmStreamError } from '../src/errors/isLlmStreamError';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { idleTimeout } from '../src/io/idleTimeout';
import { sseFrames } from '../src/frames/sseFrames';
import { bodyStream } from '../src/testing/bodyStream';
import { coldBytes } from '../src/testing/coldBytes';
import { runSync } from './support/collect';

const message = (data: string): SseFrame => ({ event: 'message', data, id: '' });

describe('idleTimeout', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('as an operator (marbles)', () => {
    it('passes values through and completes with the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--b--|');
        const expected = '   -a--b--|';
        expectObservable(source.pipe(idleTimeout(10))).toBe(expected);
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('errors with StreamIdleError when no value arrives for ms after the last one, and unsubscribes', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('a 15ms b--|');
        const expected = '   a 9ms #';
        const error = new StreamIdleError('the stream was idle for 10 ms after 1 value');
        expectObservable(source.pipe(idleTimeout(10))).toBe(expected, undefined, error);
        expectSubscriptions(source.subscriptions).toBe('^ 9ms !');
      });
    });

    it('restarts the wait at every value', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        // Gaps of 9 ms under a 10 ms limit: never idle, though the whole stream lasts 30 ms.
        const source = cold('a 8ms b 8ms c 8ms d|');
        const expected = '   a 8ms b 8ms c 8ms d|';
        expectObservable(source.pipe(idleTimeout(10))).toBe(expected);
      });
    });

    it('measures from the latest value, not from the first', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('a 5ms b 20ms c|');
        const expected = '   a 5ms b 9ms #';
        const error = new StreamIdleError('the stream was idle for 10 ms after 2 values');
        expectObservable(source.pipe(idleTimeout(10))).toBe(expected, undefined, error);
      });
    });

    it('times out a source that never emits, from the moment of subscription', () => {
      testScheduler.run(({ cold, hot, expectObservable }) => {
        const error = new StreamIdleError('the stream was idle for 10 ms before any value arrived');
        expectObservable(cold('-').pipe(idleTimeout(10))).toBe('10ms #', undefined, error);
        // Subscribed at 5: the wait starts there, not when the hot source began.
        expectObservable(hot('-').pipe(idleTimeout(10)), '-----^').toBe('15ms #', undefined, error);
      });
    });

    it('completes for an empty source', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        expectObservable(cold('|').pipe(idleTimeout(10))).toBe('|');
      });
    });

    it('passes an error from the source through', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--#', undefined, new Error('reset'));
        expectObservable(source.pipe(idleTimeout(10))).toBe('-a--#', undefined, new Error('reset'));
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('lets an early unsubscribe reach the source, before the timer fires', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('-a--b-------------|');
        const unsub = '     -----!';
        expectObservable(source.pipe(idleTimeout(10)), unsub).toBe('-a--b-');
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<number>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(i);
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(idleTimeout(10), take(3)));
      expect(outcome.values).toEqual([0, 1, 2]);
      expect(produced).toEqual([0, 1, 2]);
    });

    it('waits afresh on resubscription', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        let attempt = 0;
        // The first attempt stalls after `a`; the retry's own wait starts at its subscription.
        const source = defer(() => (attempt++ === 0 ? cold('a 20ms b|') : cold('a 5ms (b|)')));
        const expected = 'a 9ms a 5ms (b|)';
        expectObservable(source.pipe(idleTimeout(10), retry(1))).toBe(expected);
      });
    });
  });

  describe('through decodeUtf8 and sseFrames', () => {
    // An event, two keep-alive comments, another event: each letter of the marbles below the next chunk.
    const pinging = bodyStream(['data: {"n":1}\n\n', ': keep-alive\n\n', ': keep-alive\n\n', 'data: {"n":2}\n\n']);

    it('a keep-alive comment resets it: placed on the text, pings count as signs of life', () => {
      testScheduler.run(({ expectObservable }) => {
        // Sixty seconds between the two events, a ping every twenty: never thirty seconds of silence.
        const source = coldBytes(pinging, 'a 20s p 20s p 20s b|');
        const expected = '   x 20s - 20s - 20s y|';
        expectObservable(source.pipe(decodeUtf8(), idleTimeout(30_000), sseFrames())).toBe(expected, {
          x: message('{"n":1}'),
          y: message('{"n":2}'),
        });
      });
    });

    it('after sseFrames the same pings are invisible, so the stream times out (why it goes on the text)', () => {
      testScheduler.run(({ expectObservable }) => {
        const source = coldBytes(pinging, 'a 20s p 20s p 20s b|');
        const expected = '   x 29999ms #';
        const error = new StreamIdleError('the stream was idle for 30000 ms after 1 value');
        expectObservable(source.pipe(decodeUtf8(), sseFrames(), idleTimeout(30_000))).toBe(expected, { x: message('{"n":1}') }, error);
      });
    });

    it('a stream that stalls forever ends in StreamIdleError, with what arrived as the partial', () => {
      testScheduler.run(({ flush }) => {
        const chunk = (delta: object): string =>
          `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
        // Two chunks arrive, then the connection stays open and silent: `-` forever, no `|`.
        const source = coldBytes(bodyStream([chunk({ content: 'Hel' }), chunk({ content: 'lo' })], { stalls: true }), 'a 5s b-');
        let outcome: { at: number; error: unknown } | undefined;
        let values = 0;
        source
          .pipe(decodeUtf8(), idleTimeout(30_000), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion())
          .subscribe({
            next: () => values++,
            error: (error: unknown) => (outcome = { at: testScheduler.now(), error }),
          });
        flush();
        expect(values).toBe(0);
        expect(outcome?.at).toBe(5001 + 30_000); // 30 s after `b`, which arrived at 5001
        const error = outcome?.error;
        expect(error).toBeInstanceOf(StreamIdleError);
        expect(error).toBeInstanceOf(LlmStreamError);
        expect((error as Error).message).toBe('the stream was idle for 30000 ms after 2 values');
        expect((error as LlmStreamError).partial).toMatchObject({ id: 'c1', content: 'Hello', finished: false });
      });
    });
  });

  describe('the timer', () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it('is cleared when the stream completes, fails or is unsubscribed (real timers, asyncScheduler)', () => {
      jest.useFakeTimers();
      of(1, 2).pipe(idleTimeout(1000)).subscribe();
      expect(jest.getTimerCount()).toBe(0);

      const failing = new Observable<number>((subscriber) => subscriber.error(new Error('x')));
      failing.pipe(idleTimeout(1000)).subscribe({ error: () => undefined });
      expect(jest.getTimerCount()).toBe(0);

      const subscription = new Observable<number>(() => undefined).pipe(idleTimeout(1000)).subscribe();
      expect(jest.getTimerCount()).toBe(1);
      subscription.unsubscribe();
      expect(jest.getTimerCount()).toBe(0);
    });

    it('is one timer for the whole stream, not one per value (real timers, asyncScheduler)', () => {
      jest.useFakeTimers();
      let next: (value: number) => void = () => undefined;
      let error: unknown;
      new Observable<number>((subscriber) => {
        next = (value) => subscriber.next(value);
      })
        .pipe(idleTimeout(1000))
        .subscribe({ error: (caught: unknown) => (error = caught) });
      for (let i = 0; i < 100; i++) {
        jest.advanceTimersByTime(500);
        next(i);
        expect(jest.getTimerCount()).toBe(1);
      }
      expect(error).toBeUndefined();
      jest.advanceTimersByTime(1000);
      expect(error).toBeInstanceOf(StreamIdleError);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('takes a scheduler, and leaves no action on it once the stream has ended', () => {
      const scheduler = new VirtualTimeScheduler();
      const seen: number[] = [];
      of(1, 2, 3)
        .pipe(idleTimeout(10, { scheduler }))
        .subscribe((value) => seen.push(value));
      expect(seen).toEqual([1, 2, 3]);
      expect(scheduler.actions).toEqual([]);
    });

    it('never fires for Infinity, and refuses a wait that is not a positive number', () => {
      const scheduler = new VirtualTimeScheduler();
      let failed = false;
      new Observable<number>(() => undefined).pipe(idleTimeout(Infinity, { scheduler })).subscribe({ error: () => (failed = true) });
      scheduler.maxFrames = 10 * 2_147_483_647;
      scheduler.flush();
      expect(failed).toBe(false);
      for (const wrong of [0, -1, Number.NaN]) expect(() => idleTimeout(wrong)).toThrow(TypeError);
    });
  });

  it('raises an error of this library, recognized across realms by its name', () => {
    const error = new StreamIdleError('x');
    expect(error.name).toBe('StreamIdleError');
    expect(isLlmStreamError(error)).toBe(true);
    expect(isLlmStreamError({ name: 'StreamIdleError', message: 'x', partial: undefined })).toBe(true);
  });
});
