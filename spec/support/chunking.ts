import { bodyStream } from '../../src/testing/bodyStream';

/** Splits `bytes` into pieces of `size` (the last may be shorter), as the test kit cuts a body (`{ every: size }`). */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  return [...bodyStream(bytes, { chunking: { every: size } }).chunks];
}

/** Splits `text` into pieces of `size` UTF-16 code units. */
export function textChunksOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** Splits a sequence at the given (sorted, in-range) cut points. */
export function splitAt<T extends { slice(start: number, end?: number): T; length: number }>(whole: T, cuts: readonly number[]): T[] {
  const points = [...new Set(cuts)].filter((cut) => cut > 0 && cut < whole.length).sort((a, b) => a - b);
  const pieces: T[] = [];
  let start = 0;
  for (const cut of points) {
    pieces.push(whole.slice(start, cut));
    start = cut;
  }
  pieces.push(whole.slice(start));
  return pieces;
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
