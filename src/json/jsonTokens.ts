/**
 * The JSON tokens a template's holes hold, read without `JSON.parse` where that is exact and cheaper:
 * where a string or number token ends, and the value of a plain or simply escaped string and of a
 * plain integer. Every reader says when it cannot read a token, which `JSON.parse` then reads.
 */

const BACKSLASH = 92;

/**
 * String values up to this long are read here, with no `JSON.parse`. They are cut as pieces of at
 * most 12 characters, joined: V8 copies a `slice` that short (it makes a view into the parent string
 * only from 13 characters on), so the value never keeps alive the chunk it was cut from, which a
 * caller who keeps the events' text (`text += event.text`) would otherwise pay for with every chunk.
 */
export const PLAIN_STRING = 36;
const PIECE = 12;
/**
 * The characters of a string with no escape, up to its closing quote. Sticky: it matches exactly at
 * `lastIndex`. One native scan finds the end and checks every character, where a loop of
 * `charCodeAt` costs a few nanoseconds a character.
 */
const PLAIN_STRING_BODY = /[^"\\\u0000-\u001f]*"/y; // eslint-disable-line no-control-regex -- JSON forbids them raw in a string

/**
 * The end (after its closing quote) of the string token whose opening quote is at `start`, when it
 * holds at most `PLAIN_STRING` characters, no escape and no control character; else -1 (the token
 * is then read by `JSON.parse`, which also says whether it is JSON at all).
 */
export function plainStringEnd(text: string, start: number): number {
  PLAIN_STRING_BODY.lastIndex = start + 1;
  if (!PLAIN_STRING_BODY.test(text)) return -1;
  const end = PLAIN_STRING_BODY.lastIndex;
  return end - start - 2 <= PLAIN_STRING ? end : -1;
}

/** The value of the plain string token `text[start, end)` (see `plainStringEnd`), as a copy. */
export function plainStringValue(text: string, start: number, end: number): string {
  return copyOf(text, start + 1, end - 1);
}

/** `text.slice(from, to)`, at most `PLAIN_STRING` characters, cut as copies (pieces of at most `PIECE`). */
function copyOf(text: string, from: number, to: number): string {
  const length = to - from;
  if (length <= PIECE) return text.slice(from, to);
  if (length <= 2 * PIECE) {
    const middle = from + (length >> 1);
    return text.slice(from, middle) + text.slice(middle, to);
  }
  const third = from + PIECE;
  return text.slice(from, third) + text.slice(third, third + PIECE) + text.slice(third + PIECE, to);
}

/** What a one-character escape stands for, by the character after the backslash. */
const ESCAPED: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = [];
  for (const [c, value] of [
    ['"', '"'],
    ['\\', '\\'],
    ['/', '/'],
    ['b', '\b'],
    ['f', '\f'],
    ['n', '\n'],
    ['r', '\r'],
    ['t', '\t'],
  ] as const)
    table[c.charCodeAt(0)] = value;
  return table;
})();

/**
 * The value of the string token `text[start, end)`, at most `PLAIN_STRING` characters, that the
 * token's grammar was already checked for (a template's `pattern`), when its escapes are all of one
 * character (`\n`, `\"`, ...): the runs between them as copies, joined with what each stands for.
 * Undefined when it has a `\u` escape (the token is then read by `JSON.parse`).
 */
export function escapedStringValue(text: string, start: number, end: number): string | undefined {
  const to = end - 1;
  let from = start + 1;
  let value = '';
  for (let at = text.indexOf('\\', from); at !== -1 && at < to; at = text.indexOf('\\', from)) {
    const escaped = ESCAPED[text.charCodeAt(at + 1)];
    if (escaped === undefined) return undefined;
    if (at > from) value += copyOf(text, from, at);
    value += escaped;
    from = at + 2;
  }
  return from < to ? value + copyOf(text, from, to) : value;
}

/**
 * The value of the number token `text[start, end)` when it is a plain integer of at most 15 digits
 * (`0`, or no leading zero), which is exact in a double; otherwise -1 (the token is read by
 * `JSON.parse`: a sign, a fraction, an exponent, a leading zero it must refuse).
 */
export function plainInteger(text: string, start: number, end: number): number {
  const length = end - start;
  if (length > 15 || (length > 1 && text.charCodeAt(start) === 48)) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** The index of the quote that closes the string whose text starts at `from`, or -1. */
export function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1) {
    let backslashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if ((backslashes & 1) === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The end of the run of number characters (`-+.eE0-9`) that starts at `from`. */
export function numberEnd(text: string, from: number): number {
  let end = from;
  for (;;) {
    const code = text.charCodeAt(end);
    if ((code >= 48 && code <= 57) || code === 45 || code === 43 || code === 46 || code === 101 || code === 69) end++;
    else return end;
  }
}
