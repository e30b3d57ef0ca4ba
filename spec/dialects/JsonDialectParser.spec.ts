import { dialectFactory } from '../../src/dialects/Dialect';
import { JsonDialectParser } from '../../src/dialects/base/JsonDialectParser';
import { ProtocolError } from '../../src/errors/errors';
import { frame, readDialect } from '../support/frames';

/**
 * A made-up format that reads only `message` as its text and ends at `{"end": true}`: a dialect
 * that does not know every field its server sends, as every dialect is once a server adds one.
 */
class MessageParser extends JsonDialectParser {
  protected readonly endSignal = 'an end payload';
  protected read(payload: { readonly [key: string]: unknown }, sseFrame: Parameters<JsonDialectParser['push']>[0]): void {
    const text = this.text(payload['message'], 'message');
    if (text) this.emit({ type: 'content', choice: 0, text });
    if (payload['end'] === true) {
      this.finish(0, 'stop');
      this.endStream();
    } else if (text === undefined) {
      this.unknown(payload, sseFrame);
    }
  }
}
const messages = dialectFactory((emit, options) => new MessageParser(emit, options));

describe('the dialect template refuses a reply it did not read', () => {
  it.each([
    ['a text field', { choices: [{ index: 0, text: 'Hello' }] }, 'choices[0].text'],
    ['a content field', { content: 'Hello' }, 'content'],
    ['a nested delta', { item: { delta: 'Hel' } }, 'item.delta'],
  ])('a stream that ends properly with reply text in %s and no output is a ProtocolError naming where', (_name, payload, where) => {
    const { events, error } = readDialect(messages, [frame(payload), frame({ end: true })]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).reason).toBe('unread-text');
    expect((error as ProtocolError).message).toContain(where);
    expect(events.filter((event) => event.type === 'done')).toEqual([]);
  });

  it('an empty reply (empty strings, numbers, other keys) ends as it should', () => {
    const { events, error } = readDialect(messages, [frame({ content: '', model: 'm', n: 3 }), frame({ end: true })]);
    expect(error).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(['finish', 'done']);
  });

  it('once the dialect read any output, fields it does not read are its own business', () => {
    const { events, error } = readDialect(messages, [frame({ message: 'Hi' }), frame({ text: 'later' }), frame({ end: true })]);
    expect(error).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(['content', 'finish', 'done']);
  });
});

describe('the dialect template passes unknown payloads on when asked', () => {
  const stream = [frame({ message: 'Hi' }), frame({ kind: 'novelty', value: { deep: [1, 2] } }, 'novelty'), frame({ end: true })];

  it('skips them by default', () => {
    expect(readDialect(messages, stream).events.map((event) => event.type)).toEqual(['content', 'finish', 'done']);
  });

  it('with unknownEvents, emits each as an unknown event with its SSE name and a copy of its payload', () => {
    const { events } = readDialect(messages, stream, { unknownEvents: true });
    expect(events).toEqual([
      { type: 'content', choice: 0, text: 'Hi' },
      { type: 'unknown', event: 'novelty', payload: { kind: 'novelty', value: { deep: [1, 2] } } },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
      { type: 'done' },
    ]);
  });

  it('gives unknown payloads that can be kept: the next payload of the same shape does not change them', () => {
    const same = [frame({ kind: 'a', value: { n: 1 } }), frame({ kind: 'b', value: { n: 2 } }), frame({ kind: 'c', value: { n: 3 } })];
    const { events } = readDialect(messages, [frame({ message: 'Hi' }), ...same, frame({ end: true })], { unknownEvents: true });
    expect(events.filter((event) => event.type === 'unknown').map((event) => event.type === 'unknown' && event.payload)).toEqual([
      { kind: 'a', value: { n: 1 } },
      { kind: 'b', value: { n: 2 } },
      { kind: 'c', value: { n: 3 } },
    ]);
  });
});
