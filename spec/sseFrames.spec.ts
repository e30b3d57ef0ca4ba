import fc from 'fast-check';
import { Observable, defer, of, retry, take, throwError, concat } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { SseFrame, SseParser, SseParserOptions } from '../src/frames/SseParser';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf, splitAt, textChunksOf, utf8 } from './support/chunking';
import { runSync } from './support/collect';

/** Parses `pieces` with the core; returns the frames and the error, if any. */
function parse(pieces: string | readonly string[], options?: SseParserOptions): { frames: SseFrame[]; error?: unknown } {
  const frames: SseFrame[] = [];
  const parser = new SseParser((frame) => frames.push(frame), options);
  try {
    for (const piece of typeof pieces === 'string' ? [pieces] : pieces) parser.push(piece);
    parser.end();
  } catch (error) {
    return { frames, error };
  }
  return { frames };
}

const message = (data: string, id = ''): SseFrame => ({ event: 'message', data, id });

describe('sseFrames', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('as an operator (marbles)', () => {
    it('emits a frame when its blank line arrives', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--b--c-----|', { a: 'data: he', b: 'llo\n', c: '\ndata: x\n\n' });
        const expected = '   -------(yz)--|';
        expectObservable(source.pipe(sseFrames())).toBe(expected, {
          y: message('hello'),
          z: message('x'),
        });
        expectSubscriptions(source.subscriptions).toBe('^------------!');
      });
    });

    it('dispatches a final block that lacks its blank line when the source completes', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a--|', { a: 'data: [DONE]\n' });
        expectObservable(source.pipe(sseFrames())).toBe('----(x|)', { x: message('[DONE]') });
      });
    });

    it('errors with StreamClosedEarlyError when the source completes mid-line', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a--|', { a: 'data: 1\n\ndata: {"cho' });
        const error = new StreamClosedEarlyError('the stream ended mid-line: line 3 (event 2) has no line end');
        expectObservable(source.pipe(sseFrames())).toBe('-x--#', { x: message('1') }, error);
      });
    });

    it('passes an error from the source through', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--#', { a: 'data: 1\n\n' }, new Error('reset'));
        expectObservable(source.pipe(sseFrames())).toBe('-x--#', { x: message('1') }, new Error('reset'));
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('never emits for a never source, and completes for an empty one', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        expectObservable(cold('-').pipe(sseFrames())).toBe('-');
        expectObservable(cold('|').pipe(sseFrames())).toBe('|');
      });
    });

    it('lets an early unsubscribe reach the source', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('-a--b--c--|', { a: 'data: 1\n\n', b: 'data: 2\n\n', c: 'data: 3\n\n' });
        expectObservable(source.pipe(sseFrames()), '-----!').toBe('-x--y-', { x: message('1'), y: message('2') });
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<string>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(`data: ${i}\n\n`);
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(sseFrames(), take(3)));
      expect(outcome.values.map((frame) => frame.data)).toEqual(['0', '1', '2']);
      expect(produced).toEqual([0, 1, 2]);
    });

    it('starts from fresh state on resubscription (no stale line, no stale id)', () => {
      let attempt = 0;
      const source = defer(() =>
        attempt++ === 0
          ? concat(
              of('id: 7\ndata: half'),
              throwError(() => new Error('reset')),
            )
          : of('data: whole\n\n'),
      );
      const outcome = runSync([0], () => source.pipe(sseFrames(), retry(1)));
      expect(outcome).toEqual({ values: [message('whole')] });
    });
  });

  describe('line ends', () => {
    it.each([
      ['LF', 'data: a\n\ndata: b\n\n'],
      ['CRLF', 'data: a\r\n\r\ndata: b\r\n\r\n'],
      ['CR', 'data: a\r\rdata: b\r\r'],
      ['mixed', 'data: a\r\n\rdata: b\n\r\n'],
    ])('accepts %s', (_name, stream) => {
      expect(parse(stream)).toEqual({ frames: [message('a'), message('b')] });
    });

    it('reads a CR ending one chunk and an LF starting the next as one line end', () => {
      expect(parse(['data: a\r', '\n\r', '\ndata: b\r', '\n', '\r\n'])).toEqual({
        frames: [message('a'), message('b')],
      });
    });

    it('dispatches exactly once for a blank CR line that ends a chunk', () => {
      const frames: SseFrame[] = [];
      const parser = new SseParser((frame) => frames.push(frame));
      parser.push('data: a\r\n\r');
      expect(frames).toEqual([message('a')]); // at once, without waiting to see whether an LF follows
      parser.push('\ndata: b\n\n');
      parser.end();
      expect(frames).toEqual([message('a'), message('b')]);
    });

    it('reads two CRs as two line ends', () => {
      expect(parse('data: a\r\r')).toEqual({ frames: [message('a')] });
      expect(parse(['data: a\r', '\r'])).toEqual({ frames: [message('a')] });
    });

    it('drops one leading U+FEFF, also as a chunk of its own, and keeps a second', () => {
      expect(parse('\ufeffdata: a\n\n')).toEqual({ frames: [message('a')] });
      expect(parse(['\ufeff', 'data: a\n\n'])).toEqual({ frames: [message('a')] });
      // A second BOM starts the first line, whose field name is then "\ufeffdata": unknown, ignored.
      expect(parse('\ufeff\ufeffdata: a\n\ndata: b\n\n')).toEqual({ frames: [message('b')] });
    });
  });

  describe('fields', () => {
    it.each([
      ['one space after the colon is removed', 'data: a\n\n', 'a'],
      ['no space after the colon', 'data:a\n\n', 'a'],
      ['only one space is removed', 'data:  a\n\n', ' a'],
      ['a tab is not a space', 'data:\ta\n\n', '\ta'],
      ['later colons belong to the value', 'data: a: b:c\n\n', 'a: b:c'],
      ['a line without a colon is a field with an empty value', 'data\n\n', ''],
      ['data lines are joined with LF', 'data: a\ndata: b\ndata\n\n', 'a\nb\n'],
      ['an empty data line keeps its place', 'data:\ndata: b\n\n', '\nb'],
    ])('%s', (_rule, stream, data) => {
      expect(parse(stream)).toEqual({ frames: [message(data)] });
    });

    it('ignores comment lines, including a bare colon', () => {
      expect(parse(': keep-alive\n:\ndata: a\n: between\ndata: b\n\n')).toEqual({ frames: [message('a\nb')] });
    });

    it('ignores unknown fields, and field names are case-sensitive', () => {
      expect(parse('Data: no\nDATA: no\nfoo: bar\ndata: yes\n\n')).toEqual({ frames: [message('yes')] });
      expect(parse('Event: x\nID: 4\ndata: a\n\n')).toEqual({ frames: [message('a')] });
    });

    it('uses the event field as the frame type, resetting it after each dispatch', () => {
      expect(parse('event: delta\ndata: a\n\ndata: b\n\n')).toEqual({
        frames: [{ event: 'delta', data: 'a', id: '' }, message('b')],
      });
    });

    it('reads an empty event field as "message"', () => {
      expect(parse('event:\ndata: a\n\n')).toEqual({ frames: [message('a')] });
    });

    it('does not dispatch a block without a data line, but still resets its event type', () => {
      expect(parse('event: ping\n\ndata: a\n\n')).toEqual({ frames: [message('a')] });
      expect(parse('event: ping\n\n\n\n')).toEqual({ frames: [] });
    });

    it('keeps the last event id across events, also from a block with no data', () => {
      expect(parse('id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\n')).toEqual({
        frames: [message('a', '1'), message('b', '1'), message('c', '2'), message('d', '')],
      });
    });

    it('ignores an id that contains U+0000', () => {
      expect(parse('id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n')).toEqual({
        frames: [message('a', '1'), message('b', '1')],
      });
    });

    it('takes retry only when it is all ASCII digits, and keeps it for later frames', () => {
      expect(parse('retry: 1500\ndata: a\n\nretry: 2e3\ndata: b\n\nretry: -1\nretry: 12 \nretry:\ndata: c\n\n')).toEqual({
        frames: [
          { event: 'message', data: 'a', id: '', retry: 1500 },
          { event: 'message', data: 'b', id: '', retry: 1500 },
          { event: 'message', data: 'c', id: '', retry: 1500 },
        ],
      });
      expect(parse('data: a\n\nretry: 300\n\ndata: b\n\n').frames[1]).toEqual({
        event: 'message',
        data: 'b',
        id: '',
        retry: 300,
      });
      expect(parse('retry: ５\ndata: a\n\n').frames[0]).toEqual(message('a'));
    });
  });

  describe('end of input', () => {
    it('is a StreamClosedEarlyError when a line has no line end, with what arrived as partial', () => {
      const { frames, error } = parse(['data: 1\n\n', 'data: a\n', 'data: {"choi']);
      expect(frames).toEqual([message('1')]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      const early = error as StreamClosedEarlyError;
      expect(early.message).toBe('the stream ended mid-line: line 4 (event 2) has no line end');
      expect(early.position).toEqual({ line: 4, event: 2 });
      expect(early.partial).toEqual({ data: 'a', incompleteLine: 'data: {"choi' });
    });

    it(
      "is a ProviderError with the provider's message when the unended " +
        'line is a JSON error object, as servers answer a refused request',
      () => {
        // llama.cpp's answer to a prompt over its context, as it sends it: one line, no line end.
        const body =
          '{"error":{"code":400,"message":"the request exceeds the available ' +
          'context size, try increasing it","type":"exceed_context_size_error"}}';
        for (const pieces of [[body], [body.slice(0, 10), body.slice(10)]]) {
          const { frames, error } = parse(pieces);
          expect(frames).toEqual([]);
          expect(error).toBeInstanceOf(ProviderError);
          expect(error).toMatchObject({
            message:
              'the provider answered with an error instead of a stream: the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
            code: 400,
            status: undefined,
            body: JSON.parse(body),
            position: { line: 1, event: 1 },
          });
        }
        expect(parse('{"error":"model not found"}').error).toMatchObject({
          message: 'the provider answered with an error instead of a stream: model not found',
        });
      },
    );

    it('keeps the standard reading for every other unended line: JSON without an error member, a cut error object, text', () => {
      for (const text of ['{"choices":[]}', '{"error":{"message":"cut', 'Bad Gateway', '{"error":null}']) {
        const { error } = parse(text);
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect((error as Error).message).toBe('the stream ended mid-line: line 1 (event 1) has no line end');
      }
    });

    // The line is a field the standard ignores; at the end of a body of no event it is the error it says.
    it('reads a JSON error object on a complete line, in a body of no event, as the error at the end', () => {
      const { frames, error } = parse('{"error":{"message":"no"}}\n');
      expect(frames).toEqual([]);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toBe('the provider answered with an error instead of a stream: no');
    });

    it('is a StreamClosedEarlyError for a comment cut mid-line too', () => {
      expect(parse(': keep-al').error).toBeInstanceOf(StreamClosedEarlyError);
    });

    it('dispatches a final block whose lines are complete but which never got its blank line', () => {
      expect(parse('data: a\n\ndata: [DONE]\n')).toEqual({ frames: [message('a'), message('[DONE]')] });
      expect(parse('data: [DONE]\r')).toEqual({ frames: [message('[DONE]')] });
    });

    it('is a StreamClosedEarlyError for that block under requireBlankLineAtEnd', () => {
      const { frames, error } = parse('data: a\n\ndata: [DONE]\n', { requireBlankLineAtEnd: true });
      expect(frames).toEqual([message('a')]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as StreamClosedEarlyError).message).toBe('the stream ended inside event 2: no blank line after line 3');
      expect((error as StreamClosedEarlyError).partial).toEqual({ data: '[DONE]', incompleteLine: '' });
    });

    it('ends cleanly after a complete stream, an empty one, or only comments', () => {
      expect(parse('data: a\n\n', { requireBlankLineAtEnd: true })).toEqual({ frames: [message('a')] });
      expect(parse('')).toEqual({ frames: [] });
      expect(parse(': hi\n')).toEqual({ frames: [] });
    });
  });

  describe('size cap', () => {
    it('is a ProtocolError for a pending line longer than maxEventSize', () => {
      const { error } = parse(['data: ', 'x'.repeat(50), 'x'.repeat(50)], { maxEventSize: 80 });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe('line too large: more than 80 characters at line 1 (event 1)');
    });

    it('is a ProtocolError for a complete line inside one chunk', () => {
      const { frames, error } = parse(`data: a\n\ndata: ${'x'.repeat(100)}\n\n`, { maxEventSize: 80 });
      expect(frames).toEqual([message('a')]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).position).toEqual({ line: 3, event: 2 });
    });

    it('is a ProtocolError for an event of many short data lines', () => {
      const { error } = parse('data: 0123456789\n'.repeat(10) + '\n', { maxEventSize: 80 });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe('event too large: more than 80 characters at line 8 (event 1)');
    });

    it('accepts a line and an event exactly at the cap', () => {
      expect(parse(`data: ${'x'.repeat(74)}\n\n`, { maxEventSize: 80 }).frames[0]?.data).toHaveLength(74);
    });

    it('keeps a line of thousands of one-character pieces whole and in order, also when it is cut', () => {
      const value = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
      const pieces = [...`data: ${value}`];
      expect(parse([...pieces, '\n\n']).frames).toEqual([message(value)]);
      const cut = parse(pieces);
      expect(cut.error).toBeInstanceOf(StreamClosedEarlyError);
      expect((cut.error as StreamClosedEarlyError).partial).toEqual({ data: '', incompleteLine: `data: ${value}` });
    });

    it('has a generous default (16 MiB)', () => {
      const big = 'y'.repeat(4 * 1024 * 1024);
      expect(parse(['data: ', big, big, '\n\n']).frames[0]?.data).toHaveLength(8 * 1024 * 1024);
      expect(parse(['data: ', big, big, big, big, 'z']).error).toBeInstanceOf(ProtocolError);
    });
  });

  describe('over any chunking', () => {
    const streams: Record<string, string> = {
      'LF, comments and multi-line data': ': hello\n\nid: 1\nevent: delta\ndata: {"a":1}\ndata: {"b":2}\n\ndata: [DONE]\n\n',
      'CRLF and multi-byte text': 'data: café ☕ 中文 😀\r\n\r\nevent: x\r\ndata: ü\r\n\r\n',
      'CR only, retry and ids': 'retry: 10\rid: a\rdata: 1\r\rdata:2\r\r:c\rdata: 3\r\r',
      'BOM, mixed ends, and a last block without its blank line': '\ufeffdata: a\r\n\rdata: b\n\r\ndata: c\n',
    };
    const whole = (text: string): SseFrame[] => {
      const result = parse(text);
      expect(result.error).toBeUndefined();
      return result.frames;
    };

    it.each(Object.entries(streams))('%s: the same frames at every text chunk size from 1 to 16', (_name, text) => {
      const expected = whole(text);
      expect(expected.length).toBeGreaterThan(1);
      for (let size = 1; size <= 16; size++) expect(parse(textChunksOf(text, size))).toEqual({ frames: expected });
    });

    it.each(Object.entries(streams))('%s: the same frames from bytes at every chunk size from 1 to 16', (_name, text) => {
      const expected = whole(text);
      for (let size = 1; size <= 16; size++) {
        const outcome = runSync(chunksOf(utf8(text), size), (source) => source.pipe(decodeUtf8(), sseFrames()));
        expect(outcome).toEqual({ values: expected });
      }
    });

    it('gives the same frames under random splits of text and of bytes (fast-check)', () => {
      const texts = Object.values(streams);
      fc.assert(
        fc.property(fc.constantFrom(...texts), fc.array(fc.nat(200), { maxLength: 12 }), (text, cuts) => {
          const expected = whole(text);
          expect(parse(splitAt(text, cuts))).toEqual({ frames: expected });
          const bytes = utf8(text);
          const outcome = runSync(splitAt(bytes, cuts), (source) => source.pipe(decodeUtf8(), sseFrames()));
          expect(outcome).toEqual({ values: expected });
        }),
        { numRuns: 300 },
      );
    });

    it('gives the same frames for generated streams under random splits (fast-check)', () => {
      const line = fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 8 }).map((value) => `data: ${value.replace(/[\r\n]/g, '')}`),
        fc.constantFrom('event: x', 'id: 9', ': comment', 'retry: 5', 'data', ''),
      );
      const lineEnd = fc.constantFrom('\n', '\r', '\r\n');
      const stream = fc.array(fc.tuple(line, lineEnd), { maxLength: 12 }).map((lines) => lines.map(([l, e]) => l + e).join(''));
      fc.assert(
        fc.property(stream, fc.array(fc.nat(120), { maxLength: 10 }), (text, cuts) => {
          expect(parse(splitAt(text, cuts))).toEqual(parse(text));
        }),
        { numRuns: 500 },
      );
    });
  });
});
