import { PartialArgsWriter, PathSegment, PieceValue, parsePath } from '../../src/dialects/gemini/geminiPartialArgs';

// The piece shape is Vertex AI's `PartialArg`: `{jsonPath, stringValue | numberValue | boolValue |
// nullValue, willContinue}`, the path an RFC 9535 JSON Path ("$.foo.bar[0].data"), `willContinue`
// "whether this is not the last part of the same json_path".
// https://googleapis.github.io/js-genai/release_docs/interfaces/types.PartialArg.html

/** A string piece (`more`: another piece of the same path follows). */
const str = (text: string, more = false): PieceValue => ({ kind: 'string', text, more });
/** A whole value, as its JSON text. */
const json = (text: string): PieceValue => ({ kind: 'json', json: text });

/** The text a writer makes from these pieces, each call's text kept apart, and the joined text. */
function write(pieces: readonly (readonly [string, PieceValue])[]): { parts: string[]; text: string } {
  const writer = new PartialArgsWriter((what) => new Error(what));
  const parts = [writer.begin()];
  for (const [path, value] of pieces) parts.push(writer.put(parsePath(path)!, value));
  parts.push(writer.end());
  return { parts, text: parts.join('') };
}

/** The message of the error the pieces end in. */
function failure(pieces: readonly (readonly [string, PieceValue])[]): string {
  try {
    write(pieces);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the pieces were accepted');
}

describe('PartialArgsWriter', () => {
  it.each<[string, (readonly [string, PieceValue])[], string, unknown]>([
    ['no piece at all', [], '{}', {}],
    ['one whole string', [['$.location', str('Boston')]], '{"location":"Boston"}', { location: 'Boston' }],
    [
      'a string in pieces, extended while willContinue',
      [
        ['$.location', str('Bos', true)],
        ['$.location', str('ton, ', true)],
        ['$.location', str('MA')],
      ],
      '{"location":"Boston, MA"}',
      { location: 'Boston, MA' },
    ],
    [
      'a string closed by an empty last piece',
      [
        ['$.location', str('Boston', true)],
        ['$.location', str('')],
      ],
      '{"location":"Boston"}',
      { location: 'Boston' },
    ],
    [
      'a string said to go on, then a piece elsewhere (the string is over)',
      [
        ['$.a', str('x', true)],
        ['$.b', json('1')],
      ],
      '{"a":"x","b":1}',
      { a: 'x', b: 1 },
    ],
    [
      'numbers, booleans and null',
      [
        ['$.brightness', json('50')],
        ['$.ratio', json('0.25')],
        ['$.on', json('true')],
        ['$.off', json('false')],
        ['$.color', json('null')],
      ],
      '{"brightness":50,"ratio":0.25,"on":true,"off":false,"color":null}',
      { brightness: 50, ratio: 0.25, on: true, off: false, color: null },
    ],
    [
      'nested objects, left for a shallower path',
      [
        ['$.a.b.c', json('1')],
        ['$.a.b.d', json('2')],
        ['$.a.e', json('3')],
        ['$.f', json('4')],
      ],
      '{"a":{"b":{"c":1,"d":2},"e":3},"f":4}',
      { a: { b: { c: 1, d: 2 }, e: 3 }, f: 4 },
    ],
    [
      'an array of objects',
      [
        ['$.recipe.ingredients[0].amount', str('16 oz', true)],
        ['$.recipe.ingredients[0].amount', str('')],
        ['$.recipe.ingredients[0].name', str('noodles')],
        ['$.recipe.ingredients[1].amount', str('1 lb')],
        ['$.recipe.ingredients[1].name', str('beef')],
        ['$.recipe.servings', json('6')],
      ],
      '{"recipe":{"ingredients":[{"amount":"16 oz","name":"noodles"},{"amount":"1 lb","name":"beef"}],"servings":6}}',
      {
        recipe: {
          ingredients: [
            { amount: '16 oz', name: 'noodles' },
            { amount: '1 lb', name: 'beef' },
          ],
          servings: 6,
        },
      },
    ],
    [
      'an array of strings and one of arrays',
      [
        ['$.tags[0]', str('a')],
        ['$.tags[1]', str('b', true)],
        ['$.tags[1]', str('c')],
        ['$.grid[0][0]', json('1')],
        ['$.grid[0][1]', json('2')],
        ['$.grid[1][0]', json('3')],
      ],
      '{"tags":["a","bc"],"grid":[[1,2],[3]]}',
      { tags: ['a', 'bc'], grid: [[1, 2], [3]] },
    ],
    [
      'text that JSON escapes, and a character split between pieces',
      [
        ['$.q', str('say "hi"\n\\ ', true)],
        ['$.q', str('caf', true)],
        ['$.q', str('é 😀')],
      ],
      '{"q":"say \\"hi\\"\\n\\\\ café 😀"}',
      { q: 'say "hi"\n\\ café 😀' },
    ],
    [
      'member names in brackets',
      [
        ["$['first name']", str('Ada')],
        ['$["a.b"]', json('1')],
        ["$['it\\'s']", json('2')],
      ],
      '{"first name":"Ada","a.b":1,"it\'s":2}',
      { 'first name': 'Ada', 'a.b': 1, "it's": 2 },
    ],
  ])('writes %s', (_name, pieces, text, value) => {
    const written = write(pieces);
    expect(written.text).toBe(text);
    expect(JSON.parse(written.text)).toEqual(value);
  });

  it('writes each piece as it comes: the text of every call is what that piece adds', () => {
    expect(
      write([
        ['$.city', str('San ', true)],
        ['$.city', str('Francisco')],
        ['$.days[0]', json('3')],
        ['$.days[1]', json('4')],
        ['$.unit', str('C')],
      ]).parts,
    ).toEqual(['{', '"city":"San ', 'Francisco"', ',"days":[3', ',4', '],"unit":"C"', '}']);
  });

  it('closes a string still open, and every open container, at the end', () => {
    expect(write([['$.a.b[0].c', str('cut', true)]]).parts).toEqual(['{', '"a":{"b":[{"c":"cut', '"}]}}']);
  });

  it.each<[string, (readonly [string, PieceValue])[], string]>([
    [
      'a path back into an object already closed',
      [
        ['$.a.b', json('1')],
        ['$.c', json('2')],
        ['$.a.d', json('3')],
      ],
      '$.a goes back into a value already written',
    ],
    [
      'a path back into an array element already closed',
      [
        ['$.i[0].x', json('1')],
        ['$.i[1].x', json('2')],
        ['$.i[0].y', json('3')],
      ],
      '$.i[0] goes back into a value already written',
    ],
    [
      'a value written twice',
      [
        ['$.a', json('1')],
        ['$.a', json('2')],
      ],
      '$.a goes back into a value already written',
    ],
    [
      'a string written again after it closed',
      [
        ['$.a', str('x')],
        ['$.a', str('y')],
      ],
      '$.a goes back into a value already written',
    ],
    [
      'a scalar then treated as an object',
      [
        ['$.a', json('1')],
        ['$.a.b', json('2')],
      ],
      '$.a goes back into a value already written',
    ],
    ['an array index skipped', [['$.i[1]', json('1')]], '$.i[1] skips index 0'],
    [
      'an object indexed like an array',
      [
        ['$.a.b', json('1')],
        ['$.a[0]', json('2')],
      ],
      '$.a[0] indexes an object',
    ],
    [
      'an array given a member name',
      [
        ['$.a[0]', json('1')],
        ['$.a.b', json('2')],
      ],
      '$.a.b names a member of an array',
    ],
    ['the arguments themselves as a value', [['$', str('x')]], '$ is not a member of the arguments object'],
    ['the arguments indexed like an array', [['$[0]', json('1')]], '$[0] is not a member of the arguments object'],
    [
      'a string still open given a value that is not a string',
      [
        ['$.a', str('x', true)],
        ['$.a', json('1')],
      ],
      '$.a is a string still being written',
    ],
  ])('refuses %s', (_name, pieces, message) => {
    expect(failure(pieces)).toBe(message);
  });

  it('refuses a piece after the end', () => {
    const writer = new PartialArgsWriter((what) => new Error(what));
    writer.begin();
    expect(writer.end()).toBe('}');
    expect(() => writer.put(['a'], json('1'))).toThrow('a piece arrived for arguments that are not open');
  });
});

describe('parsePath', () => {
  it.each<[string, PathSegment[]]>([
    ['$', []],
    ['$.location', ['location']],
    ['$.foo.bar[0].data', ['foo', 'bar', 0, 'data']],
    ['$.m[10][0]', ['m', 10, 0]],
    ["$['first name']", ['first name']],
    ['$["a.b"][2]', ['a.b', 2]],
    ["$['it\\'s']", ["it's"]],
    ['$["\\u00e9\\n"]', ['é\n']],
    ['$.café', ['café']],
  ])('reads %s', (path, segments) => {
    expect(parsePath(path)).toEqual(segments);
  });

  it.each([
    '',
    'location',
    '$location',
    '$.',
    '$..a',
    '$.*',
    '$[*]',
    '$[-1]',
    '$[01]',
    '$[1.5]',
    '$.a[',
    "$['a'",
    "$['a\\q']",
    '$[?@.a]',
    '$[0:2]',
  ])('refuses %j', (path) => {
    expect(parsePath(path)).toBeUndefined();
  });
});
