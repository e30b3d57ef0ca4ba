import fc from 'fast-check';
import { TextBuilder } from '../../src/internal/TextBuilder';

describe('TextBuilder', () => {
  it('is null until something is appended, then the text so far', () => {
    const text = new TextBuilder();
    expect(text.value).toBeNull();
    text.append('');
    expect(text.value).toBe('');
    text.append('ab');
    expect(text.value).toBe('ab');
    expect(text.length).toBe(2);
  });

  it('gives the pieces joined, and their length, for pieces of every size: tiny ones gathered into blocks, large ones kept', () => {
    const piece = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ minLength: 200, maxLength: 5000 }), fc.constant('x'.repeat(256)));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        const text = new TextBuilder();
        let expected = '';
        for (const p of pieces) {
          text.append(p);
          expected += p;
          expect(text.length).toBe(expected.length);
        }
        expect(text.value).toBe(pieces.length === 0 ? null : expected);
      }),
      { numRuns: 200 },
    );
  });

  it('starts again from nothing after clear', () => {
    const text = new TextBuilder();
    text.append('a'.repeat(5000));
    text.append('b');
    text.clear();
    expect(text.value).toBeNull();
    expect(text.length).toBe(0);
    text.append('c');
    expect(text.value).toBe('c');
  });
});
