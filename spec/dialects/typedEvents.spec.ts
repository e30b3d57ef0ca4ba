import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectOptions } from '../../src/dialects/Dialect';
import { typedEvents } from '../../src/dialects/typed-events/typedEvents';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { assembleBytes, assembleText, marbleFile, readBytes } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

/** Runs frames through the typedEvents core; returns the events and the error, if any. */
const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(typedEvents, frames, options);

const DONE = frame('[DONE]', 'done');
const text = (delta: unknown) => frame({ type: 'text', delta });
const start = (index: number, id: string, name: string) => frame({ type: 'tool_call_start', index, id, name });
const delta = (index: number, args: unknown) => frame({ type: 'tool_call_delta', index, args });
const stop = (index: number) => frame({ type: 'tool_call_end', index });

/**
 * The typed-event format's reference test stream, written out as Python's `json.dumps(obj, ensure_ascii=False)` prints it
 * (", " and ": " separators, the non-ASCII characters as they are), each event followed by CRLF CRLF,
 * after a keep-alive comment, and ended by `event: done` with `data: [DONE]`.
 */
const REFERENCE_STREAM =
  ': keep-alive\n\n' +
  'data: {"type": "text", "delta": "Café ☕ "}\r\n\r\n' +
  'data: {"type": "tool_call_start", "index": 0, "id": "c1", "name": "search"}\r\n\r\n' +
  'data: {"type": "tool_call_start", "index": 1, "id": "c2", "name": "weather"}\r\n\r\n' +
  'data: {"type": "tool_call_delta", "index": 0, "args": "{\\"q\\": \\"crè"}\r\n\r\n' +
  'data: {"type": "tool_call_delta", "index": 1, "args": "{\\"city\\":"}\r\n\r\n' +
  'data: {"type": "tool_call_delta", "index": 0, "args": "me brûlée\\", \\"k\\": 3}"}\r\n\r\n' +
  'data: {"type": "tool_call_end", "index": 0}\r\n\r\n' +
  'data: {"type": "tool_call_delta", "index": 1, "args": " \\"Paris\\"}"}\r\n\r\n' +
  'data: {"type": "tool_call_end", "index": 1}\r\n\r\n' +
  'event: done\ndata: [DONE]\n\n';
const REFERENCE_BYTES = new TextEncoder().encode(REFERENCE_STREAM);

const SEARCH = { index: 0, id: 'c1', name: 'search', arguments: '{"q": "crème brûlée", "k": 3}', args: { q: 'crème brûlée', k: 3 } };
const WEATHER = { index: 1, id: 'c2', name: 'weather', arguments: '{"city": "Paris"}', args: { city: 'Paris' } };

const REFERENCE_COMPLETION: Completion = {
  id: '',
  model: null,
  content: 'Café ☕ ',
  reasoning: null,
  refusal: null,
  toolCalls: [SEARCH, WEATHER],
  finishReason: 'tool_calls',
  rawFinishReason: 'tool_calls',
  usage: null,
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'Café ☕ ',
      reasoning: null,
      refusal: null,
      toolCalls: [SEARCH, WEATHER],
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_calls',
    },
  ],
};

/** The reference stream's events, written out by hand. */
const REFERENCE_EVENTS: ChatEvent[] = [
  { type: 'content', choice: 0, text: 'Café ☕ ' },
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'search', arguments: '' },
  { type: 'tool-call-delta', choice: 0, index: 1, id: 'c2', name: 'weather', arguments: '' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"q": "crè' },
  { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"city":' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'me brûlée", "k": 3}' },
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'tool-call-delta', choice: 0, index: 1, arguments: ' "Paris"}' },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
  { type: 'done' },
];

