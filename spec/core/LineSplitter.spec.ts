import { LineSink, LineSplitter } from '../../src/frames/LineSplitter';
import { ProtocolError } from '../../src/errors/errors';

// What a line longer than the limit throws: the splitter's `tooLong`, else the sink's, else a
// `ProtocolError` of its own. (The lines themselves are pinned through sseFrames and ndjsonFrames.)
describe('LineSplitter, a line longer than its limit', () => {
  const thrownBy = (splitter: LineSplitter, text: string): unknown => {
    try {
      splitter.push(text);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it("throws the sink's error when the splitter was given none", () => {
    const sink: LineSink = { line: () => undefined, tooLong: (line) => new RangeError(`sink: line ${line}`) };
    const error = thrownBy(new LineSplitter(sink, 4), 'ab\ncdefgh');
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe('sink: line 2');
  });

  it("throws the splitter's own error before the sink's", () => {
    const sink: LineSink = { line: () => undefined, tooLong: () => new RangeError('sink') };
    const error = thrownBy(new LineSplitter(sink, 4, (line) => new TypeError(`given: line ${line}`)), 'abcdefgh');
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('given: line 1');
  });

  it('throws a ProtocolError naming the line when neither says', () => {
    const error = thrownBy(new LineSplitter(() => undefined, 4), 'ab\ncd\nefghij');
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).message).toBe('line 3 is too long: more than 4 characters');
    expect((error as ProtocolError).reason).toBe('too-large');
  });
});
