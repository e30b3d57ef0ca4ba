import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunksWith } from '../src/reply/assembleChunksWith';
import { assembleChunks } from '../src/reply/assembleChunks';
import { openaiChat } from '../src/dialects/openai-chat/openaiChat';
import { dialectFactory } from '../src/dialects/Dialect';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { SseFrame } from '../src/frames/SseParser';
import { ChatEvent } from '../src/types/events';
import { CHUNK_START as start, DONE, chunk, frame } from './support/frames';
import { runSync } from './support/collect';

// The operator itself, with the dialect given by import: how it subscribes, completes, errors and
// unsubscribes. How each format is read is in spec/dialects/, and assembleChunks, which resolves a
// name and hands its dialect to this operator, has spec/assembleChunks.spec.ts.
describe('assembleChunksWith', () => {
  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events with the dialect it is given and completes after its end signal', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a---b---d--|', {
          a: frame(chunk({ content: 'Hel' })),
          b: frame(chunk({ content: 'lo' }, {}, 'stop')),
          d: DONE,
        });
        const expected = '   -(sx)(yf)z--|';
        expectObservable(source.pipe(assembleChunksWith(openaiChat))).toBe(expected, {
          s: start,
          x: { type: 'content', choice: 0, text: 'Hel' },
          y: { type: 'content', choice: 0, text: 'lo' },
          f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
          z: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^-----------!');
      });
    });

    it('emits nothing and stays subscribed to a source that never emits', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-');
        expectObservable(source.pipe(assembleChunksWith(openaiChat))).toBe('-');
        expectSubscriptions(source.subscriptions).toBe('^');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes empty', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<SseFrame>('|');
        const error = new StreamClosedEarlyError('the stream ended without [DONE] after 0 frames');
        expectObservable(source.pipe(assembleChunksWith(openaiChat))).toBe('#', {}, error);
      });
    });

    // Under strict: without it, a reply whose choices all finished is whole without [DONE] (docs/dialects.md).
    it('errors with StreamClosedEarlyError when the source completes without the end signal (strict)', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a------|', { a: frame(chunk({ content: 'x' }, {}, 'stop')) });
        const error = new StreamClosedEarlyError('the stream ended without [DONE] after 1 frame');
        expectObservable(source.pipe(assembleChunksWith(openaiChat, { strict: true }))).toBe(
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
        expectObservable(source.pipe(assembleChunksWith(openaiChat))).toBe(
          '-(sx)--#',
          { s: start, x: { type: 'content', choice: 0, text: 'x' } },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('passes an error from the source through', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const failing = cold<SseFrame>('--#', {}, new Error('reset'));
        expectObservable(failing.pipe(assembleChunksWith(openaiChat))).toBe('--#', {}, new Error('reset'));
        expectSubscriptions(failing.subscriptions).toBe('^-!');
      });
    });

    it('lets an early unsubscribe reach a source that never ends', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const live = hot('-a------a------a--', { a: frame(chunk({ content: 'x' })) });
        const x: ChatEvent = { type: 'content', choice: 0, text: 'x' };
        expectObservable(live.pipe(assembleChunksWith(openaiChat)), '^----------!').toBe('-(sx)---x--', { s: start, x });
        expectSubscriptions(live.subscriptions).toBe('^----------!');
      });
    });

    it('makes a parser per subscription, so that a resubscribe reads a new stream', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a---d---|', { a: frame(chunk({ content: 'x' })), d: DONE });
        const events = source.pipe(assembleChunksWith(openaiChat));
        // [DONE] finishes the choice that named no finish (stop), then ends the stream.
        const finish = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };
        const values = { s: start, x: { type: 'content', choice: 0, text: 'x' }, f: finish, z: { type: 'done' } };
        expectObservable(events).toBe('-(sx)(fz)|', values);
        expectObservable(events).toBe('-(sx)(fz)|', values);
      });
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
    const outcome = runSync([0], () => synchronous.pipe(assembleChunksWith(openaiChat), take(3)));
    expect(outcome.values).toHaveLength(3);
    expect(produced).toEqual([0, 1]); // start + content "0", then content "1"
  });

  it('gives the dialect its options: strict refuses what the lenient reading absorbs', () => {
    const frames = [frame(chunk({ content: 'x' }, {}, 'eos')), DONE];
    const lenient = runSync(frames, (source) => source.pipe(assembleChunksWith(openaiChat)));
    const strict = runSync(frames, (source) => source.pipe(assembleChunksWith(openaiChat, { strict: true })));
    expect(lenient.error).toBeUndefined();
    expect(lenient.values).toContainEqual({ type: 'finish', choice: 0, reason: 'stop', raw: 'eos' });
    expect(strict.error).toBeInstanceOf(ProtocolError);
    expect(strict.error).toMatchObject({ reason: 'strict', message: 'frame 1: unknown finish_reason "eos"' });
  });

  it('takes a factory of your own, as assembleChunks({ dialect }) does', () => {
    const lines = dialectFactory((emit) => ({
      push: (f) => emit({ type: 'content', choice: 0, text: f.data }),
      end: () => emit({ type: 'done' }),
    }));
    const outcome = runSync([frame('a'), frame('b')], (source) => source.pipe(assembleChunksWith(lines)));
    expect(outcome.values).toEqual([
      { type: 'content', choice: 0, text: 'a' },
      { type: 'content', choice: 0, text: 'b' },
      { type: 'done' },
    ]);
  });

  it('reads exactly as assembleChunks with the same dialect named', () => {
    const frames = [frame(chunk({ content: 'Hel' })), frame(chunk({ content: 'lo' }, {}, 'stop')), DONE];
    const byImport = runSync(frames, (source) => source.pipe(assembleChunksWith(openaiChat)));
    const byName = runSync(frames, (source) => source.pipe(assembleChunks({ dialect: 'openai-chat' })));
    expect(byImport).toEqual(byName);
    expect(byImport.values).toHaveLength(5);
  });
});
