/**
 * Strings that keep nothing else alive. In V8, `slice` returns a piece of 13 characters or more as a
 * view into the string it was cut from, which keeps all of that string alive: a piece of one event
 * of a 16 KiB read keeps the whole read, for as long as the piece is kept. (`JSON.parse` copies the
 * strings it returns.) A reader that keeps pieces of a text past the text keeps copies. (The values a
 * template reads from its holes are cut as pieces short enough to be copies already, on the per-chunk
 * path: `plainStringValue` in json/jsonTokens.ts; this is for pieces kept, not for every value.)
 */

/** The shortest string V8 makes as a view into another (`SlicedString::kMinLength`); shorter ones are copies. */
const SHORTEST_VIEW = 13;

/**
 * `text`'s characters in a string of their own, in the representation `text` has (one byte per
 * character, or two: compared with one of the same, equality is a `memcmp`), keeping nothing else
 * alive. Two pieces joined make a rope, and reading a character flattens the rope into one new
 * string, after which the pieces (views into `text`'s parent) are no longer referenced. (A slice of
 * a longer copy would keep a view object beside the copy: more than a small chunk it replaces.)
 *
 * @example
 * ```ts
 * const kept = detached(chunk.slice(0, 40)); // equal to the slice; `chunk` may be collected
 * ```
 */
export function detached(text: string): string {
  if (text.length < SHORTEST_VIEW) return text;
  const joined = text.slice(0, 6) + text.slice(6); // the first piece, shorter than a view, is a copy
  joined.charCodeAt(0); // flattens it
  return joined;
}
