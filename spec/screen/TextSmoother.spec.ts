import fc from 'fast-check';
import { TextSmoother } from '../../src/screen/TextSmoother';

// The core of smoothText: text goes in as it arrived, and comes out a word (or a line) at a time,
// a unit released only once it is whole.

/** Every unit `next` releases now, in order. */
function units(smoother: TextSmoother): string[] {
  const out: string[] = [];
  for (let unit = smoother.next(); unit !== undefined; unit = smoother.next()) out.push(unit);
  return out;
}

describe('TextSmoother: words', () => {
  it.each<[string, string[], string[], string]>([
    ['a word is released with the spaces after it once the next word has begun', ['Hello world'], ['Hello '], 'world'],
    ['a word cut by the chunking waits for its end', ['Hel', 'lo wo', 'rld, and more'], ['Hello ', 'world, ', 'and '], 'more'],
    ['punctuation and spaces go with the word before them', ['Yes! No? Maybe.'], ['Yes! ', 'No? '], 'Maybe.'],
    ['text before the first word goes with it', ['  — so it goes'], ['  — so ', 'it '], 'goes'],
    ['a contraction is one word, not cut at its apostrophe', ["can't", ' stop'], ["can't "], 'stop'],
    ['a number with a decimal point is one word', ['3.', '14 is pi'], ['3.14 ', 'is '], 'pi'],
    ['words without spaces between them (Japanese) are still units', ['今日は晴れです'], ['今日', 'は', '晴れ'], 'です'],
    ['no word yet: nothing is released', ['   '], [], '   '],
  ])('%s', (_case, chunks, released, rest) => {
    const smoother = new TextSmoother({ chunking: 'word', locale: 'ja' });
    const out: string[] = [];
    for (const chunk of chunks) {
      smoother.push(chunk);
      out.push(...units(smoother));
    }
    expect([out, smoother.rest()]).toEqual([released, rest]);
    expect(smoother.rest()).toBe('');
  });
});

describe('TextSmoother: lines', () => {
  it('releases each line with its line break, and holds a line until it ends', () => {
    const smoother = new TextSmoother({ chunking: 'line' });
    smoother.push('first line\nsecond');
    expect(units(smoother)).toEqual(['first line\n']);
    smoother.push(' line\n\nthird');
    expect(units(smoother)).toEqual(['second line\n', '\n']);
    expect(smoother.rest()).toBe('third');
  });
});

describe('TextSmoother: its cap', () => {
  it('releases all it holds at once when more than maxPendingChars wait, so that the screen never lags by more', () => {
    const smoother = new TextSmoother({ chunking: 'line', maxPendingChars: 8 });
    smoother.push('a long line');
    expect(smoother.pending).toBe(11);
    expect(units(smoother)).toEqual(['a long line']);
    expect(smoother.pending).toBe(0);
  });
});

describe('TextSmoother: the text is the text', () => {
  // Words, spaces, line breaks, punctuation, letters of several scripts and characters past the BMP.
  const pieces = fc.constantFrom('a', 'word', ' ', '  ', '\n', '.', ',', "'", '3', 'é', '今日', 'は', '😀', '-', '\t');
  const text = fc.array(pieces, { maxLength: 30 }).map((list) => list.join(''));

  it.each(['word', 'line'] as const)('%s: released units and the rest, joined, are the text pushed, for any chunking', (chunking) => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 6 }), fc.array(fc.boolean(), { maxLength: 8 }), (whole, cuts, asks) => {
        const smoother = new TextSmoother({ chunking, maxPendingChars: 12 });
        const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        let out = '';
        let from = 0;
        [...points, whole.length].forEach((to, i) => {
          smoother.push(whole.slice(from, to));
          from = to;
          if (asks[i] !== false) out += units(smoother).join('');
        });
        expect(out + smoother.rest()).toBe(whole);
      }),
    );
  });

  it('the property can fail: a smoother that lost a character would differ', () => {
    const smoother = new TextSmoother({ chunking: 'word' });
    smoother.push('Hello world');
    const out = units(smoother).join('');
    expect(out + smoother.rest().slice(1)).not.toBe('Hello world');
  });
});
