/**
 * A bare item of a structured field (RFC 9651) as this reader keeps it: strings and tokens as text,
 * byte sequences as their base64 text.
 */
export type BareItem = string | number | boolean;

/** A member of a structured-field List: its item and its parameters, by key. */
export interface ListMember {
  readonly item: BareItem;
  readonly params: ReadonlyMap<string, BareItem>;
}

const TOKEN = /[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/y;
const KEY = /[a-z*][a-z0-9_\-.*]*/y;
const NUMBER = /-?\d{1,15}(?:\.\d{1,3})?/y;
const BYTES = /:([A-Za-z0-9+/=]*):/y;

/**
 * A structured-field List of items with parameters (RFC 9651 §4.2.1), such as
 * `"default";q=100;w=60, "burst";q=10;w=1`. Inner lists are not read. Text that breaks the grammar
 * gives `undefined`, as the RFC asks (the whole field is ignored), never an exception.
 */
export function parseStructuredList(text: string): ListMember[] | undefined {
  let at = 0;
  const skip = (spaces: RegExp): void => {
    while (at < text.length && spaces.test(text[at]!)) at++;
  };
  const sticky = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) return undefined;
    at = pattern.lastIndex;
    return match[0];
  };
  const bareItem = (): BareItem | undefined => {
    const first = text[at];
    if (first === '"') {
      let value = '';
      for (at++; at < text.length; at++) {
        const char = text[at]!;
        if (char === '"') {
          at++;
          return value;
        }
        if (char === '\\') {
          const next = text[++at];
          if (next !== '"' && next !== '\\') return undefined;
          value += next;
        } else if (char < ' ' || char > '~') {
          return undefined;
        } else value += char;
      }
      return undefined; // no closing quote
    }
    if (first === '?') {
      const flag = text[at + 1];
      if (flag !== '0' && flag !== '1') return undefined;
      at += 2;
      return flag === '1';
    }
    if (first === ':') {
      BYTES.lastIndex = at;
      const match = BYTES.exec(text);
      if (match === null) return undefined;
      at = BYTES.lastIndex;
      return match[1]!;
    }
    const number = sticky(NUMBER);
    if (number !== undefined) return Number(number);
    return sticky(TOKEN);
  };
  const members: ListMember[] = [];
  skip(/ /);
  if (at === text.length) return members;
  for (;;) {
    const item = bareItem();
    if (item === undefined) return undefined;
    const params = new Map<string, BareItem>();
    while (text[at] === ';') {
      at++;
      skip(/ /);
      const key = sticky(KEY);
      if (key === undefined) return undefined;
      let value: BareItem = true;
      if (text[at] === '=') {
        at++;
        const parsed = bareItem();
        if (parsed === undefined) return undefined;
        value = parsed;
      }
      params.set(key, value);
    }
    members.push({ item, params });
    skip(/[ \t]/);
    if (at === text.length) return members;
    if (text[at] !== ',') return undefined;
    at++;
    skip(/[ \t]/);
    if (at === text.length) return undefined; // a trailing comma
  }
}
