import fc from 'fast-check';
import { isDeepStrictEqual } from 'util';
import { StructuredJson, valueAt } from '../../src/structured/StructuredJson';
import { JsonValue } from '../../src/types/events';
import type { JsonPath } from '../../src/types/replyParts';
import { splitAt } from '../support/chunking';
import { copy, isPrefix } from '../support/jsonPrefix';

/** Every path in `value`, the root first. */
function pathsOf(value: JsonValue, prefix: JsonPath = []): JsonPath[] {
  const paths: JsonPath[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...prefix, i])));
  else if (value !== null && typeof value === 'object')
    for (const key of Object.keys(value)) paths.push(...pathsOf(value[key]!, [...prefix, key]));
  return paths;
}

function read(text: string, elementsAt?: JsonPath): StructuredJson {
  const reader = new StructuredJson({ elementsAt });
  reader.push(text);
  return reader;
}

describe('StructuredJson', () => {
  describe('openPath: the one path still being written', () => {
    it.each<[string, JsonPath | null]>([
      ['', null],
      ['{', []],
      ['{"ti', []], // a key being read: the object is open, no value has begun
      ['{"title":', []],
      ['{"title":"Pl', ['title']],
      ['{"title":"Plan"', []],
      ['{"title":"Plan","steps":[', ['steps']],
      ['{"title":"Plan","steps":["a', ['steps', 0]],
      ['{"title":"Plan","steps":["a",{"do":"x', ['steps', 1, 'do']],
      ['{"title":"Plan","steps":["a",{"do":"x"}', ['steps']],
      ['{"n":12', []], // a number is not shown until whole: its object is what is open
      ['{"title":"Plan"}', null],
      ['"abc', []],
      ['"abc"', null],
      ['[[[1]]', []],
    ])('%j is open at %j', (text, path) => {
      expect(read(text).openPath).toEqual(path);
    });

    it('keeps the path that was open when the preview stopped, and never calls it complete', () => {
      const reader = read('{"a":"x","b":["y" x');
      expect(reader.stopped).toBe('invalid-json');
      expect(reader.openPath).toEqual(['b']);
      expect(reader.isComplete(['a'])).toBe(true);
      expect(reader.isComplete(['b', 0])).toBe(true);
      expect(reader.isComplete(['b'])).toBe(false);
      expect(reader.isComplete([])).toBe(false);
    });
  });

  describe('isComplete', () => {
    it.each<[string, JsonPath, boolean]>([
      ['{"title":"Pl', ['title'], false],
      ['{"title":"Plan"', ['title'], true],
      ['{"title":"Plan"', [], false],
      ['{"title":"Plan"}', [], true],
      ['{"a":[1,2', ['a', 0], true],
      ['{"a":[1,2', ['a', 1], false], // not shown: "2" may still grow
      ['{"a":[1,2,', ['a', 1], true],
      ['{"a":[1,2,', ['a'], false],
      ['{"a":true', ['a'], true], // a literal appears whole
      ['{"a":{"b":"c"}', ['a'], true],
      ['{"a":{"b":"c"}', ['a', 'b'], true],
      ['{"a":{"b":"c"', ['a', 'b'], true],
      ['{"a":{"b":"c"', ['a'], false],
      ['{"a":"x"', ['missing'], false],
      ['{"a":"x"', ['a', 0], false], // a string has no elements
    ])('in %j, %j is complete: %s', (text, path, complete) => {
      expect(read(text).isComplete(path)).toBe(complete);
    });
  });

  describe('elements', () => {
    it('counts the elements of the watched array as each one closes, at the root or at a path', () => {
      const root = new StructuredJson({ elementsAt: [] });
      const seen: number[] = [];
      for (const piece of ['[{"n":1', '},{"n":', '2},"s', 'tr", 3', '4 ,', 'null]']) {
        root.push(piece);
        seen.push(root.elements.finished);
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
      expect(root.elements.array).toEqual([{ n: 1 }, { n: 2 }, 'str', 34, null]);

      const nested = read('{"meta":{"items":[9]},"items":[[1],[2,', ['items']);
      expect(nested.elements).toEqual({ array: [[1], [2]], finished: 1 });
    });

    it('does not count elements of an array elsewhere, nor of a non-array at the path', () => {
      expect(read('{"other":[1,2,3],"items":{"a":[1,2]}}', ['items']).elements).toEqual({ array: undefined, finished: 0 });
      expect(read('[[1,2],[3]]', [0]).elements).toEqual({ array: [1, 2], finished: 2 });
    });
  });

  // The promises of structured output, for any value and any cut: values only grow and end in the
  // final value; whatever is called complete is already final; elements come out whole, once, in order.
  describe('for any JSON value cut anywhere', () => {
    const values = fc.jsonValue({ maxDepth: 4 });
    const texts = fc.tuple(values, fc.constantFrom('', ' ', '\n  ')).chain(([value, space]) => {
      const text = JSON.stringify(value, null, space);
      return fc.tuple(fc.constant(value), fc.constant(text), fc.array(fc.nat({ max: text.length }), { maxLength: 24 }));
    });

    it('shows a growing sequence of values that ends in the final one', () => {
      fc.assert(
        fc.property(texts, ([value, text, cuts]) => {
          const final = JSON.parse(text) as JsonValue;
          const reader = new StructuredJson();
          let previous: JsonValue | undefined;
          for (const piece of splitAt(text, cuts)) {
            reader.push(piece);
            const now = copy(reader.value);
            if (!isPrefix(previous, now ?? null) || !isPrefix(now, final)) return false;
            previous = now;
          }
          reader.end();
          return isDeepStrictEqual(copy(reader.value), final) && isDeepStrictEqual(final, JSON.parse(JSON.stringify(value)));
        }),
        { numRuns: 300 },
      );
    });

    it('calls a path complete only once its value is final', () => {
      fc.assert(
        fc.property(texts, ([, text, cuts]) => {
          const final = JSON.parse(text) as JsonValue;
          const paths = pathsOf(final);
          const reader = new StructuredJson();
          const pieces = splitAt(text, cuts);
          return pieces.every((piece, i) => {
            reader.push(piece);
            if (i === pieces.length - 1) reader.end();
            return paths.every(
              (path) => !reader.isComplete(path) || isDeepStrictEqual(copy(valueAt(reader.value, path)), valueAt(final, path)),
            );
          });
        }),
        { numRuns: 300 },
      );
    });

    it('calls everything complete once the whole value is read', () => {
      fc.assert(
        fc.property(texts, ([, text, cuts]) => {
          const reader = new StructuredJson();
          for (const piece of splitAt(text, cuts)) reader.push(piece);
          reader.end();
          return reader.openPath === null && pathsOf(JSON.parse(text) as JsonValue).every((path) => reader.isComplete(path));
        }),
        { numRuns: 200 },
      );
    });

    it('hands out exactly the final array, each element once, whole when handed out', () => {
      const lists = fc
        .tuple(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }), fc.boolean(), fc.constantFrom('', ' '))
        .chain(([items, nested, space]) => {
          const document = (nested ? { before: [1, [2]], items, after: 'x' } : items) as JsonValue;
          const text = JSON.stringify(document, null, space);
          return fc.tuple(fc.constant(nested), fc.constant(text), fc.array(fc.nat({ max: text.length }), { maxLength: 24 }));
        });
      fc.assert(
        fc.property(lists, ([nested, text, cuts]) => {
          const path: JsonPath = nested ? ['items'] : [];
          const final = valueAt(JSON.parse(text) as JsonValue, path) as JsonValue[];
          const reader = new StructuredJson({ elementsAt: path });
          const taken: (JsonValue | undefined)[] = [];
          for (const piece of splitAt(text, cuts)) {
            reader.push(piece);
            const { array, finished } = reader.elements;
            while (taken.length < finished) taken.push(copy(array![taken.length]));
            // Each element is taken whole: equal to the final one at the moment it is taken.
            if (!taken.every((element, i) => isDeepStrictEqual(element, final[i]))) return false;
          }
          return taken.length === final.length;
        }),
        { numRuns: 300 },
      );
    });
  });
});
