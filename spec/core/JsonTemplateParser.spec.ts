import { execFileSync } from 'child_process';
import fc from 'fast-check';
import { join } from 'path';
import { isDeepStrictEqual } from 'util';
import { JsonTemplateParser } from '../../src/json/JsonTemplateParser';
import { mayChange } from '../../src/json/jsonTemplate';
import { root } from '../support/build';

const FUZZ_RUNS = Number(process.env['FUZZ_RUNS']) || 0;
if (FUZZ_RUNS > 0) jest.setTimeout(3_600_000);

/** Same value as JSON.parse, with the same key order (isDeepStrictEqual ignores order; it keeps -0). */
function expectSameAsJsonParse(actual: unknown, text: string): void {
  const expected: unknown = JSON.parse(text);
  expect(isDeepStrictEqual(actual, expected)).toBe(true);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

/** Parses every text with one parser, checking each against JSON.parse; returns the parser. */
function parseAll(texts: readonly string[], parser = new JsonTemplateParser()): JsonTemplateParser {
  for (const text of texts) expectSameAsJsonParse(parser.parse(text), text);
  return parser;
}

const ENVELOPE = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o","choices":';
const contentChunk = (content: string): string =>
  `${ENVELOPE}[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}`;
const argumentsChunk = (index: number, fragment: string): string =>
  `${ENVELOPE}[{"index":0,"delta":{"tool_calls":[{"index":${index},` +
  `"function":{"arguments":${JSON.stringify(fragment)}}}]},"finish_reason":null}]}`;

describe('JsonTemplateParser', () => {
  describe('templates', () => {
    it('learns from two texts of one shape and reads the third through the template', () => {
      const parser = parseAll([contentChunk('Hel'), contentChunk('lo'), contentChunk(' world')]);
      expect(parser.stats).toEqual({ hits: 1, misses: 2, learned: 1 });
    });

    it('reads a long run of one shape through one template', () => {
      const texts = Array.from({ length: 100 }, (_, i) => contentChunk(`word ${i} `));
      expect(parseAll(texts).stats).toEqual({ hits: 98, misses: 2, learned: 1 });
    });

    it('reads string holes with escapes: quotes, backslashes, \\u escapes, a backslash before the closing quote', () => {
      const contents = ['a', 'b', 'say "hi"', 'back\\slash', 'ends with \\', '\\"', 'é 中文 😀', '\n\t\u0000', '\\\\"\\', '"'];
      const parser = parseAll(contents.map(contentChunk));
      expect(parser.stats.hits).toBe(contents.length - 2);
      // \u escapes as a Python server writes them (ensure_ascii): only the hole differs.
      const escaped = `${ENVELOPE}[{"index":0,"delta":{"content":"caf\\u00e9 \\ud83d\\ude00"},"finish_reason":null}]}`;
      expect(parser.parse(escaped)).toEqual(JSON.parse(escaped));
      expect(parser.stats.hits).toBe(contents.length - 1);
    });

    it('makes holes of numbers too: interleaved tool calls share one template', () => {
      const texts = Array.from({ length: 64 }, (_, i) => argumentsChunk(i % 8, `{"n":${i}`));
      expect(parseAll(texts).stats).toEqual({ hits: 62, misses: 2, learned: 1 });
    });

    it('reads number holes in every JSON form: negative, fraction, exponent', () => {
      const shape = (n: string): string => `{"type":"delta","n":${n},"text":"x"}`;
      const parser = parseAll(['1', '2', '-3', '0.5', '-0', '1e3', '2.5E-7', '-0.0e+0', '12345678901234567890', '1e400'].map(shape));
      expect(parser.stats.hits).toBe(8);
      expect(Object.is((parser.parse(shape('-0')) as { n: number }).n, -0)).toBe(true);
    });

    it('hands out a new value per text: values returned before keep their contents', () => {
      const parser = new JsonTemplateParser();
      const values = ['one', 'two', 'three', 'four'].map((content) => parser.parse(contentChunk(content)));
      expect(parser.stats.hits).toBe(2);
      expect(values.map((value) => (value as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content)).toEqual([
        'one',
        'two',
        'three',
        'four',
      ]);
    });

    it('with reuse, writes the holes into the template’s own value: each value is right until the next parse', () => {
      const parser = new JsonTemplateParser({ reuse: true });
      const texts = ['one', 'two', 'three', 'four'].map(contentChunk);
      const values = texts.map((text) => {
        const value = parser.parse(text);
        expectSameAsJsonParse(value, text);
        return value;
      });
      expect(parser.stats.hits).toBe(2);
      // The second text taught the template: its value is the one the hits wrote into.
      expect(values[2]).toBe(values[1]);
      expect(values[3]).toBe(values[1]);
      expectSameAsJsonParse(values[3], texts[3]!);
    });

    it('reads identical texts (no holes) through a template', () => {
      expect(parseAll(Array(5).fill('{"type":"ping"}')).stats).toEqual({ hits: 3, misses: 2, learned: 1 });
    });

    it('templates arrays at the top level', () => {
      expect(parseAll(['[1,"a",true]', '[2,"b",true]', '[3,"c",true]', '[4,"d",true]']).stats.hits).toBe(2);
    });

    it('keeps a template per shape and goes back to one after other shapes', () => {
      const reasoning = (text: string): string => `{"type":"reasoning","delta":${JSON.stringify(text)}}`;
      const texts = ['a', 'b', 'c', 'd'].map(reasoning).concat(['e', 'f', 'g'].map(contentChunk), ['h', 'i'].map(reasoning));
      const parser = parseAll(texts);
      expect(parser.stats).toEqual({ hits: 5, misses: 4, learned: 2 });
    });

    it('keeps at most maxTemplates, dropping the least recently used', () => {
      const shape = (kind: number, value: string): string => `{"kind${kind}":${JSON.stringify(value)}}`;
      const parser = new JsonTemplateParser({ maxTemplates: 2 });
      parseAll(
        [0, 1, 2].flatMap((kind) => [shape(kind, 'a'), shape(kind, 'b')]),
        parser,
      );
      expect(parser.stats.learned).toBe(3);
      parseAll([shape(2, 'c'), shape(1, 'c')], parser);
      expect(parser.stats.hits).toBe(2);
      // Shape 0's template was dropped for shape 2's.
      parseAll([shape(0, 'c')], parser);
      expect(parser.stats.hits).toBe(2);
    });
  });

  describe('a template that has read many texts (one regular expression)', () => {
    /** A parser that has read `shape` a hundred times, with a string and a number that change. */
    const warmed = (shape: (text: string, n: number) => string): JsonTemplateParser =>
      parseAll(Array.from({ length: 100 }, (_, i) => shape(`t${i}`, i)));

    it('reads literals holding the characters of regular expressions, and U+2028, as themselves', () => {
      const shape = (text: string, n: number): string => JSON.stringify({ 'a.*+?^$': '()[]{}|/\\', x: '\u2028\u2029', n, text });
      const parser = warmed(shape);
      parseAll([shape('é 中文 😀', 7), shape('', 0)], parser);
      const other = JSON.stringify({ 'a.*+?^$': '()[]{}|/\\', x: '\u2028\u2029', n: 1, text: 'x' }).replace('a.*', 'aa*');
      parseAll([other], parser);
      expect(parser.stats.hits).toBe(100);
    });

    it('reads every string and number a hole may hold: escapes, lone surrogates, long strings, every number form', () => {
      const parser = warmed((text, n) => contentChunk(text).replace('"index":0', `"index":${n}`));
      const strings = ['a"b', 'back\\slash', '\n\t\r\b\f/', '\u0001\u001f', '\ud800', 'x'.repeat(37), 'é'.repeat(36), '中'.repeat(13), ''];
      parseAll(
        strings.map((text) => contentChunk(text)),
        parser,
      );
      const numbers = ['-0', '-1', '0.5', '1e5', '-2.5E-3', '123456789012345678'];
      parseAll(
        numbers.map((n) => contentChunk('n').replace('"index":0', `"index":${n}`)),
        parser,
      );
      expect(parser.stats.hits).toBe(98 + strings.length + 6);
    });

    it.each([
      ['an unknown escape', `${ENVELOPE}[{"index":0,"delta":{"content":"a\\x"},"finish_reason":null}]}`],
      ['a raw control character', `${ENVELOPE}[{"index":0,"delta":{"content":"a\u0001b"},"finish_reason":null}]}`],
      ['an unfinished \\u escape', `${ENVELOPE}[{"index":0,"delta":{"content":"\\u12"},"finish_reason":null}]}`],
      ['an unpaired quote', `${ENVELOPE}[{"index":0,"delta":{"content":"a"b"},"finish_reason":null}]}`],
      ['a leading zero', `${ENVELOPE}[{"index":01,"delta":{"content":"a"},"finish_reason":null}]}`],
      ['text after the end', `${contentChunk('c')}}`],
    ])('throws JSON.parse’s SyntaxError for %s', (_, text) => {
      const parser = warmed((text, n) => contentChunk(text).replace('"index":0', `"index":${n}`));
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parser.parse(text)).toThrow(SyntaxError);
    });
  });

  describe('what a template keeps alive between texts', () => {
    // In a process of its own, with a garbage collector to call: the heap after the chunk the texts
    // were cut from is dropped, against the heap before it was made. The texts are slices of one
    // chunk of 8 MB (a full read of a reply holding several events is such a chunk); a template
    // that kept a slice of the last text it read would keep all of it. Forty texts: a template turns
    // into a regular expression, which keeps no piece of text, only after more (PATTERN_AFTER).
    const letter = { 'one-byte': 'w', 'two-byte': '中' };
    const program = (representation: 'one-byte' | 'two-byte'): string => `
      const { JsonTemplateParser } = require(${JSON.stringify(join(root, 'dist', 'cjs', 'core', 'index.js'))});
      const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
      const text = (i) => ${JSON.stringify(contentChunk('HOLE'))}.replace('HOLE', ${JSON.stringify(letter[representation])} + i);
      const parser = new JsonTemplateParser();
      const before = heap();
      // In a function: a temporary of the top-level script would stay in its frame while it runs.
      const read = (() => {
        let chunk = '';
        for (let i = 0; i < 40; i++) chunk += text(i) + '\\n';
        chunk += 'x'.repeat(8e6);
        let from = 0, read = 0;
        for (let i = 0; i < 40; i++) {
          const end = chunk.indexOf('\\n', from);
          read += parser.parse(chunk.slice(from, end)).choices.length;
          from = end + 1;
        }
        return read;
      })();
      // The last string a regular expression ran on is kept by the engine (RegExp.input), one for the
      // whole process: another run lets it go, so that what is measured is what the parser keeps.
      /a/.test('a');
      console.log(JSON.stringify({ read, hits: parser.stats.hits, kept: heap() - before }));
    `;

    it.each(['one-byte', 'two-byte'] as const)('is no piece of the chunk its %s texts were cut from', (representation) => {
      const output = execFileSync(process.execPath, ['--expose-gc', '-e', program(representation)], { encoding: 'utf8' });
      const { read, hits, kept } = JSON.parse(output) as { read: number; hits: number; kept: number };
      expect({ read, hits }).toEqual({ read: 40, hits: 38 }); // every text read, through the template from the third
      expect(kept).toBeLessThan(1_000_000); // the chunk is 8 MB (16 MB two-byte)
    });
  });

  describe('texts a template must not take', () => {
    it('a different type in a hole is parsed in full', () => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      const nullContent = `${ENVELOPE}[{"index":0,"delta":{"content":null},"finish_reason":null}]}`;
      const numberContent = `${ENVELOPE}[{"index":0,"delta":{"content":5},"finish_reason":null}]}`;
      parseAll([nullContent, numberContent], parser);
      expect(parser.stats.hits).toBe(0);
    });

    it('two tokens where the hole has one: an extra key after the string is parsed in full', () => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      const extra = `${ENVELOPE}[{"index":0,"delta":{"content":"c","role":"x"},"finish_reason":null}]}`;
      const overriding = `${ENVELOPE}[{"index":0,"delta":{"content":"c","content":"d"},"finish_reason":null}]}`;
      parseAll([extra, overriding], parser);
      expect(parser.stats.hits).toBe(0);
    });

    it('spaces around a hole are parsed in full', () => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      parseAll([contentChunk('c').replace('"content":', '"content": '), contentChunk('d').replace('"d"}', '"d" }')], parser);
      expect(parser.stats.hits).toBe(0);
    });

    it.each([
      ['an unknown escape', `${ENVELOPE}[{"index":0,"delta":{"content":"a\\x"},"finish_reason":null}]}`],
      ['a raw control character', `${ENVELOPE}[{"index":0,"delta":{"content":"a\u0001b"},"finish_reason":null}]}`],
      ['a raw line feed', `${ENVELOPE}[{"index":0,"delta":{"content":"a\nb"},"finish_reason":null}]}`],
      ['an unpaired quote', `${ENVELOPE}[{"index":0,"delta":{"content":"a"b"},"finish_reason":null}]}`],
      ['an unfinished \\u escape', `${ENVELOPE}[{"index":0,"delta":{"content":"\\u12"},"finish_reason":null}]}`],
    ])('a hole holding %s throws JSON.parse’s SyntaxError', (_, text) => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parser.parse(text)).toThrow(SyntaxError);
    });

    it.each([
      ['a leading zero', '01'],
      ['a lone minus', '-'],
      ['a trailing dot', '1.'],
      ['a plus sign', '+1'],
      ['a dangling exponent', '1e'],
    ])('a number hole holding %s throws JSON.parse’s SyntaxError', (_, number) => {
      const parser = parseAll([argumentsChunk(0, 'a'), argumentsChunk(1, 'b')]);
      const text = argumentsChunk(0, 'c').replace('"index":0,"function"', `"index":${number},"function"`);
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parser.parse(text)).toThrow(SyntaxError);
    });

    it('text after the template that ends as the template does throws', () => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      const doubled = `${contentChunk('c')}},"finish_reason":null}]}`;
      expect(() => JSON.parse(doubled)).toThrow(SyntaxError);
      expect(() => parser.parse(doubled)).toThrow(SyntaxError);
    });

    it('a text cut inside the last literal throws', () => {
      const parser = parseAll([contentChunk('a'), contentChunk('b')]);
      const cut = contentChunk('c').slice(0, -2);
      expect(() => parser.parse(cut)).toThrow(SyntaxError);
    });
  });

  describe('what it does not learn from', () => {
    it('servers that write spaces: never learns, stops trying, and every value is still right', () => {
      const spaced = (content: string): string => `{"id": "x", "delta": {"content": ${JSON.stringify(content)}}}`;
      const parser = parseAll(Array.from({ length: 60 }, (_, i) => spaced(`t${i}`)));
      expect(parser.stats).toEqual({ hits: 0, misses: 60, learned: 0 });
    });

    it('duplicate keys: the text is not what JSON.stringify writes, so no template; the last key wins as in JSON.parse', () => {
      const duplicated = (content: string): string => `{"content":"first","content":${JSON.stringify(content)}}`;
      const parser = parseAll(['a', 'b', 'c', 'd'].map(duplicated));
      expect(parser.stats.hits).toBe(0);
    });

    it('numbers written otherwise than JSON.stringify writes them outside the holes: no template', () => {
      const shape = (content: string): string => `{"version":1.0,"content":${JSON.stringify(content)}}`;
      expect(parseAll(['a', 'b', 'c', 'd'].map(shape)).stats.hits).toBe(0);
    });

    it('__proto__ keys: read as own properties, as JSON.parse does, and Object.prototype is untouched', () => {
      const shape = (content: string): string =>
        `{"__proto__":{"polluted":${JSON.stringify(content)}},"x":{"__proto__":${JSON.stringify(content)}}}`;
      const parser = parseAll(['a', 'b', 'c', 'd'].map(shape));
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(parser.parse(shape('e')), '__proto__')).toBe(true);
    });

    it('texts longer than maxLearnLength are always parsed in full', () => {
      const parser = parseAll(
        ['a', 'b', 'c', 'd'].map((c) => contentChunk(c.repeat(100))),
        new JsonTemplateParser({ maxLearnLength: 100 }),
      );
      expect(parser.stats).toEqual({ hits: 0, misses: 4, learned: 0 });
    });

    it('stops learning when the templates it learns are seldom used', () => {
      // Same shape each time, but a field changes every other text: each template is learned from a
      // pair that agrees on it, so fits no later text.
      const texts = Array.from({ length: 200 }, (_, i) => `{"turn":"t${Math.floor(i / 2)}","content":"c${i}"}`);
      const parser = parseAll(texts);
      expect(parser.stats).toEqual({ hits: 0, misses: 200, learned: 8 });
    });

    it('primitives at the top level are parsed in full', () => {
      expect(parseAll(['"a"', '"b"', '"c"', '1', '2', '3', 'null', 'true']).stats).toEqual({ hits: 0, misses: 8, learned: 0 });
    });
  });

  describe('properties', () => {
    // A few shapes with leaves that vary; texts are JSON.stringify of each shape with random leaves,
    // sometimes with a leaf of another type, sometimes cut, spliced or with a character changed.
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.string({ unit: fc.constantFrom('"', '\\', 'a', '\n', 'é', '\u0000', '/', 'u'), maxLength: 6 }),
      fc.integer({ min: -1000, max: 1000 }),
      fc.double({ noNaN: true }),
      fc.constantFrom(null, true, false),
    );
    const shapes: ((a: unknown, b: unknown) => unknown)[] = [
      (a, b) => ({ id: 'x', choices: [{ index: 0, delta: { content: a }, finish_reason: null }], extra: b }),
      (a, b) => ({ type: 'content_block_delta', index: b, delta: { type: 'text_delta', text: a } }),
      (a, b) => [a, { nested: [b, 'fixed'] }],
      (a) => ({ same: 'always', value: a }),
    ];
    const edit = fc.oneof(
      fc.constant((text: string) => text),
      fc.constant((text: string) => text),
      fc.constant((text: string) => text),
      fc.nat().map((n) => (text: string) => text.slice(0, n % (text.length + 1))),
      fc.tuple(fc.nat(), fc.constantFrom('"', '\\', ',', '}', ' ', '0', 'e', '-', ':')).map(([n, c]) => (text: string) => {
        const at = n % (text.length + 1);
        return text.slice(0, at) + c + text.slice(at);
      }),
      fc.nat().map((n) => (text: string) => {
        const at = n % Math.max(text.length, 1);
        return text.slice(0, at) + text.slice(at + 1);
      }),
    );
    const texts = fc.array(
      fc.tuple(fc.nat({ max: shapes.length - 1 }), leaf, leaf, edit).map(([s, a, b, change]) => change(JSON.stringify(shapes[s]!(a, b)))),
      { maxLength: 40 },
    );

    it.each([
      ['copying', false],
      ['reusing', true],
    ])('every text reads as JSON.parse reads it, or throws a SyntaxError when JSON.parse does (%s)', (_, reuse) => {
      fc.assert(
        fc.property(texts, (sequence) => {
          const parser = new JsonTemplateParser({ reuse });
          for (const text of sequence) {
            let expected: unknown;
            try {
              expected = JSON.parse(text);
            } catch {
              expect(() => parser.parse(text)).toThrow(SyntaxError);
              continue;
            }
            const actual = parser.parse(text);
            expect(isDeepStrictEqual(actual, expected)).toBe(true);
            expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
          }
        }),
        { numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : 300 },
      );
    });

    // A template that has read many texts checks them with one regular expression instead of its
    // literals: the same texts again, after every shape has been read a hundred times.
    it.each([
      ['copying', false],
      ['reusing', true],
    ])('after a hundred texts of each shape, every text still reads as JSON.parse reads it, or throws as it does (%s)', (_, reuse) => {
      const warmUp = shapes.flatMap((shape) => Array.from({ length: 100 }, (_, i) => JSON.stringify(shape(`w${i}`, i))));
      fc.assert(
        fc.property(texts, (sequence) => {
          const parser = new JsonTemplateParser({ reuse });
          for (const text of warmUp) parser.parse(text);
          expect(parser.stats.hits).toBeGreaterThan(300);
          for (const text of sequence) {
            let expected: unknown;
            try {
              expected = JSON.parse(text);
            } catch {
              expect(() => parser.parse(text)).toThrow(SyntaxError);
              continue;
            }
            const actual = parser.parse(text);
            expect(isDeepStrictEqual(actual, expected)).toBe(true);
            expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
          }
        }),
        { numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : 100 },
      );
    });

    it('runs of one shape whose leaves change every time are read through one template after two texts', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ maxLength: 10 }), { minLength: 3, maxLength: 30 }), (strings) => {
          const parser = new JsonTemplateParser();
          // The position makes each text differ from the one before in both leaves.
          strings.forEach((text, i) =>
            expectSameAsJsonParse(parser.parse(JSON.stringify(shapes[1]!(`${text}${i}`, i))), JSON.stringify(shapes[1]!(`${text}${i}`, i))),
          );
          expect(parser.stats).toEqual({ hits: strings.length - 2, misses: 2, learned: 1 });
        }),
        { numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : 200 },
      );
    });
  });
});

