import fc from 'fast-check';
import {
  TranscriptPublisher,
  Utf8TranscriptPublisher,
  transcriptCommonPrefix,
  transcriptPublishableEnd,
} from '../../src/messages/TranscriptPublisher';
import { utf8 } from '../support/chunking';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

/** Publishes each transcript in turn; returns each call's delta and revision offset. */
function publishAll(transcripts: readonly string[]): Array<[delta: string, revisedFrom: number | null]> {
  const publisher = new TranscriptPublisher();
  return transcripts.map((transcript) => {
    const { delta, revisedFrom } = publisher.publishRevision(transcript);
    return [delta, revisedFrom];
  });
}

/** Like {@link publishAll} for bytes; deltas as plain arrays so that failures print readably. */
function publishAllBytes(transcripts: readonly Uint8Array[]): Array<[delta: number[], revisedFrom: number | null]> {
  const publisher = new Utf8TranscriptPublisher();
  return transcripts.map((transcript) => {
    const { delta, revisedFrom } = publisher.publishRevision(transcript);
    return [Array.from(delta), revisedFrom];
  });
}

describe('TranscriptPublisher (strings)', () => {
  const rules: Array<[rule: string, transcripts: string[], expected: Array<[string, number | null]>]> = [
    ['publishes the whole first transcript', ['hello'], [['hello', null]]],
    [
      'publishes only what is new',
      ['he', 'hell', 'hello'],
      [
        ['he', null],
        ['ll', null],
        ['o', null],
      ],
    ],
    [
      'publishes nothing for an unchanged transcript',
      ['hi', 'hi'],
      [
        ['hi', null],
        ['', null],
      ],
    ],
    [
      'publishes nothing for an empty first transcript',
      ['', 'a'],
      [
        ['', null],
        ['a', null],
      ],
    ],
    [
      'holds a trailing high surrogate back until its low half arrives',
      ['a\ud83d', 'a\ud83d\ude00b'],
      [
        ['a', null],
        ['\ud83d\ude00b', null],
      ],
    ],
    [
      'holds back a transcript that is only a high surrogate',
      ['\ud83d', '\ud83d\ude00'],
      [
        ['', null],
        ['\ud83d\ude00', null],
      ],
    ],
    [
      'publishes a lone high surrogate followed by another high one (only the last may still pair)',
      ['x\ud83d\ud83d', 'x\ud83d\ud83d\ude00'],
      [
        ['x\ud83d', null],
        ['\ud83d\ude00', null],
      ],
    ],
    ['publishes a lone low surrogate (nothing can complete it)', ['a\ude00'], [['a\ude00', null]]],
    [
      'restarts at the divergence when published text is revised',
      ['hello', 'help me'],
      [
        ['hello', null],
        ['p me', 3],
      ],
    ],
    [
      'reports a revision that only shortens the text, with an empty delta',
      ['hello', 'hel'],
      [
        ['hello', null],
        ['', 3],
      ],
    ],
    [
      'reports a revision that rewrites everything from offset 0',
      ['abc', 'xyz'],
      [
        ['abc', null],
        ['xyz', 0],
      ],
    ],
    [
      'backs a revision inside a surrogate pair off to the start of the pair',
      ['a\ud83d\ude00', 'a\ud83d\ude01'],
      [
        ['a\ud83d\ude00', null],
        ['\ud83d\ude01', 1],
      ],
    ],
    [
      'backs off when the revised transcript ends inside the pair that was published',
      ['a\ud83d\ude00', 'a\ud83d'],
      [
        ['a\ud83d\ude00', null],
        ['', 1],
      ],
    ],
    [
      'does not count a held-back high surrogate that changes as a revision',
      ['a\ud83d', 'a\ud83cx'],
      [
        ['a', null],
        ['\ud83cx', null],
      ],
    ],
    [
      'is not fooled by a published lone high surrogate at the end of a shorter transcript',
      ['x\ud83d\ud83d', 'x\ud83d'],
      [
        ['x\ud83d', null],
        ['', null],
      ],
    ],
  ];

  it.each(rules)('%s', (_rule, transcripts, expected) => {
    expect(publishAll(transcripts)).toEqual(expected);
  });

  it('publish returns just the delta', () => {
    const publisher = new TranscriptPublisher();
    expect(publisher.publish('Hel')).toBe('Hel');
    expect(publisher.publish('Hello \ud83d')).toBe('lo ');
    expect(publisher.publish('Hello \ud83d\ude00')).toBe('\ud83d\ude00');
    expect(publisher.publish('Help')).toBe('p');
  });

  it('published trails the transcript while a high surrogate is held back', () => {
    const publisher = new TranscriptPublisher();
    publisher.publish('ok \ud83d');
    expect(publisher.published).toBe('ok ');
    expect(publisher.heldBack).toBe(1);
    publisher.publish('ok \ud83d\ude00');
    expect(publisher.published).toBe('ok \ud83d\ude00');
    expect(publisher.heldBack).toBe(0);
  });

  it('after a revision, published is the common prefix followed by the new delta', () => {
    const publisher = new TranscriptPublisher();
    publisher.publish('The cat sat');
    expect(publisher.publishRevision('The car')).toEqual({ delta: 'r', revisedFrom: 6 });
    expect(publisher.published).toBe('The car');
    // The next transcript extends the revised text, not the text that went out before it.
    expect(publisher.publishRevision('The car park')).toEqual({ delta: ' park', revisedFrom: null });
    expect(publisher.published).toBe('The car park');
  });

  it('reset forgets what was published and what was held back', () => {
    const publisher = new TranscriptPublisher();
    publisher.publish('first \ud83d');
    publisher.reset();
    expect(publisher.published).toBe('');
    expect(publisher.heldBack).toBe(0);
    expect(publisher.publishRevision('second')).toEqual({ delta: 'second', revisedFrom: null });
  });

  describe('a surrogate pair split at every position', () => {
    // 'a😀b' is four code units: a, high, low, b. The character boundaries are 0, 1, 3 and 4.
    const text = 'a\ud83d\ude00b';
    const cases: Array<[cut: number, first: string, second: string]> = [
      [0, '', 'a\ud83d\ude00b'],
      [1, 'a', '\ud83d\ude00b'],
      [2, 'a', '\ud83d\ude00b'],
      [3, 'a\ud83d\ude00', 'b'],
      [4, 'a\ud83d\ude00b', ''],
    ];
    it.each(cases)('cut at %i', (cut, first, second) => {
      const publisher = new TranscriptPublisher();
      expect(publisher.publish(text.slice(0, cut))).toBe(first);
      expect(publisher.publish(text)).toBe(second);
    });
  });

  it('concatenated deltas equal the final string for any growing prefixes (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), fc.array(fc.nat(60), { maxLength: 10 }), (text, cuts) => {
        const publisher = new TranscriptPublisher();
        const deltas: string[] = [];
        for (const cut of [...cuts].sort((a, b) => a - b)) deltas.push(publisher.publish(text.slice(0, cut)));
        deltas.push(publisher.publish(text));
        expect(deltas.join('')).toBe(text);
        for (const delta of deltas) {
          // No delta may start with the low half or end with the high half of a pair.
          expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(delta)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('Utf8TranscriptPublisher (bytes)', () => {
  const rules: Array<[rule: string, transcripts: Uint8Array[], expected: Array<[number[], number | null]>]> = [
    [
      'publishes only what is new',
      [bytes(0x61), bytes(0x61, 0x62, 0x63)],
      [
        [[0x61], null],
        [[0x62, 0x63], null],
      ],
    ],
    [
      'publishes nothing for an unchanged transcript',
      [bytes(0x61), bytes(0x61)],
      [
        [[0x61], null],
        [[], null],
      ],
    ],
    [
      'holds an incomplete two-byte sequence back',
      [bytes(0x63, 0x61, 0x66, 0xc3), bytes(0x63, 0x61, 0x66, 0xc3, 0xa9)],
      [
        [[0x63, 0x61, 0x66], null],
        [[0xc3, 0xa9], null],
      ],
    ],
    [
      'does not hold back bytes that can never complete a character',
      [bytes(0x61, 0xe0, 0x80), bytes(0x61, 0xff), bytes(0x61, 0xff, 0xc0)],
      [
        [[0x61, 0xe0, 0x80], null],
        [[0xff], 1],
        [[0xc0], null],
      ],
    ],
    [
      'restarts at the divergence when published bytes are revised',
      [bytes(0x61, 0x62, 0x63), bytes(0x61, 0x78)],
      [
        [[0x61, 0x62, 0x63], null],
        [[0x78], 1],
      ],
    ],
    [
      'backs a revision inside a two-byte character off to its first byte (é to è)',
      [bytes(0x61, 0xc3, 0xa9), bytes(0x61, 0xc3, 0xa8)],
      [
        [[0x61, 0xc3, 0xa9], null],
        [[0xc3, 0xa8], 1],
      ],
    ],
    [
      'backs a revision inside a three-byte character off to its first byte (中 to 丫)',
      [bytes(0x61, 0xe4, 0xb8, 0xad), bytes(0x61, 0xe4, 0xb8, 0xab)],
      [
        [[0x61, 0xe4, 0xb8, 0xad], null],
        [[0xe4, 0xb8, 0xab], 1],
      ],
    ],
    [
      'backs a revision inside a four-byte character off to its first byte (😀 to 😁)',
      [bytes(0x61, 0xf0, 0x9f, 0x98, 0x80), bytes(0x61, 0xf0, 0x9f, 0x98, 0x81)],
      [
        [[0x61, 0xf0, 0x9f, 0x98, 0x80], null],
        [[0xf0, 0x9f, 0x98, 0x81], 1],
      ],
    ],
    [
      'reports a transcript cut back into a published character as a revision at its start',
      [bytes(0x61, 0xe2, 0x82, 0xac), bytes(0x61, 0xe2, 0x82), bytes(0x61, 0xe2, 0x82, 0xac)],
      [
        [[0x61, 0xe2, 0x82, 0xac], null],
        [[], 1],
        [[0xe2, 0x82, 0xac], null],
      ],
    ],
  ];

  it.each(rules)('%s', (_rule, transcripts, expected) => {
    expect(publishAllBytes(transcripts)).toEqual(expected);
  });

  describe('multi-byte characters split at every position', () => {
    // 'a', the character, 'b': the boundaries are 0, 1, 1 + n and 2 + n, written out per character.
    const characters: Array<[name: string, encoded: number[], boundaries: number[]]> = [
      ['é (2 bytes)', [0xc3, 0xa9], [0, 1, 3, 4]],
      ['€ (3 bytes)', [0xe2, 0x82, 0xac], [0, 1, 4, 5]],
      ['😀 (4 bytes)', [0xf0, 0x9f, 0x98, 0x80], [0, 1, 5, 6]],
    ];
    it.each(characters)('%s', (_name, encoded, boundaries) => {
      const whole = bytes(0x61, ...encoded, 0x62);
      for (let cut = 0; cut <= whole.length; cut++) {
        const publisher = new Utf8TranscriptPublisher();
        const first = publisher.publish(whole.subarray(0, cut));
        const safe = Math.max(...boundaries.filter((boundary) => boundary <= cut));
        expect([cut, Array.from(first)]).toEqual([cut, Array.from(whole.subarray(0, safe))]);
        expect([cut, publisher.heldBack]).toEqual([cut, cut - safe]);
        const second = publisher.publish(whole);
        expect([cut, Array.from(second)]).toEqual([cut, Array.from(whole.subarray(safe))]);
      }
    });
  });

  it('published trails the transcript while a sequence is held back', () => {
    const publisher = new Utf8TranscriptPublisher();
    publisher.publish(bytes(0x61, 0xf0, 0x9f, 0x98));
    expect(Array.from(publisher.published)).toEqual([0x61]);
    expect(publisher.heldBack).toBe(3);
  });

  it('after a revision, published is the common prefix followed by the new delta', () => {
    const publisher = new Utf8TranscriptPublisher();
    publisher.publish(utf8('cafés'));
    expect(Array.from(publisher.publishRevision(utf8('cafè')).delta)).toEqual([0xc3, 0xa8]);
    expect(Array.from(publisher.published)).toEqual([0x63, 0x61, 0x66, 0xc3, 0xa8]);
  });

  it('neither keeps nor changes the transcript it is given, and returns plain copies', () => {
    const publisher = new Utf8TranscriptPublisher();
    const reused = Buffer.from('abc');
    const delta = publisher.publish(reused);
    reused.fill(0x7a);
    expect(Array.from(delta)).toEqual([0x61, 0x62, 0x63]);
    expect(Array.from(publisher.published)).toEqual([0x61, 0x62, 0x63]);
    expect(Buffer.isBuffer(delta)).toBe(false);
    const published = publisher.published;
    published[0] = 0x7a;
    expect(Array.from(publisher.published)).toEqual([0x61, 0x62, 0x63]);
  });

  it('reset forgets what was published and what was held back', () => {
    const publisher = new Utf8TranscriptPublisher();
    publisher.publish(bytes(0x61, 0xc3));
    publisher.reset();
    expect(publisher.published.length).toBe(0);
    expect(publisher.heldBack).toBe(0);
    const { delta, revisedFrom } = publisher.publishRevision(bytes(0x62));
    expect([Array.from(delta), revisedFrom]).toEqual([[0x62], null]);
  });

  it('concatenated deltas equal the final bytes for any growing prefixes (fast-check)', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), fc.array(fc.nat(100), { maxLength: 10 }), (text, cuts) => {
        const whole = utf8(text);
        const publisher = new Utf8TranscriptPublisher();
        const deltas: Uint8Array[] = [];
        for (const cut of [...cuts].sort((a, b) => a - b)) deltas.push(publisher.publish(whole.subarray(0, cut)));
        deltas.push(publisher.publish(whole));
        expect(Buffer.concat(deltas).toString('utf8')).toBe(text);
        // Every delta is whole characters: each decodes on its own, and a strict decoder throws on
        // half a character.
        expect(deltas.map((delta) => strict.decode(delta)).join('')).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('transcriptCommonPrefix', () => {
  const strings: Array<[a: string, b: string, expected: number]> = [
    ['', '', 0],
    ['abc', 'abd', 2],
    ['abc', 'abc', 3],
    ['ab', 'abc', 2],
    ['x', 'y', 0],
    ['a\ud83d\ude00', 'a\ud83d\ude01', 1],
    ['a\ud83d\ude00', 'a\ud83d', 1],
    ['a\ud83d\ude00x', 'a\ud83d\ude00y', 3],
    ['a\ud83d', 'a\ud83d', 2],
    ['a\ud83dx', 'a\ud83dy', 2],
  ];
  it.each(strings)('strings %j and %j share %i code units', (a, b, expected) => {
    expect(transcriptCommonPrefix(a, b)).toBe(expected);
    expect(transcriptCommonPrefix(b, a)).toBe(expected);
  });

  const byteCases: Array<[name: string, a: number[], b: number[], expected: number]> = [
    ['empty', [], [], 0],
    ['é and è', [0x61, 0xc3, 0xa9], [0x61, 0xc3, 0xa8], 1],
    ['中 and 丫', [0x61, 0xe4, 0xb8, 0xad], [0x61, 0xe4, 0xb8, 0xab], 1],
    ['😀 and 😁', [0x61, 0xf0, 0x9f, 0x98, 0x80], [0x61, 0xf0, 0x9f, 0x98, 0x81], 1],
    ['😀 and its first three bytes', [0x61, 0xf0, 0x9f, 0x98, 0x80], [0x61, 0xf0, 0x9f, 0x98], 1],
    ['equal texts', [0x61, 0xc3, 0xa9], [0x61, 0xc3, 0xa9], 3],
    ['equal texts ending mid-character', [0x61, 0xc3], [0x61, 0xc3], 2],
    ['a sequence already broken before the divergence', [0x61, 0xe4, 0x41], [0x61, 0xe4, 0x42], 2],
    ['stray continuation bytes', [0x61, 0x80, 0x80], [0x61, 0x80, 0x81], 2],
  ];
  it.each(byteCases)('bytes: %s', (_name, a, b, expected) => {
    expect(transcriptCommonPrefix(bytes(...a), bytes(...b))).toBe(expected);
    expect(transcriptCommonPrefix(bytes(...b), bytes(...a))).toBe(expected);
  });
});

describe('transcriptPublishableEnd', () => {
  const strings: Array<[text: string, expected: number]> = [
    ['', 0],
    ['abc', 3],
    ['ab\ud83d', 2],
    ['ab\ud83d\ude00', 4],
    ['ab\ude00', 3],
    ['a\ud83d\ud83d', 2],
  ];
  it.each(strings)('string %j: %i', (text, expected) => {
    expect(transcriptPublishableEnd(text)).toBe(expected);
  });

  const byteCases: Array<[name: string, text: number[], expected: number]> = [
    ['empty', [], 0],
    ['ASCII', [0x61], 1],
    ['a two-byte lead at the end', [0x61, 0xc3], 1],
    ['a complete two-byte character', [0x61, 0xc3, 0xa9], 3],
    ['two bytes of a three-byte character', [0x61, 0xe2, 0x82], 1],
    ['a complete three-byte character', [0x61, 0xe2, 0x82, 0xac], 4],
    ['three bytes of a four-byte character, nothing before', [0xf0, 0x9f, 0x98], 0],
    ['an invalid byte', [0x61, 0xff], 2],
    ['a byte that cannot lead (C0)', [0x61, 0xc0], 2],
    ['an overlong start (E0 80)', [0x61, 0xe0, 0x80], 3],
    ['an encoded surrogate start (ED A0)', [0x61, 0xed, 0xa0], 3],
    ['a start above U+10FFFF (F4 90)', [0x61, 0xf4, 0x90], 3],
    ['a lead beyond F4', [0x61, 0xf5], 2],
    ['stray continuation bytes', [0x80, 0x80, 0x80], 3],
    ['a broken lead followed by a fresh one', [0x61, 0xc3, 0xc3], 2],
  ];
  it.each(byteCases)('bytes: %s', (_name, text, expected) => {
    expect(transcriptPublishableEnd(bytes(...text))).toBe(expected);
  });
});
