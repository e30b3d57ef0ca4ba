import fc from 'fast-check';
import { Observable, map, pipe } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { StreamClosedEarlyError } from '../src/errors/errors';
import { ChatEvent } from '../src/types/events';
import { scanCompletion } from '../src/reply/scanCompletion';
import { runSync } from './support/collect';

describe('scanCompletion', () => {
  it('emits the completion so far after each event (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toMatchObject(expected));
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('-r-a-b-f-|', {
        r: { type: 'reasoning', choice: 0, text: 'hmm' },
        a: { type: 'content', choice: 0, text: 'Hel' },
        b: { type: 'content', choice: 0, text: 'lo' },
        f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
      });
      expectObservable(source.pipe(scanCompletion())).toBe('-r-a-b-f-|', {
        r: { content: null, reasoning: 'hmm', inReasoning: true, finished: false, finishReason: null },
        a: { content: 'Hel', reasoning: 'hmm', inReasoning: false, finished: false },
        b: { content: 'Hello', inReasoning: false, finished: false },
        f: { content: 'Hello', finished: true, finishReason: 'stop' },
      });
    });
  });

  it('marks inReasoning false after a tool-call fragment', () => {
    const { values } = runSync(
      [
        { type: 'reasoning', choice: 0, text: 'x' },
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{' },
      ] as ChatEvent[],
      (source) => source.pipe(scanCompletion()),
    );
    expect(values.map((s) => s.inReasoning)).toEqual([true, false]);
    expect(values[1]!.toolCalls).toEqual([{ index: 0, id: 'a', name: 'f', arguments: '{', complete: false }]);
  });

  it('shows interleaved calls of two choices apart, each closed at its own finish', () => {
    const { values, error } = runSync(
      [
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"a":' },
        { type: 'tool-call-delta', choice: 1, index: 0, id: 'b', name: 'g', arguments: '{"b":' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '1}' },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
        { type: 'tool-call-delta', choice: 1, index: 0, arguments: '2}' },
        { type: 'finish', choice: 1, reason: 'tool_calls', raw: 'tool_calls' },
      ] as ChatEvent[],
      scanCompletion(),
    );
    expect(error).toBeUndefined();
    expect(values[3]!.finished).toBe(false);
    expect(values[3]!.choices[0]!.toolCalls[0]).toMatchObject({ complete: true, args: { a: 1 } });
    expect(values[3]!.choices[1]!.toolCalls[0]).toMatchObject({ complete: false, arguments: '{"b":' });
    expect(values[5]!.finished).toBe(true);
  });

  it('errors with StreamClosedEarlyError when the source completes unfinished, keeping the last snapshot', () => {
    const { values, error } = runSync([{ type: 'content', choice: 0, text: 'cut' }] as ChatEvent[], scanCompletion());
    expect(values).toHaveLength(1);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as StreamClosedEarlyError).partial).toMatchObject({ content: 'cut', finished: false });
  });

  it('errors for an empty source: a reply with no choice at all is truncated', () => {
    const { values, error } = runSync([] as ChatEvent[], scanCompletion());
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
  });

  it('passes a source error through with the snapshot as partial', () => {
    const { error } = runSync([{ type: 'content', choice: 0, text: 'a' }] as ChatEvent[], (source) =>
      new Observable<ChatEvent>((subscriber) => {
        source.subscribe({ next: (v) => subscriber.next(v), complete: () => subscriber.error(new StreamClosedEarlyError('x')) });
      }).pipe(scanCompletion()),
    );
    expect((error as StreamClosedEarlyError).partial).toMatchObject({ content: 'a' });
  });

  it('reuses the parts of the snapshot an event did not change, so a snapshot costs what the event changed', () => {
    const { values } = runSync(
      [
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'b', name: 'g', arguments: '[' },
        { type: 'content', choice: 1, text: 'other choice' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: '1' },
      ] as ChatEvent[],
      scanCompletion(),
    );
    const [, second, third, fourth] = values;
    // Text in choice 1 leaves choice 0's snapshot as it was.
    expect(third!.choices[0]).toBe(second!.choices[0]);
    // A fragment of call 1 leaves call 0's snapshot as it was, and changes call 1's.
    expect(fourth!.choices[0]!.toolCalls[0]).toBe(third!.choices[0]!.toolCalls[0]);
    expect(fourth!.choices[0]!.toolCalls[1]).toEqual({ index: 1, id: 'b', name: 'g', arguments: '[1', complete: false });
    expect(fourth!.choices[1]).toBe(third!.choices[1]);
    // Nothing shown is ever changed after it was emitted.
    expect(second!.choices[0]!.toolCalls[1]!.arguments).toBe('[');
  });

  it(
    'shows every call as far as it has arrived after each fragment,' + ' in any interleaving, and never changes a snapshot once emitted',
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.nat({ max: 9 }), fc.string({ maxLength: 3 })), { maxLength: 60 }),
          fc.array(fc.nat({ max: 9 }), { maxLength: 4 }),
          (fragments, finishAfter) => {
            const events: ChatEvent[] = fragments.map(([index, text]) => ({
              type: 'tool-call-delta',
              choice: 0,
              index,
              id: `c${index}`,
              name: 'f',
              arguments: text,
            }));
            // Content now and then: it changes the choice, not its calls.
            for (const at of finishAfter) events.splice(Math.min(at * 7, events.length), 0, { type: 'content', choice: 0, text: 'x' });
            const emitted = runSync(
              events,
              pipe(
                scanCompletion(),
                map((snapshot) => ({ snapshot, shown: JSON.stringify(snapshot.toolCalls) })),
              ),
            );
            const values = emitted.values.map(({ snapshot }) => snapshot);
            const argumentsSoFar = new Map<number, string>();
            events.forEach((event, position) => {
              if (event.type === 'tool-call-delta')
                argumentsSoFar.set(event.index, (argumentsSoFar.get(event.index) ?? '') + event.arguments);
              const expected = [...argumentsSoFar]
                .sort(([a], [b]) => a - b)
                .map(([index, text]) => ({ index, id: `c${index}`, name: 'f', arguments: text, complete: false }));
              expect(values[position]!.toolCalls).toEqual(expected);
            });
            // As each snapshot was when it was emitted.
            expect(values.map((snapshot) => JSON.stringify(snapshot.toolCalls))).toEqual(emitted.values.map(({ shown }) => shown));
          },
        ),
        { numRuns: 200 },
      );
    },
  );
});