describe('typedEvents', () => {
  // The recording in marbles/ is the reference stream: the shared suite reads it there, the tests below
  // cut the copy written out above.
  exampleStreamSuite({
    dialect: typedEvents,
    file: 'dialects/typed-events.sse',
    framing: 'sse',
    completion: REFERENCE_COMPLETION,
    events: REFERENCE_EVENTS,
    auto: true,
    more: () => {
      it('is the reference stream, byte for byte', () => {
        expect(readBytes(marbleFile('dialects/typed-events.sse'))).toEqual(REFERENCE_BYTES);
      });

      it('cut before the first tool_call_end, fails with StreamClosedEarlyError holding what arrived, at every chunk size', () => {
        const cut = REFERENCE_BYTES.subarray(0, Buffer.from(REFERENCE_BYTES).indexOf('tool_call_end'));
        for (let size = 1; size <= 7; size++) {
          const { error } = assembleBytes(cut, typedEvents, { chunkSize: size });
          expect(error).toBeInstanceOf(StreamClosedEarlyError);
          expect(error).toMatchObject({
            partial: {
              content: 'Café ☕ ',
              finishReason: null,
              toolCalls: [
                { index: 0, id: 'c1', name: 'search', arguments: '{"q": "crème brûlée", "k": 3}', complete: false },
                { index: 1, id: 'c2', name: 'weather', arguments: '{"city":', complete: false },
              ],
            },
          });
        }
      });
    },
  });

  describe('events', () => {
    it('makes no event for an empty text delta', () => {
      expect(read([text(''), DONE]).events).toEqual([{ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }, { type: 'done' }]);
    });

    it('emits no start: the format has no id', () => {
      expect(read([text('a'), DONE]).events.some((e) => e.type === 'start')).toBe(false);
    });

    it('finishes with stop when no call was made, and tool_calls when one was', () => {
      expect(read([text('hi'), DONE]).events).toContainEqual({ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' });
      expect(read([start(0, 'a', 'f'), stop(0), DONE]).events).toContainEqual({
        type: 'finish',
        choice: 0,
        reason: 'tool_calls',
        raw: 'tool_calls',
      });
    });

    it('numbers calls densely in the order they start, whatever their indices', () => {
      const { events } = read([start(7, 'a', 'f'), start(3, 'b', 'g'), delta(3, '{}'), delta(7, '{}'), stop(3), stop(7), DONE]);
      expect(events.filter((e) => e.type === 'tool-call-delta' || e.type === 'tool-call-end')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'b', name: 'g', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{}' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
        { type: 'tool-call-end', choice: 0, index: 1 },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
    });

    it('parses "" arguments as {} (a call with no arguments)', () => {
      const { completion } = assembleText(
        'data: {"type":"tool_call_start","index":0,"id":"a","name":"now"}\n\ndata: {"type":"tool_call_end","index":0}\n\ndata: [DONE]\n\n',
        typedEvents,
      );
      expect(completion?.toolCalls).toEqual([{ index: 0, id: 'a', name: 'now', arguments: '', args: {} }]);
    });

    it('serializes args sent as an object, and reads absent or null args as ""', () => {
      const { events } = read([
        start(0, 'a', 'f'),
        delta(0, { city: 'Paris' }),
        delta(0, null),
        frame({ type: 'tool_call_delta', index: 0 }),
      ]);
      expect(events.slice(1)).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":"Paris"}' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '' },
      ]);
    });

    it('ignores unknown event types, and keeps unknown fields as provider metadata of the choice or the call', () => {
      const { events, error } = read([
        frame({ type: 'usage_report', tokens: 4 }),
        frame({ type: 'text', delta: 'x', lang: 'en' }),
        frame({ type: 'tool_call_start', index: 0, id: 'a', name: 'f', kind: 'function' }),
        frame({ type: 'tool_call_end', index: 0, reason: 'done' }),
        DONE,
      ]);
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'content', choice: 0, text: 'x' },
        { type: 'provider-metadata', provider: 'typed-events', choice: 0, fields: { lang: 'en' } },
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' },
        { type: 'provider-metadata', provider: 'typed-events', choice: 0, call: 0, fields: { kind: 'function' } },
        { type: 'provider-metadata', provider: 'typed-events', choice: 0, call: 0, fields: { reason: 'done' } },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
        { type: 'done' },
      ]);
    });

    it('passes unknown event types on as unknown events with unknownEvents', () => {
      const { events, error } = readDialect(typedEvents, [frame({ type: 'usage_report', tokens: 4 }), text('x'), DONE], {
        unknownEvents: true,
      });
      expect(error).toBeUndefined();
      expect(events.slice(0, 2)).toEqual([
        { type: 'unknown', payload: { type: 'usage_report', tokens: 4 } },
        { type: 'content', choice: 0, text: 'x' },
      ]);
    });

    it('ignores frames after [DONE], unless strict', () => {
      expect(read([text('a'), DONE, text('late'), frame('not json')])).toEqual({
        events: [{ type: 'content', choice: 0, text: 'a' }, { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }, { type: 'done' }],
      });
      const { error } = read([text('a'), DONE, text('late')], { strict: true });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe('frame 3: a frame arrived after [DONE]');
    });
  });

  describe('protocol errors', () => {
    it.each([
      ['a delta for a call never started', [delta(0, '{}')], 'frame 1: tool_call_delta for tool call 0, which never started'],
      ['an end for a call never started', [stop(2)], 'frame 1: tool_call_end for tool call 2, which never started'],
      ['a second start of one index', [start(0, 'a', 'f'), start(0, 'b', 'g')], 'frame 2: tool call 0 started twice'],
      [
        'a delta after the call ended',
        [start(0, 'a', 'f'), stop(0), delta(0, '{}')],
        'frame 3: tool_call_delta for tool call 0, which had ended',
      ],
      ['a second end', [start(0, 'a', 'f'), stop(0), stop(0)], 'frame 3: tool_call_end for tool call 0, which had ended'],
      ['a start without an id', [frame({ type: 'tool_call_start', index: 0, name: 'f' })], 'frame 1: tool_call_start 0: id is missing'],
      ['a start with an empty name', [start(0, 'a', '')], 'frame 1: tool_call_start 0: name is ""'],
      [
        'an index that is a string',
        [frame({ type: 'tool_call_start', index: '0', id: 'a', name: 'f' })],
        'frame 1: tool_call_start.index is "0", not a tool-call index',
      ],
      ['a negative index', [start(-1, 'a', 'f')], 'frame 1: tool_call_start.index is -1, not a tool-call index'],
      ['text delta that is a number', [text(5)], 'frame 1: text.delta is 5, not text'],
      ['args that are a number', [start(0, 'a', 'f'), delta(0, 5)], 'frame 2: tool_call_delta 0: args is 5'],
      ['a payload without a type', [frame({ delta: 'x' })], 'frame 1: type is missing'],
      ['data that is not JSON', [frame('{"type":')], 'frame 1: data is not JSON: "{\\"type\\":"'],
      ['data that is a JSON array', [frame('[1]')], 'frame 1: expected a JSON object, got "[1]"'],
    ])('is a ProtocolError for %s', (_name, frames, message) => {
      const { error } = read([...frames, DONE]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe(message);
    });
  });

  describe('provider errors', () => {
    it.each([
      [
        '{"type":"error","error":{...}}',
        frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        'Overloaded',
        'overloaded_error',
        undefined,
      ],
      ['{"error":{...}}', frame({ error: { message: 'boom', type: 'server_error', code: 503 } }), 'boom', 'server_error', 503],
      ['an event: error frame', frame({ message: 'gone', code: 'E1' }, 'error'), 'gone', undefined, 'E1'],
    ])('is a ProviderError for %s, with message, type and code', (_name, errorFrame, message, type, code) => {
      const { error, events } = read([text('a'), errorFrame, text('never')]);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toContain(`at frame 2: ${message}`);
      expect(error).toMatchObject({ type, code, position: { event: 2 } });
      expect(events).toEqual([{ type: 'content', choice: 0, text: 'a' }]);
    });

    it('keeps what arrived before the error as the partial', () => {
      const { error } = assembleText(
        'data: {"type":"text","delta":"Hel"}\n\ndata: {"type":"error","error":{"type":"api_error","message":"down"}}\n\n',
        typedEvents,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ type: 'api_error', partial: { content: 'Hel', finishReason: null } });
    });
  });

  describe('truncation', () => {
    const head = 'data: {"type":"text","delta":"Hi"}\n\ndata: {"type":"tool_call_start","index":0,"id":"a","name":"f"}\n\n';

    it.each([
      ['mid-line', head + 'data: {"type":"tool_call_delta","ind'],
      ['inside tool arguments', head + 'data: {"type":"tool_call_delta","index":0,"args":"{\\"x\\": 1'],
      ['mid-event (no blank line after the last data line)', head + 'data: {"type":"tool_call_delta","index":0,"args":"{\\"x\\""}\n'],
      ['before [DONE], the call never ended', head + 'data: {"type":"tool_call_delta","index":0,"args":"{\\"x\\""}\n\n'],
    ])('is a StreamClosedEarlyError %s, with the partial', (_name, stream) => {
      for (const chunkSize of [1, 3, 1000]) {
        const { error } = assembleText(stream, typedEvents, { chunkSize });
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect(error).toMatchObject({
          partial: { content: 'Hi', finishReason: null, toolCalls: [{ index: 0, id: 'a', name: 'f', complete: false }] },
        });
      }
    });

    it('is a StreamClosedEarlyError before [DONE] after every call ended', () => {
      const { error } = assembleText(head + 'data: {"type":"tool_call_end","index":0}\n\n', typedEvents);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without [DONE] after 3 frames');
      expect(error).toMatchObject({ partial: { toolCalls: [{ id: 'a', complete: true, args: {} }] } });
    });

    it('names the open calls when the stream ends without [DONE] inside one', () => {
      expect((read([start(0, 'a', 'f')]).error as Error).message).toBe(
        'the stream ended without [DONE] after 1 frame (1 tool call still open)',
      );
    });

    it('is a StreamClosedEarlyError at a [DONE] that arrives while a call is open (the stream was cut inside it)', () => {
      const { error, events } = read([start(0, 'a', 'f'), delta(0, '{"x": 1}'), DONE]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('frame 3: [DONE] arrived with 1 tool call never ended');
      expect(events.some((e) => e.type === 'finish' || e.type === 'done')).toBe(false);
    });

    it('keeps the partial of a [DONE] inside a call: the arguments so far, not closed', () => {
      const { error } = assembleText(head + 'data: {"type":"tool_call_delta","index":0,"args":"{}"}\n\ndata: [DONE]\n\n', typedEvents);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ partial: { toolCalls: [{ id: 'a', arguments: '{}', complete: false }] } });
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events and completes after [DONE]', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-t-s-d-e-x---|', {
          t: text('Hi'),
          s: start(4, 'a', 'f'),
          d: delta(4, '{}'),
          e: stop(4),
          x: DONE,
        });
        expectObservable(source.pipe(assembleChunks({ dialect: typedEvents }))).toBe('-t-s-d-e-(fz)|', {
          t: { type: 'content', choice: 0, text: 'Hi' },
          s: { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' },
          d: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
          e: { type: 'tool-call-end', choice: 0, index: 0 },
          f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
          z: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^------------!');
      });
    });

    it('keeps interleaved fragments apart by call', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<SseFrame>('-a-b-c-d-|', {
          a: start(0, 'p', 'f'),
          b: start(1, 'q', 'g'),
          c: delta(1, '{"y":2}'),
          d: delta(0, '{"x":1}'),
        });
        const error = new StreamClosedEarlyError('the stream ended without [DONE] after 4 frames (2 tool calls still open)');
        expectObservable(source.pipe(assembleChunks({ dialect: typedEvents }))).toBe(
          '-a-b-c-d-#',
          {
            a: { type: 'tool-call-delta', choice: 0, index: 0, id: 'p', name: 'f', arguments: '' },
            b: { type: 'tool-call-delta', choice: 0, index: 1, id: 'q', name: 'g', arguments: '' },
            c: { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"y":2}' },
            d: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"x":1}' },
          },
          error,
        );
      });
    });

    it('errors with ProviderError at an error payload and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a--e--b--|', {
          a: text('x'),
          e: frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
          b: text('never'),
        });
        const error = new ProviderError('the provider reported an error at frame 2: Overloaded (overloaded_error)');
        expectObservable(source.pipe(assembleChunks({ dialect: typedEvents }))).toBe(
          '-a--#',
          { a: { type: 'content', choice: 0, text: 'x' } },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('errors with StreamClosedEarlyError at a [DONE] inside a call and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-s--x--t--|', { s: start(0, 'a', 'f'), x: DONE, t: text('never') });
        const error = new StreamClosedEarlyError('frame 2: [DONE] arrived with 1 tool call never ended');
        expectObservable(source.pipe(assembleChunks({ dialect: typedEvents }))).toBe(
          '-s--#',
          { s: { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' } },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes without [DONE]', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<SseFrame>('-t---|', { t: text('x') });
        const error = new StreamClosedEarlyError('the stream ended without [DONE] after 1 frame');
        expectObservable(source.pipe(assembleChunks({ dialect: typedEvents }))).toBe(
          '-t---#',
          { t: { type: 'content', choice: 0, text: 'x' } },
          error,
        );
      });
    });
  });
});
