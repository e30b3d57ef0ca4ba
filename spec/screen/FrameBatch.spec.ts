import fc from 'fast-check';
import { FrameBatch } from '../../src/screen/FrameBatch';
import type { ChatEvent } from '../../src/types/events';

// The merge rule of batchEventsPerFrame: what arrived between two frames goes out as one batch, the
// text deltas of one channel (a choice's content, reasoning or refusal; one tool call's arguments)
// joined, nothing dropped and nothing moved across an event that is not a delta.

const content = (text: string, choice = 0): ChatEvent => ({ type: 'content', choice, text });
const reasoning = (text: string, choice = 0): ChatEvent => ({ type: 'reasoning', choice, text });
const refusal = (text: string, choice = 0): ChatEvent => ({ type: 'refusal', choice, text });
const args = (index: number, text: string, named?: { id: string; name: string }): ChatEvent => ({
  type: 'tool-call-delta',
  choice: 0,
  index,
  ...named,
  arguments: text,
});
const finish: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };
const usage: ChatEvent = { type: 'usage', usage: { promptTokens: 3, completionTokens: 5, totalTokens: 8 } };

function batchOf(events: readonly ChatEvent[]): ChatEvent[] {
  const batch = new FrameBatch();
  for (const event of events) batch.add(event);
  return batch.take();
}

describe('FrameBatch: the merge rule', () => {
  it.each<[string, ChatEvent[], ChatEvent[]]>([
    ['one event stays as it is', [content('Hi')], [content('Hi')]],
    ['content deltas of one choice are joined', [content('Hel'), content('lo'), content(' there')], [content('Hello there')]],
    [
      'each choice keeps its own content',
      [content('a', 0), content('x', 1), content('b', 0), content('y', 1)],
      [content('ab', 0), content('xy', 1)],
    ],
    [
      'reasoning and content of one choice are separate channels',
      [reasoning('think'), reasoning('ing'), content('An'), content('swer')],
      [reasoning('thinking'), content('Answer')],
    ],
    ['refusal text is joined too', [refusal('I can'), refusal("'t")], [refusal("I can't")]],
    [
      "a tool call's argument fragments are joined, its id and name kept from the first",
      [args(0, '', { id: 'call_1', name: 'get_time' }), args(0, '{"tz":'), args(0, '"UTC"}')],
      [args(0, '{"tz":"UTC"}', { id: 'call_1', name: 'get_time' })],
    ],
    [
      'two calls keep their own arguments',
      [args(0, '{"a":'), args(1, '{"b":'), args(0, '1}'), args(1, '2}')],
      [args(0, '{"a":1}'), args(1, '{"b":2}')],
    ],
    [
      'a fragment that names its call is not merged into another fragment of that index, and text is not moved across it',
      [args(0, '{}'), content('a'), args(0, '', { id: 'call_2', name: 'other' }), content('b')],
      [args(0, '{}'), content('a'), args(0, '', { id: 'call_2', name: 'other' }), content('b')],
    ],
    [
      'an event that is not a delta is a wall: text after it is not moved before it',
      [content('a'), finish, content('b')],
      [content('a'), finish, content('b')],
    ],
    ['deltas after the wall join each other', [content('a'), usage, content('b'), content('c')], [content('a'), usage, content('bc')]],
    ['events that are not deltas are never merged', [usage, usage, finish], [usage, usage, finish]],
  ])('%s', (_case, input, expected) => {
    expect(batchOf(input)).toEqual(expected);
  });

  it('keeps the later reasoning token count and the later call progress: the merged delta says what the last one said', () => {
    const merged = batchOf([
      { type: 'reasoning', choice: 0, text: 'a', reasoningTokens: 1 },
      { type: 'reasoning', choice: 0, text: 'b', reasoningTokens: 2 },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'c', name: 'f', arguments: '{', call: { arguments: '{', id: 'c', name: 'f' } },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '}', call: { arguments: '{}', id: 'c', name: 'f' } },
    ] as ChatEvent[]);
    expect(merged).toEqual([
      { type: 'reasoning', choice: 0, text: 'ab', reasoningTokens: 2 },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'c', name: 'f', arguments: '{}', call: { arguments: '{}', id: 'c', name: 'f' } },
    ]);
  });

  it('is empty after take, and does not change the events it was given', () => {
    const batch = new FrameBatch();
    const first = content('a');
    batch.add(first);
    batch.add(content('b'));
    expect(batch.isEmpty).toBe(false);
    expect(batch.take()).toEqual([content('ab')]);
    expect(batch.isEmpty).toBe(true);
    expect(batch.take()).toEqual([]);
    expect(first).toEqual(content('a'));
    batch.add(content('c'));
    expect(batch.take()).toEqual([content('c')]);
  });
});

