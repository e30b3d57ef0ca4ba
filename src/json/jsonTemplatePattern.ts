import { HoleKind, STRING_HOLE } from './jsonTemplate.js';

/**
 * The regular expression a template becomes once it has read enough texts: the whole text, its
 * literals exactly and in each hole a JSON string or number token exactly as JSON's grammar has it.
 *
 * Why: a template's literals are a few hundred characters (the envelope of a chunk), and comparing
 * them as strings costs a call into V8's runtime for each (`text.slice(…) === literal` goes there for
 * every piece of 13 characters or more), about as much as all the rest of reading a chunk. One test
 * of this expression checks the whole text in compiled code, in a third of the time. Its compiled
 * code takes some kilobytes, which a template pays only once it has proven itself (see
 * `PATTERN_AFTER` in `JsonTemplateParser`).
 */
export function templatePattern(literals: readonly string[], kinds: readonly HoleKind[]): RegExp {
  let source = `^${escapeLiteral(literals[0]!)}`;
  for (let h = 0; h < kinds.length; h++) source += (kinds[h] === STRING_HOLE ? JSON_STRING : JSON_NUMBER) + escapeLiteral(literals[h + 1]!);
  return new RegExp(`${source}$`);
}

/**
 * A JSON string token: runs of characters but the quote, the backslash and the controls, between
 * escapes JSON has (written as runs and escapes, not as one alternation per character, which the
 * engine would try at every character). No `u` flag: a lone surrogate is a code unit like any
 * other, as in `JSON.parse`.
 */
const JSON_STRING = '"[^"\\\\\\u0000-\\u001f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\u0000-\\u001f]*)*"';
/** A JSON number token. */
const JSON_NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';

/** `text` as a regular expression that matches it and nothing else. */
function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
