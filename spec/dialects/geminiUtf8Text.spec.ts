import { Utf8Text } from '../../src/dialects/gemini/geminiUtf8Text';

/** A text made of these pieces. */
function text(...pieces: string[]): Utf8Text {
  const made = new Utf8Text();
  for (const piece of pieces) made.append(piece);
  return made;
}

describe('Utf8Text', () => {
  // "aé–😀b": a is byte 0, é bytes 1-2, – bytes 3-5, 😀 bytes 6-9 (UTF-16 units 3-4), b byte 10.
  const mixed = text('aé', '–😀', 'b');

  it.each([
    [0, 0],
    [1, 1],
    [3, 2],
    [6, 3],
    [10, 5],
    [11, 6],
  ])('turns byte offset %i into UTF-16 offset %i', (byte, unit) => {
    expect(mixed.unitAt(byte)).toBe(unit);
  });

  it.each([2, 4, 5, 7, 8, 9, 12, -1, 1.5])('has no UTF-16 offset for byte offset %s (inside a character, or outside the text)', (byte) => {
    expect(mixed.unitAt(byte)).toBeUndefined();
  });

  it('slices by UTF-16 offsets', () => {
    expect(mixed.slice(1, 5)).toBe('é–😀');
    expect(mixed.slice(3, 3)).toBe('');
  });

  it('keeps a surrogate pair whole where a block would end inside it', () => {
    const long = text('x'.repeat(1023), '😀y');
    expect(long.unitAt(1023)).toBe(1023);
    expect(long.unitAt(1025)).toBeUndefined();
    expect(long.unitAt(1027)).toBe(1025);
    expect(long.slice(1023, 1026)).toBe('😀y');
  });

  it('finds offsets across many blocks, and slices across their edges', () => {
    const many = text(...Array.from({ length: 3000 }, () => 'ab'));
    expect(many.unitAt(5999)).toBe(5999);
    expect(many.unitAt(6000)).toBe(6000);
    expect(many.slice(1020, 1030)).toBe('ababababab');
    expect(many.slice(4094, 4100)).toBe('ababab');
  });

  it('reads text appended after an offset was looked up', () => {
    const growing = text('ab');
    expect(growing.unitAt(2)).toBe(2);
    growing.append('é!');
    expect(growing.unitAt(4)).toBe(3);
    expect(growing.slice(1, 4)).toBe('bé!');
  });
});
