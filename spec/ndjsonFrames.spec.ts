import { TestScheduler } from 'rxjs/testing';
import { NdjsonParser } from '../src/frames/NdjsonParser';
import { SseFrame } from '../src/frames/SseParser';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { ndjsonFrames } from '../src/frames/ndjsonFrames';
import { splitAt } from './support/chunking';
import fc from 'fast-check';

const line = (data: string): SseFrame => ({ event: 'message', data, id: '' });

function parse(pieces: readonly string[], maxLineLength?: number): { frames: SseFrame[]; error?: unknown } {
  const frames: SseFrame[] = [];
  const parser = new NdjsonParser((frame) => frames.push(frame), maxLineLength === undefined ? {} : { maxLineLength });
  try {
    for (const piece of pieces) parser.push(piece);
    parser.end();
  } catch (error) {
    return { frames, error };
  }
  return { frames };
}

describe('ndjsonFrames', () => {
  it('emits one frame per line as it completes (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a--b--c--|', { a: '{"a":1}\n{"b"', b: ':2}', c: '\n' });
      expectObservable(source.pipe(ndjsonFrames())).toBe('-x-----y--|', { x: line('{"a":1}'), y: line('{"b":2}') });
      expectSubscriptions(source.subscriptions).toBe('^---------!');
    });
  });

  it('errors with StreamClosedEarlyError for a last line without its line end (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a--|', { a: '{"a":1}\n{"done":tr' });
      const error = new StreamClosedEarlyError('the stream ended mid-line: line 2 has no line end');
      expectObservable(source.pipe(ndjsonFrames())).toBe('-x--#', { x: line('{"a":1}') }, error);
    });
  });

  it('accepts LF, CRLF and CR line ends and skips blank lines', () => {
    expect(parse(['{"a":1}\r\n\r\n{"b":2}\r{"c":3}\n  \n'])).toEqual({
      frames: [line('{"a":1}'), line('{"b":2}'), line('{"c":3}')],
    });
  });

  it('keeps what arrived of the cut line as partial', () => {
    const { error } = parse(['{"a":1}\n{"done":', 'tr']);
    expect((error as StreamClosedEarlyError).partial).toBe('{"done":tr');
  });

  it("is a ProviderError with the provider's message when the unended last line is a JSON error object", () => {
    const { frames, error } = parse(['{"message":{"content":"a"},"done":false}\n', '{"error":"model \'llama9\' not found"}']);
    expect(frames).toEqual([line('{"message":{"content":"a"},"done":false}')]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      message: "the provider answered with an error instead of a stream: model 'llama9' not found",
      position: { line: 2 },
    });
  });

  it('is a ProtocolError for a line longer than maxLineLength', () => {
    const { error } = parse(['{"a":"', 'x'.repeat(40)], 32);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe('line 1 is too long: more than 32 characters');
  });

  it('gives the same frames under any split (fast-check)', () => {
    const text = '{"message":{"content":"héllo ☕"},"done":false}\r\n{"done":true}\n\n{"x":[1,2]}\r';
    const whole = parse([text]);
    expect(whole.frames).toHaveLength(3);
    fc.assert(
      fc.property(fc.array(fc.nat(text.length), { maxLength: 10 }), (cuts) => {
        expect(parse(splitAt(text, cuts))).toEqual(whole);
      }),
    );
  });
});
