import { Observable, pipe, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ProtocolError, StreamClosedEarlyError } from '../src/errors/errors';
import { ChatEvent } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { runSync } from './support/collect';

const delta = (index: number, args: string, id?: string, name?: string, choice = 0): ChatEvent => ({
  type: 'tool-call-delta',
  choice,
  index,
  ...(id === undefined ? {} : { id }),
  ...(name === undefined ? {} : { name }),
  arguments: args,
});

describe('groupToolCallsByIndex', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('keeps interleaved calls apart and emits each whole call just before the finish that closes them', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('-a-b-c-d-f-------|', {
        a: delta(0, '{"ci', 'call_a', 'get_weather'),
        b: delta(1, '{"city":', 'call_b', 'get_weather'),
        c: delta(0, 'ty":"Pune"}'),
        d: delta(1, '"Delhi"}'),
        f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      });
      const expected = '   -a-b-c-d-(xyf)---|';
      expectObservable(source.pipe(groupToolCallsByIndex())).toBe(expected, {
        a: { ...delta(0, '{"ci', 'call_a', 'get_weather'), call: { id: 'call_a', name: 'get_weather', arguments: '{"ci' } },
        b: { ...delta(1, '{"city":', 'call_b', 'get_weather'), call: { id: 'call_b', name: 'get_weather', arguments: '{"city":' } },
        c: { ...delta(0, 'ty":"Pune"}'), call: { id: 'call_a', name: 'get_weather', arguments: '{"city":"Pune"}' } },
        d: { ...delta(1, '"Delhi"}'), call: { id: 'call_b', name: 'get_weather', arguments: '{"city":"Delhi"}' } },
        x: {
          type: 'tool-call',
          choice: 0,
          call: { index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":"Pune"}', args: { city: 'Pune' } },
        },
        y: {
          type: 'tool-call',
          choice: 0,
          call: { index: 1, id: 'call_b', name: 'get_weather', arguments: '{"city":"Delhi"}', args: { city: 'Delhi' } },
        },
        f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      });
      expectSubscriptions(source.subscriptions).toBe('^----------------!');
    });
  });

  it('closes a call at its tool-call-end, before the end event, and not again at the finish', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('-a-e----f---|', {
        a: delta(0, '{}', 'c', 'f'),
        e: { type: 'tool-call-end', choice: 0, index: 0 },
        f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      });
      expectObservable(source.pipe(groupToolCallsByIndex())).toBe('-a-(xe)-f---|', {
        a: { ...delta(0, '{}', 'c', 'f'), call: { id: 'c', name: 'f', arguments: '{}' } },
        x: { type: 'tool-call', choice: 0, call: { index: 0, id: 'c', name: 'f', arguments: '{}', args: {} } },
        e: { type: 'tool-call-end', choice: 0, index: 0 },
        f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      });
    });
  });

  it('keeps calls of different choices apart, closing each at its own finish', () => {
    const outcome = runSync(
      [
        delta(0, '{"n":0', 'a', 'f', 0),
        delta(0, '{"n":1', 'b', 'g', 1),
        delta(0, '}', undefined, undefined, 1),
        { type: 'finish', choice: 1, reason: 'tool_calls', raw: 'tool_calls' },
        delta(0, '}', undefined, undefined, 0),
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      ] as ChatEvent[],
      groupToolCallsByIndex(),
    );
    const calls = outcome.values.filter((e) => e.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', choice: 1, call: { index: 0, id: 'b', name: 'g', arguments: '{"n":1}', args: { n: 1 } } },
      { type: 'tool-call', choice: 0, call: { index: 0, id: 'a', name: 'f', arguments: '{"n":0}', args: { n: 0 } } },
    ]);
  });

  it('parses "" arguments as {}', () => {
    const outcome = runSync(
      [delta(0, '', 'a', 'f'), { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' }] as ChatEvent[],
      groupToolCallsByIndex(),
    );
    expect(outcome.values[1]).toEqual({ type: 'tool-call', choice: 0, call: { index: 0, id: 'a', name: 'f', arguments: '', args: {} } });
  });

  it('does not parse early: a prefix that parses is still growing until the call closes', () => {
    const outcome = runSync([delta(0, '{"a":1}', 'a', 'f'), delta(0, ' ')] as ChatEvent[], groupToolCallsByIndex());
    expect(outcome.values.some((e) => e.type === 'tool-call')).toBe(false);
  });

  it.each([
    ['never got an id', [delta(0, '{}', undefined, 'f')], 'tool call 0 of choice 0 never got an id'],
    ['never got a name', [delta(0, '{}', 'a')], 'tool call 0 of choice 0 (a) never got a name'],
    [
      'has arguments that do not parse',
      [delta(0, '{"a":', 'a', 'f')],
      'the arguments of tool call 0 of choice 0 (f) are not valid JSON: "{\\"a\\":"',
    ],
  ])('is a ProtocolError for a call that %s; the tracker after it gives the completion so far as partial', (_name, events, message) => {
    const withFinish = [...events, { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' }] as ChatEvent[];
    const outcome = runSync(withFinish, groupToolCallsByIndex());
    expect(outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome.error).toMatchObject({ message, reason: 'invalid-tool-call' });
    // It holds only the calls: the completion so far is the tracker's to give.
    expect((outcome.error as ProtocolError).partial).toBeUndefined();
    const folded = runSync(withFinish, pipe(groupToolCallsByIndex(), finalizeCompletion()));
    expect((folded.error as ProtocolError).partial).toMatchObject({ toolCalls: [{ index: 0, complete: false }] });
  });

  it('is a ProtocolError for a fragment after its call closed', () => {
    const outcome = runSync(
      [delta(0, '{}', 'a', 'f'), { type: 'tool-call-end', choice: 0, index: 0 }, delta(0, 'x')] as ChatEvent[],
      groupToolCallsByIndex(),
    );
    expect(outcome.error).toBeInstanceOf(ProtocolError);
  });

  it('passes an error from upstream on unchanged, for the tracker after it to fill', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const early = new StreamClosedEarlyError('cut');
      const source = cold<ChatEvent>('-a-#', { a: delta(0, '{"x', 'a', 'f') }, early);
      expectObservable(source.pipe(groupToolCallsByIndex())).toBe(
        '-a-#',
        {
          a: { ...delta(0, '{"x', 'a', 'f'), call: { id: 'a', name: 'f', arguments: '{"x' } },
        },
        early,
      );
    });
    const outcome = runSync([delta(0, '{"x', 'a', 'f')], (source) =>
      new Observable<ChatEvent>((subscriber) => {
        source.subscribe({ next: (v) => subscriber.next(v), complete: () => subscriber.error(new StreamClosedEarlyError('cut')) });
      }).pipe(groupToolCallsByIndex(), finalizeCompletion()),
    );
    expect((outcome.error as StreamClosedEarlyError).partial).toMatchObject({
      toolCalls: [{ index: 0, id: 'a', name: 'f', arguments: '{"x', complete: false }],
    });
  });

  it('stops a synchronous source when unsubscribed', () => {
    const produced: number[] = [];
    const synchronous = new Observable<ChatEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        produced.push(i);
        subscriber.next({ type: 'content', choice: 0, text: String(i) });
      }
    });
    runSync([0], () => synchronous.pipe(groupToolCallsByIndex(), take(2)));
    expect(produced).toEqual([0, 1]);
  });
});
