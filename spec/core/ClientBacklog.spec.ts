import { ClientBacklog } from '../../src/relay/ClientBacklog';
import { RelayFrame, relayFormat } from '../../src/relay/RelayFormat';
import { StreamEntry } from '../../src/relay/streamEntries';
import { SseParser, SseFrame } from '../../src/frames/SseParser';
import { ChatEvent } from '../../src/types/events';

// What waits for one client: counted in bytes as written, merged only where text may be joined, and
// read back by a real SSE parser as the same events (text joined), each with its own id.

/** The frames a parser reads back from the text. */
function parse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = new SseParser((frame) => frames.push(frame));
  parser.push(text);
  parser.end();
  return frames;
}

let nextId = 0;
const entry = (event: ChatEvent): StreamEntry => ({ id: ++nextId, kind: 'event', type: event.type, data: JSON.stringify(event) });
const framesOf = (events: readonly ChatEvent[]): RelayFrame[] => {
  nextId = 0;
  const format = relayFormat('chat-events');
  return events.flatMap((event) => format.frames(entry(event)));
};

const content = (text: string, choice = 0): ChatEvent => ({ type: 'content', choice, text });
const reasoning = (text: string): ChatEvent => ({ type: 'reasoning', choice: 0, text });

describe('ClientBacklog: the merge rule', () => {
  it.each<[string, ChatEvent[], Array<{ id: string; event: string; data: unknown }>]>([
    [
      'consecutive content of one choice: one event, the last id, the text joined',
      [content('a'), content('b'), content('c')],
      [{ id: '3', event: 'content', data: content('abc') }],
    ],
    [
      'content of two choices: apart',
      [content('a', 0), content('b', 1)],
      [
        { id: '1', event: 'content', data: content('a', 0) },
        { id: '2', event: 'content', data: content('b', 1) },
      ],
    ],
    [
      'reasoning then content: apart, each merged with its own kind',
      [reasoning('r1'), reasoning('r2'), content('a'), content('b')],
      [
        { id: '2', event: 'reasoning', data: reasoning('r1r2') },
        { id: '4', event: 'content', data: content('ab') },
      ],
    ],
    [
      'an event between two deltas keeps them apart (order kept)',
      [content('a'), { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } }, content('b')],
      [
        { id: '1', event: 'content', data: content('a') },
        { id: '2', event: 'usage', data: { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } } },
        { id: '3', event: 'content', data: content('b') },
      ],
    ],
    [
      'reasoning with a token count is not merged (the field would be lost)',
      [reasoning('a'), { type: 'reasoning', choice: 0, text: 'b', reasoningTokens: 7 }],
      [
        { id: '1', event: 'reasoning', data: reasoning('a') },
        { id: '2', event: 'reasoning', data: { type: 'reasoning', choice: 0, text: 'b', reasoningTokens: 7 } },
      ],
    ],
  ])('%s', (_case, events, expected) => {
    const backlog = new ClientBacklog();
    for (const frame of framesOf(events)) backlog.push(frame);
    const text = backlog.take();
    expect(parse(text).map((frame) => ({ id: frame.id, event: frame.event, data: JSON.parse(frame.data) as unknown }))).toEqual(expected);
  });
});

describe('ClientBacklog: bytes', () => {
  it.each([
    ['ASCII', ['ab', 'cd', 'ef']],
    ['two-byte, three-byte and astral characters', ['é', '€', '😀x']],
    ['characters JSON escapes', ['"q"', '\n\t', '\\', '\u0001']],
  ])('counts exactly the UTF-8 bytes it writes, merged or not (%s)', (_case, texts) => {
    const backlog = new ClientBacklog();
    for (const frame of framesOf(texts.map((text) => content(text)))) backlog.push(frame);
    const counted = backlog.bytes;
    expect(counted).toBe(Buffer.byteLength(backlog.take()));
    expect(backlog.bytes).toBe(0);
  });

  it('is empty after take, and remembers the last id taken', () => {
    const backlog = new ClientBacklog();
    expect(backlog.take()).toBe('');
    for (const frame of framesOf([content('a'), { type: 'done' }])) backlog.push(frame);
    expect(backlog.lastId).toBe('2');
    expect(backlog.lastTakenId).toBeUndefined();
    backlog.take();
    expect(backlog.lastTakenId).toBe('2');
    expect(backlog.length).toBe(0);
  });

  it('writes an id line on every event, also when ids would persist in the format', () => {
    const backlog = new ClientBacklog();
    backlog.push({ event: 'message', id: '5', data: 'a' });
    backlog.take();
    backlog.push({ event: 'message', id: '6', data: 'b' });
    backlog.push({ event: 'message', id: '6', data: 'c' });
    expect(backlog.take()).toBe('id: 6\ndata: b\n\nid: 6\ndata: c\n\n');
  });
});

describe('relayFormat: the UI message stream', () => {
  it('numbers the chunks of each entry n:k and merges deltas of one part', () => {
    const format = relayFormat('ui-message-stream');
    nextId = 0;
    const frames = [content('He'), content('llo'), { type: 'done' } as ChatEvent].flatMap((event) => format.frames(entry(event)));
    const backlog = new ClientBacklog();
    for (const frame of frames) backlog.push(frame);
    const read = parse(backlog.take()).map((frame) => [frame.id, frame.data]);
    expect(read).toEqual([
      ['1:0', '{"type":"start"}'],
      ['1:1', '{"type":"start-step"}'],
      ['1:2', '{"type":"text-start","id":"text-1"}'],
      ['2:0', '{"type":"text-delta","id":"text-1","delta":"Hello"}'],
      ['3:0', '{"type":"text-end","id":"text-1"}'],
      ['3:1', '{"type":"finish-step"}'],
      ['3:2', '{"type":"finish"}'],
    ]);
  });

  it('resumes after n:k: the encoder replays the entries before it, silently', () => {
    nextId = 0;
    const events: ChatEvent[] = [content('He'), content('llo'), { type: 'done' }];
    const entries = events.map(entry);
    const format = relayFormat('ui-message-stream');
    const whole = entries.flatMap((e) => format.frames(e)).map((frame) => frame.id);
    expect(whole).toContain('1:1');
    const resumed = relayFormat('ui-message-stream', { entry: 1, chunk: 1 });
    expect(entries.flatMap((e) => resumed.frames(e)).map((frame) => frame.id)).toEqual(whole.slice(whole.indexOf('1:1') + 1));
  });
});
