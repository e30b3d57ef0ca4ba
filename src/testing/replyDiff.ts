/** One place where what arrived is not what the reply says. */
export interface ReplyDifference {
  /** Where, in the reply's own terms: `choices[0].toolCalls[1].arguments.city`, `usage.promptTokens`. */
  readonly path: string;
  /** What the reply says is there (`undefined`: nothing should be). */
  readonly expected: unknown;
  /** What arrived there (`undefined`: nothing did). */
  readonly actual: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const key = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

/** Every difference between two JSON-like values, in order, deepest first where they differ within. */
export function differences(expected: unknown, actual: unknown, path = ''): ReplyDifference[] {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const found: ReplyDifference[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (i >= expected.length || i >= actual.length) found.push({ path: `${path}[${i}]`, expected: expected[i], actual: actual[i] });
      else found.push(...differences(expected[i], actual[i], `${path}[${i}]`));
    }
    return found;
  }
  if (isRecord(expected) && isRecord(actual)) {
    const names = [...Object.keys(expected), ...Object.keys(actual).filter((name) => !(name in expected))];
    return names.flatMap((name) => differences(expected[name], actual[name], key(path, name)));
  }
  return Object.is(expected, actual) ? [] : [{ path, expected, actual }];
}

/** The longest a value is shown in a message before it is cut. */
const SHOWN = 100;
/** Characters shown either side of where two long strings first differ. */
const AROUND = 24;

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}

/** Two strings too long to show whole: where they part, with a little on either side. */
function stringDifference(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const excerpt = (text: string): string => {
    const start = Math.max(0, at - AROUND);
    const part = JSON.stringify(text.slice(start, at + AROUND));
    return `${start > 0 ? '…' : ''}${part}${at + AROUND < text.length ? '…' : ''} (${text.length} characters)`;
  };
  return `differs from character ${at}: expected ${excerpt(expected)}, got ${excerpt(actual)}`;
}

/** One line of a message: `path: expected X, got Y`. */
export function describeDifference({ path, expected, actual }: ReplyDifference): string {
  const where = path === '' ? '(the whole value)' : path;
  if (typeof expected === 'string' && typeof actual === 'string' && Math.max(expected.length, actual.length) > 2 * AROUND) {
    return `${where}: ${stringDifference(expected, actual)}`;
  }
  return `${where}: expected ${shown(expected)}, got ${shown(actual)}`;
}
