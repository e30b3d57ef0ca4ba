import { Observable, defer, retry, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { AssembledMessage, assembleMessages } from '../src/messages/assembleMessages';
import { TokenEvent } from '../src/messages/TokenAssembler';
import { StreamClosedEarlyError } from '../src/errors/errors';
import { runSync } from './support/collect';

describe('assembleMessages', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('emits each message once, when it is finalized, with interleaved ids', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const values: Record<string, TokenEvent | AssembledMessage> = {
        a: { id: 'a', delta: 'hel' },
        b: { id: 'b', delta: 'wor' },
        c: { id: 'a', delta: 'lo', final: true },
        d: { id: 'b', delta: 'ld' },
        e: { id: 'b', final: true },
        x: { id: 'a', text: 'hello' },
        y: { id: 'b', text: 'world' },
      };
      const source = cold('  -a-b-c-d-e-|', values);
      const sourceSubs = '   ^----------!';
      const expected = '     -----x---y-|';
      expectObservable(source.pipe(assembleMessages())).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('keeps empty deltas, and emits a message finalized with no text at all', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const values = {
        a: { id: 'm', delta: '' },
        b: { id: 'm', delta: 'x' },
        c: { id: 'm', delta: '', final: true },
        d: { id: 'n', final: true },
        x: { id: 'm', text: 'x' },
        y: { id: 'n', text: '' },
      };
      const source = cold('  -a-b-c-d-|', values);
      const expected = '     -----x-y-|';
      expectObservable(source.pipe(assembleMessages())).toBe(expected, values);
    });
  });

  it('emits nothing more for a repeated finalization, nor for deltas after it', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const values = {
        a: { id: 'm', delta: 'hi', final: true },
        b: { id: 'm', delta: ' again', final: true },
        c: { id: 'm', delta: 'late' },
        d: { id: 'm', final: true },
        x: { id: 'm', text: 'hi' },
      };
      const source = cold('  -a-b-c-d-|', values);
      const expected = '     -x-------|';
      expectObservable(source.pipe(assembleMessages())).toBe(expected, values);
    });
  });

  it('errors with StreamClosedEarlyError naming the open messages when the source ends before their final', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const values = {
        a: { id: 'a', delta: 'par' },
        b: { id: 'done', delta: 'ok', final: true },
        c: { id: 'b' },
        d: { id: 'a', delta: 'tial' },
        x: { id: 'done', text: 'ok' },
      };
      const source = cold('  -a-b-c-d-|', values);
      const expected = '     ---x-----#';
      const error = new StreamClosedEarlyError('the stream ended with 2 messages never finalized: "a", "b"');
      expectObservable(source.pipe(assembleMessages())).toBe(expected, values, error);
    });
  });

  it('puts each open message and its text so far in the error partial', () => {
    const outcome = runSync<TokenEvent, AssembledMessage>(
      [{ id: 'a', delta: 'par' }, { id: 'b' }, { id: 'a', delta: 'tial' }, { id: 'c', final: true }],
      assembleMessages(),
    );
    expect(outcome.values).toEqual([{ id: 'c', text: '' }]);
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((outcome.error as StreamClosedEarlyError).partial).toEqual([
      { id: 'a', text: 'partial' },
      { id: 'b', text: '' },
    ]);
  });

  it('names a single open message in the singular', () => {
    const outcome = runSync<TokenEvent, AssembledMessage>([{ id: 'only', delta: 'x' }], assembleMessages());
    expect((outcome.error as Error).message).toBe('the stream ended with 1 message never finalized: "only"');
  });

  it('passes an error from the source through', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const values = { a: { id: 'm', delta: 'x', final: true }, x: { id: 'm', text: 'x' } };
      const source = cold('  -a--#', values, new Error('socket reset'));
      const sourceSubs = '   ^---!';
      const expected = '     -x--#';
      expectObservable(source.pipe(assembleMessages())).toBe(expected, values, new Error('socket reset'));
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('never emits for a never source, and completes for an empty one', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<TokenEvent>('-').pipe(assembleMessages())).toBe('-');
      expectObservable(cold<TokenEvent>('|').pipe(assembleMessages())).toBe('|');
    });
  });

  it('lets an early unsubscribe reach the source', () => {
    testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const values = {
        a: { id: '1', final: true },
        b: { id: '2', final: true },
        c: { id: '3', final: true },
        x: { id: '1', text: '' },
        y: { id: '2', text: '' },
      };
      const source = hot('   -a--b--c--|', values);
      const unsub = '        -----!';
      const sourceSubs = '   ^----!';
      const expected = '     -x--y-';
      expectObservable(source.pipe(assembleMessages()), unsub).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
    });
  });

  it('starts fresh on resubscription', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const values = {
        a: { id: 'm', delta: 'stale ' },
        b: { id: 'm', delta: 'fresh', final: true },
        x: { id: 'm', text: 'fresh' },
      };
      // The first attempt leaves 'stale ' in message m, then fails; the retry must not see it.
      const source = cold('  -a-#', values, new Error('reset'));
      const retried = cold(' -b-|', values);
      let attempt = 0;
      const both = defer(() => (attempt++ === 0 ? source : retried));
      const expected = '     ----x-|';
      expectObservable(both.pipe(assembleMessages(), retry(1))).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(retried.subscriptions).toBe('---^--!');
    });
  });

  it('stops a synchronous source when unsubscribed', () => {
    const produced: number[] = [];
    const synchronous = new Observable<TokenEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        produced.push(i);
        subscriber.next({ id: String(i), delta: 'x', final: true });
      }
    });
    const outcome = runSync([0], () => synchronous.pipe(assembleMessages(), take(3)));
    expect(outcome.values).toEqual([
      { id: '0', text: 'x' },
      { id: '1', text: 'x' },
      { id: '2', text: 'x' },
    ]);
    expect(produced).toEqual([0, 1, 2]);
  });
});
