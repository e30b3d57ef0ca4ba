import { SseFrame } from '../../src/frames/SseParser';
import { autoDialect } from '../../src/dialects/auto';
import { typedEvents } from '../../src/dialects/typed-events/typedEvents';
import { Completion } from '../../src/types/events';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// The typed-event stream keeps what an event carries beside the fields the dialect reads, as
// `providerMetadata['typed-events']`: a `text` event's on the choice (the format has one), a
// `tool_call_*` event's on the call it names.

const sse = (frames: readonly SseFrame[]): string =>
  frames.map((f) => `${f.event === 'message' ? '' : `event: ${f.event}\n`}data: ${f.data}\n\n`).join('');

const DONE = frame('[DONE]', 'done');

describe('typed-events keeps every field it does not map, where it arrived', () => {
  // Each documented event with a field beside the ones read: a language on the text, a model's own
  // call type on the start, a part name on each piece, a sequence number on the pieces and on the
  // end (the last value of each stays).
  const frames = [
    frame({ type: 'text', delta: 'Hi', lang: 'en' }),
    frame({ type: 'tool_call_start', index: 0, id: 'c1', name: 'f', kind: 'function' }),
    frame({ type: 'tool_call_delta', index: 0, args: '{"a":', seq: 1, part: 'p1' }),
    frame({ type: 'tool_call_delta', index: 0, args: '1}', seq: 2, part: 'p2' }),
    frame({ type: 'tool_call_end', index: 0, seq: 3 }),
    DONE,
  ];
  const CALL_FIELDS = { kind: 'function', seq: 3, part: 'p2' };

  const expectKept = (completion: Completion | undefined): void => {
    expect(completion!.content).toBe('Hi');
    expect(completion!.choices[0]!.providerMetadata).toEqual({ 'typed-events': { lang: 'en' } });
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual({ 'typed-events': CALL_FIELDS });
    expect('providerMetadata' in completion!).toBe(false);
  };

  it('on the choice and the call, whole and at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(frames), typedEvents, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expectKept(completion);
    }
  });

  it('reads the same under auto', () => {
    const { completion, error } = complete(autoDialect, frames);
    expect(error).toBeUndefined();
    expectKept(completion);
  });

  it('on the tool-call event that groupToolCallsByIndex emits at the end, with the fields of the end event', () => {
    const events = groupedEvents(sse(frames), typedEvents);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: { index: 0, id: 'c1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: { 'typed-events': CALL_FIELDS } },
      },
    ]);
  });

  it('keeps none for events of only the fields it reads', () => {
    const plain = [
      frame({ type: 'text', delta: 'Hi' }),
      frame({ type: 'tool_call_start', index: 0, id: 'c1', name: 'f' }),
      frame({ type: 'tool_call_delta', index: 0, args: '{}' }),
      frame({ type: 'tool_call_end', index: 0 }),
      DONE,
    ];
    const { completion, error } = complete(typedEvents, plain);
    expect(error).toBeUndefined();
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('typed-events fields kept from events read through a learned shape', () => {
  // Twenty text events of one shape: after two, the parser reads them through a template.
  const texts = (extra: (n: number) => Record<string, unknown>) =>
    Array.from({ length: 20 }, (_, n) => frame({ type: 'text', delta: `w${n} `, ...extra(n) }));

  it('keeps a field every event repeats once', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(
        sse([...texts(() => ({ model: 'm1' })), DONE]),
        typedEvents,
        size === undefined ? {} : { chunkSize: size },
      );
      expect(completion!.choices[0]!.providerMetadata).toEqual({ 'typed-events': { model: 'm1' } });
      expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(1);
    }
  });

  it('keeps a field whose value changes in every event at its last value', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(
        sse([...texts((n) => ({ seq: n })), DONE]),
        typedEvents,
        size === undefined ? {} : { chunkSize: size },
      );
      expect(completion!.choices[0]!.providerMetadata).toEqual({ 'typed-events': { seq: 19 } });
      expect(completion!.content).toBe(Array.from({ length: 20 }, (_, n) => `w${n} `).join(''));
      expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(20);
    }
  });
});
