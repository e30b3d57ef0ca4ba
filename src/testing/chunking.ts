import { seededRandom } from '../internal/seededRandom.js';

/**
 * How a stream's body is cut into the chunks a transport delivers (`providerStream(reply, format,
 * { chunking })`). The bytes are the same whichever is chosen; only where they are cut differs,
 * and a correct reader gives the same result for every one:
 *
 * - `'events'` (the default): one chunk per event (an SSE event with its blank line, an NDJSON line,
 *   an AWS message), as a server that flushes each event sends them;
 * - `'whole'`: the body in one chunk;
 * - `{ every: n }`: chunks of `n` bytes (the last may be shorter);
 * - `{ random: seed, maxSize? }`: chunks of 1 to `maxSize` (default 16) bytes, sizes drawn from a
 *   generator seeded by `seed`: the same seed, the same cuts;
 * - `'inside-characters'`: a cut after every byte inside a multi-byte UTF-8 character (so each one
 *   is split across chunks, a 4-byte emoji into four), and nowhere else: one chunk for a body that
 *   has none (ASCII text, or Bedrock's base64 payloads).
 *
 * @example
 * ```ts
 * import { providerStream, type Chunking } from 'rxjs-llm-stream/testing';
 *
 * const chunking: Chunking = { random: 42, maxSize: 8 };
 * providerStream({ choices: [{ text: 'Grüß dich 👋' }] }, 'openai-chat', { chunking }).chunks;
 * ```
 */
export type Chunking =
  'events' | 'whole' | 'inside-characters' | { readonly every: number } | { readonly random: number; readonly maxSize?: number };

/** `pieces` (the body, event by event) cut as `chunking` says, each chunk a copy of its bytes. */
export function cutBody(pieces: readonly Uint8Array[], chunking: Chunking): Uint8Array[] {
  if (chunking === 'events') return pieces.filter((piece) => piece.length > 0).map((piece) => piece.slice());
  const body = join(pieces);
  if (body.length === 0) return [];
  if (chunking === 'whole') return [body];
  if (chunking === 'inside-characters') return splitAt(body, insideCharacters(body));
  if (typeof chunking === 'object' && chunking !== null && 'every' in chunking) {
    const size = positiveInteger(chunking.every, 'chunking.every');
    const cuts: number[] = [];
    for (let at = size; at < body.length; at += size) cuts.push(at);
    return splitAt(body, cuts);
  }
  if (typeof chunking === 'object' && chunking !== null && 'random' in chunking) {
    const maxSize = positiveInteger(chunking.maxSize ?? 16, 'chunking.maxSize');
    const next = seededRandom(chunking.random);
    const cuts: number[] = [];
    for (let at = 1 + Math.floor(next() * maxSize); at < body.length; at += 1 + Math.floor(next() * maxSize)) cuts.push(at);
    return splitAt(body, cuts);
  }
  throw new TypeError(`providerStream: unknown chunking ${JSON.stringify(chunking)}`);
}

/** Every offset that falls inside a multi-byte character: before each of its continuation bytes. */
function insideCharacters(body: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let at = 1; at < body.length; at++) if ((body[at]! & 0xc0) === 0x80) cuts.push(at);
  return cuts;
}

function splitAt(body: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of cuts) {
    chunks.push(body.slice(start, cut));
    start = cut;
  }
  chunks.push(body.slice(start));
  return chunks;
}

function join(pieces: readonly Uint8Array[]): Uint8Array {
  const body = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    body.set(piece, at);
    at += piece.length;
  }
  return body;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`providerStream: ${name} must be a whole number of bytes, 1 or more, got ${value}`);
  return value;
}