/** What a stream of events says, however it was batched: each channel's text, and the other events in order. */
function meaning(events: readonly ChatEvent[]): { channels: Record<string, string>; others: ChatEvent[] } {
  const channels: Record<string, string> = {};
  const others: ChatEvent[] = [];
  for (const event of events) {
    if (event.type === 'content' || event.type === 'reasoning' || event.type === 'refusal') {
      const key = `${event.type} ${event.choice}`;
      channels[key] = (channels[key] ?? '') + event.text;
    } else if (event.type === 'tool-call-delta') {
      const key = `call ${event.choice} ${event.index}`;
      channels[key] = (channels[key] ?? '') + event.arguments;
      // Where a call is named is part of what the stream says.
      if (event.name !== undefined) others.push({ ...event, arguments: '' });
    } else {
      others.push(event);
    }
  }
  return { channels, others };
}

/** Each channel's text before `wall`: what a screen showed when the wall arrived. */
function meaningUpTo(events: readonly ChatEvent[], wall: ChatEvent): { channels: Record<string, string> } {
  return { channels: meaning(events.slice(0, events.indexOf(wall))).channels };
}

const anEvent: fc.Arbitrary<ChatEvent> = fc.oneof(
  fc.record({ type: fc.constant('content' as const), choice: fc.integer({ min: 0, max: 1 }), text: fc.string({ maxLength: 4 }) }),
  fc.record({ type: fc.constant('reasoning' as const), choice: fc.constant(0), text: fc.string({ maxLength: 4 }) }),
  fc.record({ type: fc.constant('refusal' as const), choice: fc.constant(0), text: fc.string({ maxLength: 4 }) }),
  fc.record({
    type: fc.constant('tool-call-delta' as const),
    choice: fc.constant(0),
    index: fc.integer({ min: 0, max: 1 }),
    arguments: fc.string({ maxLength: 4 }),
  }),
  fc
    .integer({ min: 0, max: 1 })
    .map((index): ChatEvent => ({ type: 'tool-call-delta', choice: 0, index, id: `call_${index}`, name: 'f', arguments: '' })),
  fc.constant(finish),
  fc.constant(usage),
);

describe('FrameBatch: nothing is lost, whatever the frames', () => {
  it('joined, the batches say what the events said: the text of each channel, the other events in order and place', () => {
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 40 }), fc.array(fc.boolean(), { maxLength: 40 }), (events, frameAfter) => {
        const batch = new FrameBatch();
        const out: ChatEvent[] = [];
        events.forEach((event, i) => {
          batch.add(event);
          if (frameAfter[i] === true) out.push(...batch.take());
        });
        out.push(...batch.take());
        expect(meaning(out)).toEqual(meaning(events));
        // Text is never moved across a wall: before each wall, each channel had the same text.
        const walls = (list: readonly ChatEvent[]): Record<string, string>[] =>
          list.filter((event) => !isDelta(event)).map((wall) => meaningUpTo(list, wall).channels);
        expect(walls(out)).toEqual(walls(events));
        expect(out.length).toBeLessThanOrEqual(events.length);
      }),
    );
  });

  it('the property can fail: a batch that dropped a delta or moved text across a wall would be caught', () => {
    const events = [content('a'), finish, content('b')];
    expect(meaning([content('a'), finish])).not.toEqual(meaning(events));
    const walls = (list: readonly ChatEvent[]): Record<string, string>[] =>
      list.filter((event) => !isDelta(event)).map((wall) => meaningUpTo(list, wall).channels);
    expect(walls([content('ab'), finish])).not.toEqual(walls(events));
  });
});

function isDelta(event: ChatEvent): boolean {
  return (
    event.type === 'content' ||
    event.type === 'reasoning' ||
    event.type === 'refusal' ||
    (event.type === 'tool-call-delta' && event.id === undefined && event.name === undefined)
  );
}
