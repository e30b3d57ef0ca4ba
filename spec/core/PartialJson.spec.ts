import fc from 'fast-check';
import { isDeepStrictEqual } from 'util';
import { DEFAULT_PREVIEW_MAX_CHARS, PartialJson, PartialJsonOptions } from '../../src/json/PartialJson';
import { JsonValue } from '../../src/types/events';
import { splitAt } from '../support/chunking';
import { copy, isPrefix } from '../support/jsonPrefix';

/** Pushes the pieces one by one and returns a copy of the preview after each (it is updated in place). */
function previews(pieces: readonly string[], options?: PartialJsonOptions): { steps: (JsonValue | undefined)[]; reader: PartialJson } {
  const reader = new PartialJson(options);
  const steps = pieces.map((piece) => {
    reader.push(piece);
    return copy(reader.value);
  });
  return { steps, reader };
}

function previewOf(text: string, options?: PartialJsonOptions): JsonValue | undefined {
  const reader = new PartialJson(options);
  reader.push(text);
  return reader.value;
}

/** JSON text for `value`, written in one of the ways JSON allows (escapes, spacing). */
function serialize(value: JsonValue, style: 'plain' | 'unicode' | 'solidus', space: string): string {
  const string = (text: string): string => {
    if (style === 'unicode')
      return `"${[...Array(text.length).keys()].map((i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
    const plain = JSON.stringify(text);
    return style === 'solidus' ? plain.replace(/\//g, '\\/') : plain;
  };
  const write = (item: JsonValue, indent: string): string => {
    if (typeof item === 'string') return string(item);
    if (item === null || typeof item !== 'object') return JSON.stringify(item);
    const inner = indent + space;
    const newline = space === '' ? '' : '\n';
    if (Array.isArray(item)) {
      if (item.length === 0) return '[]';
      return `[${newline}${item.map((element) => inner + write(element, inner)).join(`,${newline}`)}${newline}${indent}]`;
    }
    const keys = Object.keys(item);
    if (keys.length === 0) return '{}';
    const colon = space === '' ? ':' : ': ';
    const members = keys.map((key) => `${inner}${string(key)}${colon}${write(item[key]!, inner)}`);
    return `{${newline}${members.join(`,${newline}`)}${newline}${indent}}`;
  };
  return write(value, '');
}

describe('PartialJson', () => {
  it('builds the arguments of a call as they arrive (the example of the doc comment)', () => {
    const { steps } = previews(['{"ci', 'ty":"Zü', 'rich","days":[1', ',2]}']);
    expect(steps).toEqual([{}, { city: 'Zü' }, { city: 'Zürich', days: [] }, { city: 'Zürich', days: [1, 2] }]);
  });

  it.each<[string, JsonValue | undefined]>([
    ['', undefined],
    [' \n\t', undefined],
    ['{', {}],
    ['{"a', {}],
    ['{"a"', {}],
    ['{"a":', {}],
    ['{"a": "', { a: '' }],
    ['{"a": "x\\', { a: 'x' }],
    ['{"a": "x\\u00', { a: 'x' }],
    ['{"a": "x\\u00e9', { a: 'xé' }],
    ['{"a": "x\\n\\"\\/\\\\\\b\\f\\r\\t', { a: 'x\n"/\\\b\f\r\t' }],
    ['{"a": 1', {}],
    ['{"a": 12,', { a: 12 }],
    ['{"a": -', {}],
    ['{"a": 1.5e', {}],
    ['{"a": 1.5e+3}', { a: 1500 }],
    ['{"a": -0.25E-2 ', { a: -0.0025 }],
    ['{"a": tr', {}],
    ['{"a": true', { a: true }],
    ['{"a": null, "b": [f', { a: null, b: [] }],
    ['{"a": [1, "x', { a: [1, 'x'] }],
    ['{"a":{"b":{}},"c":', { a: { b: {} } }],
    ['[[["deep', [[['deep']]]],
    ['[1, 2', [1]],
    ['[1, 2]', [1, 2]],
    ['"root str', 'root str'],
    ['42', undefined],
    ['"\\ud83d\\ude00"', '😀'],
  ])('previews %j as %j', (text, expected) => {
    expect(previewOf(text)).toEqual(expected);
  });

  it('shows a number that is the whole text once end() says the text is complete', () => {
    const reader = new PartialJson();
    reader.push('-0');
    expect(reader.value).toBeUndefined();
    reader.end();
    expect(Object.is(reader.value, -0)).toBe(true);
    const whole = new PartialJson();
    whole.push('{"a":1');
    whole.end(); // an open container stays as it is: the 1 may have been cut off
    expect(whole.value).toEqual({});
  });

  it('never shows a key before its value has begun, nor a half key', () => {
    const { steps } = previews(['{"na', 'me"', ':', ' ', '"', 'x"', ',"n":', '3', '}']);
    expect(steps).toEqual([{}, {}, {}, {}, { name: '' }, { name: 'x' }, { name: 'x' }, { name: 'x' }, { name: 'x', n: 3 }]);
  });

  it('updates the same root object in place: the value keeps its identity', () => {
    const reader = new PartialJson();
    reader.push('{"list":[');
    const root = reader.value as { list: JsonValue[] };
    const list = root.list;
    reader.push('"a","b"]}');
    expect(reader.value).toBe(root);
    expect(root.list).toBe(list);
    expect(list).toEqual(['a', 'b']);
  });

  describe('invalid JSON: the preview stops at the first invalid character and keeps what it had', () => {
    it.each<[string, JsonValue | undefined]>([
      ['{"a": 1, }', { a: 1 }],
      ['{"a": "x\ny"}', { a: 'x' }],
      ['[1, 2] x', [1, 2]],
      ['{"a": 01}', {}],
      ['{"a": 1.5.}', {}],
      ['{"a": 12a}', {}],
      ['{"a": "ab\\x"}', { a: 'ab' }],
      ['{"a": "\\u12g4"}', { a: '' }],
      ['{"a" 1}', {}],
      ['{a:1}', {}],
      ['[1,]', [1]],
      ['nul1', undefined],
      ['\ufeff{}', undefined],
      ['1,', undefined],
      ['{"a":1}}', { a: 1 }],
      ['[}', []],
    ])('%j', (text, expected) => {
      const reader = new PartialJson();
      reader.push(text);
      expect(reader.value).toEqual(expected);
      expect(reader.stopped).toBe('invalid-json');
      reader.push('"more"]}'); // nothing after the fault changes the preview
      expect(reader.value).toEqual(expected);
    });

    it('follows valid text: stopped is null', () => {
      const reader = new PartialJson();
      reader.push('{"a": [1, {"b": "c"}]} \n');
      expect(reader.stopped).toBeNull();
    });
  });

  describe('hostile keys', () => {
    const text = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":"p","toString":1}';

    it.each([1, 3, text.length])('become own data properties of plain objects, as JSON.parse makes them (pieces of %i)', (size) => {
      const reader = new PartialJson();
      for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
      const value = reader.value as Record<string, unknown>;
      expect(value).toEqual(JSON.parse(text));
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.getOwnPropertyNames(value)).toEqual(['__proto__', 'constructor', 'prototype', 'toString']);
      expect(Object.getOwnPropertyDescriptor(value, '__proto__')).toEqual({
        value: { polluted: 'yes' },
        writable: true,
        enumerable: true,
        configurable: true,
      });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      expect(typeof Object.prototype.toString).toBe('function');
    });

    it('keeps a growing string under __proto__ an own property', () => {
      const { steps, reader } = previews(['{"__proto__":"ab', 'cd"}']);
      expect(steps.map((step) => Object.getOwnPropertyDescriptor(step, '__proto__')?.value)).toEqual(['ab', 'abcd']);
      expect(Object.getPrototypeOf(reader.value)).toBe(Object.prototype);
    });
  });

  describe('bounds', () => {
    it('stops updating past maxDepth nested containers', () => {
      const reader = new PartialJson({ maxDepth: 2 });
      reader.push('[[[1]], 2]');
      expect(reader.value).toEqual([[]]);
      expect(reader.stopped).toBe('max-depth');
    });

    it('follows 64 nested containers by default, not 65', () => {
      const deep = new PartialJson();
      deep.push('['.repeat(64) + ']'.repeat(64));
      expect(deep.stopped).toBeNull();
      expect(deep.value).toEqual(JSON.parse('['.repeat(64) + ']'.repeat(64)));
      const deeper = new PartialJson();
      deeper.push('['.repeat(65));
      expect(deeper.stopped).toBe('max-depth');
    });

    it('reads maxSize characters, keeps what they gave, and ignores the rest', () => {
      const reader = new PartialJson({ maxSize: 10 });
      reader.push('{"a":"0123456789"}');
      expect(reader.value).toEqual({ a: '0123' });
      expect(reader.stopped).toBe('max-size');
      reader.push('more');
      expect(reader.value).toEqual({ a: '0123' });
      expect(reader.charactersExamined).toBe(10);
    });

    it('stops at 1 MiB by default', () => {
      expect(DEFAULT_PREVIEW_MAX_CHARS).toBe(1048576);
      const reader = new PartialJson();
      reader.push('"');
      for (let i = 0; i < 1025; i++) reader.push('x'.repeat(1024));
      expect(reader.stopped).toBe('max-size');
      expect((reader.value as string).length).toBe(1048575); // all but the opening quote
    });
  });

  describe('cost', () => {
    /** About 1 MB of arguments: records with strings, escapes, numbers, literals and nesting. */
    function megabyteOfArguments(): string {
      const items = [];
      for (let i = 0; i < 8000; i++) {
        items.push({
          id: i,
          name: `item ${i} \u00e9\n"q"`,
          price: i * 1.25,
          tags: ['a', 'b\\c'],
          ok: i % 2 === 0,
          note: null,
          nested: { depth: [i, -i] },
        });
      }
      return JSON.stringify({ items });
    }

    it.each<[string, () => string]>([
      ['records', megabyteOfArguments],
      ['one long string', () => JSON.stringify({ text: 'x'.repeat(1_000_000) })],
      ['one string of escapes', () => JSON.stringify({ text: '\n'.repeat(500_000) })],
      ['many small numbers', () => JSON.stringify(Array.from({ length: 500_000 }, (_, i) => i % 10))],
    ])('examines each character of %s a bounded number of times, in 10-character pieces', (_name, make) => {
      const text = make();
      expect(text.length).toBeGreaterThan(900_000);
      const reader = new PartialJson();
      for (let i = 0; i < text.length; i += 10) reader.push(text.slice(i, i + 10));
      // Every character once, and a character that ends a number once more. A reader that re-read
      // the text so far on each piece would examine about length² / 20 (some 5 * 10^10) characters.
      expect(reader.charactersExamined).toBeGreaterThanOrEqual(text.length);
      expect(reader.charactersExamined).toBeLessThanOrEqual(2 * text.length);
      expect(reader.stopped).toBeNull();
      expect(reader.value).toEqual(JSON.parse(text));
    });
  });

  describe('properties', () => {
    const texts = fc
      .tuple(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom('plain' as const, 'unicode' as const, 'solidus' as const),
        fc.constantFrom('', '  ', '\t'),
      )
      .map(([value, style, space]) => serialize(value as JsonValue, style, space))
      .chain((text) => fc.tuple(fc.constant(text), fc.array(fc.nat({ max: text.length }), { maxLength: 30 })));

    it('after every piece of any split, the preview deep-equals JSON.parse of the whole text', () => {
      fc.assert(
        fc.property(texts, ([text, cuts]) => {
          const reader = new PartialJson();
          for (const piece of splitAt(text, cuts)) reader.push(piece);
          reader.end();
          expect(reader.stopped).toBeNull();
          expect(reader.value).toEqual(JSON.parse(text));
          expect(isDeepStrictEqual(reader.value, JSON.parse(text))).toBe(true);
        }),
        { numRuns: 500 },
      );
    });

    it('every intermediate preview is a prefix of the final value and of the next preview', () => {
      fc.assert(
        fc.property(texts, ([text, cuts]) => {
          const final = JSON.parse(text) as JsonValue;
          const { steps } = previews(splitAt(text, cuts));
          steps.forEach((step, i) => {
            // The preview sits in the compared object so that a failure prints it. This property failed once, on Node 24
            // in a full `npm run test:node24` (seed 849747245, path "225:4:4:4:4:5", shrunk to the text
            // `[{"":0,"\u0020":0}]` read whole), and that case passed again alone, with that seed and path, and in 60,000
            // more runs: what the preview was is what the next failure has to show.
            const shown = JSON.stringify(step);
            expect({ step: shown, prefixOfFinal: isPrefix(step, final) }).toEqual({ step: shown, prefixOfFinal: true });
            const next = steps[i + 1];
            if (next !== undefined) {
              const shownNext = JSON.stringify(next);
              expect({ step: shown, next: shownNext, prefixOfNext: isPrefix(step, next) }).toEqual({
                step: shown,
                next: shownNext,
                prefixOfNext: true,
              });
            }
          });
        }),
        { numRuns: 500 },
      );
    });

    it('isPrefix itself refuses what is not a prefix', () => {
      expect(isPrefix({ a: 'x' }, { a: 'y' })).toBe(false);
      expect(isPrefix([1, 'a'], [2, 'ab'])).toBe(false);
      expect(isPrefix([1], [10])).toBe(false);
      expect(isPrefix({ a: 'x', b: 'y' }, { a: 'xx', b: 'yy' })).toBe(false);
      expect(isPrefix({ a: 1 }, { b: 1 })).toBe(false);
      expect(isPrefix({ a: [1, 'x'] }, { a: [1, 'xy', 3] })).toBe(true);
    });
  });
});
