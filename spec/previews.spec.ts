import { readFileSync } from 'fs';
import { join } from 'path';
import { Observable, OperatorFunction, map, pipe, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ProtocolError, StreamClosedEarlyError } from '../src/errors/errors';
import { ChatEvent, JsonValue, ToolCallDeltaEvent } from '../src/types/events';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { toolCallPreviews } from '../src/reply/toolCallPreviews';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf } from './support/chunking';
import { runSync } from './support/collect';

const delta = (index: number, args: string, id?: string, name?: string, choice = 0): ChatEvent => ({
  type: 'tool-call-delta',
  choice,
  index,
  ...(id === undefined ? {} : { id }),
  ...(name === undefined ? {} : { name }),
  arguments: args,
});
const finish: ChatEvent = { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' };

/** A copy made in this realm, so that a value compared later is the preview as it was then. */
function copy(value: JsonValue | undefined): JsonValue | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** The events, with each preview copied as it was when its event was emitted (it is updated in place). */
const copyingPreviews: OperatorFunction<ChatEvent, ChatEvent> = map((event) =>
  event.type === 'tool-call-delta' && event.call?.preview !== undefined
    ? { ...event, call: { ...event.call, preview: copy(event.call.preview)! } }
    : event,
);

/** The previews of one call, in order, copied as they were. */
function previewsOf(events: readonly ChatEvent[], index: number, choice = 0): (JsonValue | undefined)[] {
  return events
    .filter((e): e is ToolCallDeltaEvent => e.type === 'tool-call-delta' && e.index === index && e.choice === choice)
    .map((e) => e.call?.preview);
}

describe('groupToolCallsByIndex({ previews })', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('adds the arguments so far as a value to each fragment, open strings and containers closed', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('-a-b-c-d-f---|', {
        a: delta(0, '{"ci', 'call_a', 'get_weather'),
        b: delta(0, 'ty":"Pu'),
        c: delta(0, 'ne","days":[1'),
        d: delta(0, ',2]}'),
        f: finish,
      });
      const progress = (args: string, preview: JsonValue) => ({ id: 'call_a', name: 'get_weather', arguments: args, preview });
      expectObservable(source.pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews)).toBe('-a-b-c-d-(xf)|', {
        a: { ...delta(0, '{"ci', 'call_a', 'get_weather'), call: progress('{"ci', {}) },
        b: { ...delta(0, 'ty":"Pu'), call: progress('{"city":"Pu', { city: 'Pu' }) },
        c: { ...delta(0, 'ne","days":[1'), call: progress('{"city":"Pune","days":[1', { city: 'Pune', days: [] }) },
        d: { ...delta(0, ',2]}'), call: progress('{"city":"Pune","days":[1,2]}', { city: 'Pune', days: [1, 2] }) },
        x: {
          type: 'tool-call',
          choice: 0,
          call: {
            index: 0,
            id: 'call_a',
            name: 'get_weather',
            arguments: '{"city":"Pune","days":[1,2]}',
            args: { city: 'Pune', days: [1, 2] },
          },
        },
        f: finish,
      });
      expectSubscriptions(source.subscriptions).toBe('^------------!');
    });
  });

  it('refuses the flag and the bounds of old, naming what to write instead', () => {
    for (const previews of [true, { maxSize: 10 }, null]) {
      expect(() => groupToolCallsByIndex({ previews } as never)).toThrow(
        new TypeError('groupToolCallsByIndex: previews takes toolCallPreviews(), as in { previews: toolCallPreviews() }'),
      );
    }
  });

  it('takes any reader of the arguments: one per call, each fragment pushed once, its value the preview', () => {
    const opened: string[][] = [];
    const previews = {
      open: () => {
        const fragments: string[] = [];
        opened.push(fragments);
        return {
          push: (fragment: string) => void fragments.push(fragment),
          get value(): JsonValue {
            return fragments.join('|');
          },
        };
      },
    };
    const { values } = runSync(
      [delta(0, '{"a"', 'c0', 'f'), delta(1, '{}', 'c1', 'g'), delta(0, ':1}'), finish],
      pipe(groupToolCallsByIndex({ previews }), copyingPreviews),
    );
    expect(opened).toEqual([['{"a"', ':1}'], ['{}']]);
    expect(previewsOf(values, 0)).toEqual(['{"a"', '{"a"|:1}']);
    expect(previewsOf(values, 1)).toEqual(['{}']);
  });

  it('adds no preview unless asked: previews are off by default', () => {
    for (const operator of [groupToolCallsByIndex(), groupToolCallsByIndex({}), groupToolCallsByIndex({ previews: false })]) {
      const { values } = runSync([delta(0, '{"a":"b"}', 'c', 'f'), finish], operator);
      expect(values[0]).toEqual({ ...delta(0, '{"a":"b"}', 'c', 'f'), call: { id: 'c', name: 'f', arguments: '{"a":"b"}' } });
      expect((values[0] as ToolCallDeltaEvent).call).not.toHaveProperty('preview');
    }
  });

  it('leaves preview out until a value has begun (an empty first fragment, whitespace)', () => {
    const { values } = runSync(
      [delta(0, '', 'c', 'f'), delta(0, ' '), delta(0, '['), finish],
      pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews),
    );
    expect((values[0] as ToolCallDeltaEvent).call).toEqual({ id: 'c', name: 'f', arguments: '' });
    expect((values[1] as ToolCallDeltaEvent).call).not.toHaveProperty('preview');
    expect((values[2] as ToolCallDeltaEvent).call).toEqual({ id: 'c', name: 'f', arguments: ' [', preview: [] });
  });

  it('keeps interleaved calls and choices apart, each with its own preview', () => {
    const { values } = runSync(
      [
        delta(0, '{"q":"a', 'c0', 'search'),
        delta(1, '{"q":"b', 'c1', 'search'),
        delta(0, '{"n":', 'd0', 'count', 1),
        delta(0, 'a"}'),
        delta(1, 'b"}'),
        delta(0, '7}', undefined, undefined, 1),
        finish,
        { type: 'finish', choice: 1, reason: 'tool_calls', raw: 'tool_calls' },
      ] as ChatEvent[],
      pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews),
    );
    expect(previewsOf(values, 0)).toEqual([{ q: 'a' }, { q: 'aa' }]);
    expect(previewsOf(values, 1)).toEqual([{ q: 'b' }, { q: 'bb' }]);
    expect(previewsOf(values, 0, 1)).toEqual([{}, { n: 7 }]);
  });

  it('updates one preview object in place for all fragments of a call: consumers copy to keep a snapshot', () => {
    const { values } = runSync(
      [delta(0, '{"a":"x', 'c', 'f'), delta(0, 'y","b":1}'), finish],
      groupToolCallsByIndex({ previews: toolCallPreviews() }),
    );
    const [first, second] = values as ToolCallDeltaEvent[];
    expect(first!.call!.preview).toBe(second!.call!.preview);
    expect(first!.call!.preview).toEqual({ a: 'xy', b: 1 }); // what the first event shows now, not then
  });

  it('takes the bounds of the preview from an options object', () => {
    const { values } = runSync(
      [delta(0, '{"a":{"b":1},', 'c', 'f'), delta(0, '"c":"long text"}'), finish],
      pipe(groupToolCallsByIndex({ previews: toolCallPreviews({ maxDepth: 1, maxSize: 1000 }) }), copyingPreviews),
    );
    // The nested object is past the depth bound: the preview stops at it, and stays so.
    expect(previewsOf(values, 0)).toEqual([{}, {}]);
    expect(values[2]).toMatchObject({ type: 'tool-call', call: { args: { a: { b: 1 }, c: 'long text' } } });
    const sized = runSync(
      [delta(0, '{"c":"long text"}', 'c', 'f'), finish],
      pipe(groupToolCallsByIndex({ previews: toolCallPreviews({ maxSize: 10 }) }), copyingPreviews),
    );
    expect(previewsOf(sized.values, 0)).toEqual([{ c: 'long' }]);
  });

  it('stops the preview at invalid arguments, which still fail as a ProtocolError when the call closes', () => {
    const outcome = runSync(
      [delta(0, '{"a":1,', 'c', 'f'), delta(0, '}'), delta(0, '"b":2}'), finish],
      pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews),
    );
    expect(previewsOf(outcome.values, 0)).toEqual([{ a: 1 }, { a: 1 }, { a: 1 }]);
    expect(outcome.error).toBeInstanceOf(ProtocolError);
  });

  it('starts a fresh preview for each subscription', () => {
    const operator = groupToolCallsByIndex({ previews: toolCallPreviews() });
    const first = runSync([delta(0, '{"a":"x"}', 'c', 'f'), finish], operator);
    const second = runSync([delta(0, '{"b":', 'c', 'f'), delta(0, '2}'), finish], pipe(operator, copyingPreviews));
    expect(previewsOf(first.values, 0)).toEqual([{ a: 'x' }]);
    expect(previewsOf(second.values, 0)).toEqual([{}, { b: 2 }]);
  });

  it('passes an upstream error on with the completion so far as partial', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const early = new StreamClosedEarlyError('cut');
      const source = cold<ChatEvent>('-a-#', { a: delta(0, '{"x":"', 'a', 'f') }, early);
      expectObservable(source.pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews)).toBe(
        '-a-#',
        { a: { ...delta(0, '{"x":"', 'a', 'f'), call: { id: 'a', name: 'f', arguments: '{"x":"', preview: { x: '' } } } },
        early,
      );
    });
  });

  it('stops a synchronous source when unsubscribed', () => {
    const produced: number[] = [];
    const synchronous = new Observable<ChatEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        produced.push(i);
        subscriber.next(i === 0 ? delta(0, '[', 'c', 'f') : delta(0, `${i},`));
      }
    });
    runSync([0], () => synchronous.pipe(groupToolCallsByIndex({ previews: toolCallPreviews() }), take(2)));
    expect(produced).toEqual([0, 1]);
  });

  it('previews the interleaved calls of a recording, at every chunk size', () => {
    const bytes = new Uint8Array(readFileSync(join(__dirname, '..', 'marbles', 'openai', 'tool-calls-interleaved.sse')));
    for (let size = 1; size <= 64; size++) {
      const { values, error } = runSync(
        chunksOf(bytes, size),
        pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex({ previews: toolCallPreviews() }), copyingPreviews),
      );
      expect(error).toBeUndefined();
      // The first fragment of each call names it with empty arguments: no preview yet.
      expect(previewsOf(values, 0)).toEqual([
        undefined,
        {},
        { city: 'Zürich' },
        { city: 'Zürich', unit: 'cel' },
        { city: 'Zürich', unit: 'celsius' },
      ]);
      expect(previewsOf(values, 1)).toEqual([undefined, { tz: 'Asia/' }, { tz: 'Asia/Tokyo' }]);
    }
  });
});