describe('the shape a text was read through', () => {
  // The object in `choices[0]` holding a key, in the value the parser returned with `reuse`.
  type Obj = Record<string, unknown>;
  const choiceOf = (value: unknown): Obj => ((value as Obj)['choices'] as Obj[])[0]!;

  it('is undefined for a text parsed in full, and the same template for every text read through it', () => {
    const parser = new JsonTemplateParser({ reuse: true });
    parser.parse(contentChunk('a'));
    expect(parser.lastTemplate).toBeUndefined();
    parser.parse(contentChunk('b'));
    expect(parser.lastTemplate).toBeUndefined(); // learned from, but parsed in full
    const third = parser.parse(contentChunk('c'));
    const template = parser.lastTemplate;
    expect(template).toBeDefined();
    expect(template!.root).toBe(third);
    parser.parse(contentChunk('d'));
    expect(parser.lastTemplate).toBe(template);
    parser.parse('{"other":1}');
    expect(parser.lastTemplate).toBeUndefined();
  });

  it('tells which values of it can change: a hole, a container on the way to one, anything outside it', () => {
    const parser = new JsonTemplateParser({ reuse: true });
    for (const text of ['a', 'b']) parser.parse(contentChunk(text));
    const value = parser.parse(contentChunk('c')) as Obj;
    const template = parser.lastTemplate!;
    const choice = choiceOf(value);
    const cases: [object, string | number, boolean][] = [
      [choice['delta'] as object, 'content', true], // the hole
      [choice, 'delta', true], // holds the hole
      [value, 'choices', true], // holds it further down
      [value, 'created', false], // a literal: the same in every text of the shape
      [value, 'model', false],
      [choice, 'finish_reason', false],
      [choice, 'index', false],
      [{ created: 1730000000 }, 'created', true], // not the template's: nothing is known of it
    ];
    for (const [container, key, changes] of cases) expect([key, mayChange(template, container, key)]).toEqual([key, changes]);
  });
});
