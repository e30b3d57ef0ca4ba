import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../src/reply/assembleChunks';
import { ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { SseFrame } from '../src/frames/SseParser';
import { CHUNK_START as start, DONE, chunk, frame } from './support/frames';
import { runSync } from './support/collect';

// The operator itself: how it subscribes, completes, errors and unsubscribes. How the openai-chat
// format is read (chunks, deltas, tool-call fragments, finish reasons, usage, errors) is in
// spec/dialects/openaiChat.spec.ts, beside the spec of every other dialect.
describe('assembleChunks (openai-chat)', () => {
  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events and completes after [DONE]', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a---b---d--|', {
          a: frame(chunk({ content: 'Hel' })),
          b: frame(chunk({ content: 'lo' }, {}, 'stop')),
          d: DONE,
        });
        const expected = '   -(sx)(yf)z--|';
        expectObservable(source.pipe(assembleChunks())).toBe(expected, {
          s: start,
          x: { type: 'content', choice: 0, text: 'Hel' },
          y: { type: 'content', choice: 0, text: 'lo' },
          f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
          z: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^-----------!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes without [DONE] (under strict, even after a finish)', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a------|', { a: frame(chunk({ content: 'x' }, {}, 'stop')) });
        const error = new StreamClosedEarlyError('the stream ended without [DONE] after 1 frame');
        expectObservable(source.pipe(assembleChunks({ strict: true }))).toBe(
          '-(sxf)--#',
          {
            s: start,
            x: { type: 'content', choice: 0, text: 'x' },
            f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
          },
          error,
        );
      });
    });

    it('errors with ProviderError at an error payload and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-----e--b--|', {
          a: frame(chunk({ content: 'x' })),
          e: frame({ error: { message: 'overloaded', type: 'server_error', code: 'x1' } }),
          b: frame(chunk({ content: 'never' })),
        });
        const error = new ProviderError('the provider reported an error at frame 2: overloaded (server_error, code x1)');
        expectObservable(source.pipe(assembleChunks())).toBe(
          '-(sx)--#',
          {
            s: start,
            x: { type: 'content', choice: 0, text: 'x' },
          },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('passes an error from the source through, and lets an early unsubscribe reach it', () => {
      testScheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
        const failing = cold<SseFrame>('--#', {}, new Error('reset'));
        expectObservable(failing.pipe(assembleChunks())).toBe('--#', {}, new Error('reset'));
        const live = hot('-a--a--|', { a: frame(chunk({ content: 'x' })) });
        expectObservable(live.pipe(assembleChunks()), '---!').toBe('-(sx)', {
          s: start,
          x: { type: 'content', choice: 0, text: 'x' },
        });
        expectSubscriptions(live.subscriptions).toBe('^--!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<SseFrame>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(frame(chunk({ content: String(i) })));
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(assembleChunks(), take(3)));
      expect(outcome.values).toHaveLength(3);
      expect(produced).toEqual([0, 1]); // start + content "0", then content "1"
    });
  });
});
