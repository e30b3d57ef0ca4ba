import { utf8Continues, utf8SequenceLength } from '../internal/utf8.js';

/**
 * What one call to `publishRevision` put out: the new text, and where a revision of text already
 * published began.
 */
export interface TranscriptDelta<T = string> {
  /** The text new since the last call (empty when nothing complete is new). */
  readonly delta: T;
  /**
   * The offset in the published text (code units, or bytes for `Utf8TranscriptPublisher`) where the
   * transcript stopped agreeing with what had gone out; `delta` starts there. `null` when the
   * transcript only extended what was published.
   */
  readonly revisedFrom: number | null;
}

/**
 * Turns a running transcript (JavaScript strings) into the increments a streaming consumer expects:
 * each call returns the text new since the previous call.
 *
 * Two things make this more than `transcript.slice(published.length)`:
 *
 * - A delta never ends between the two halves of a surrogate pair: a trailing high surrogate is held
 *   back until the transcript that completes it, so no delta carries half a character (which would
 *   reach a JSON encoder or a UTF-8 encoder as a lone surrogate, U+FFFD on the wire).
 * - A transcript may revise text already published instead of only extending it. Nothing can
 *   retract a delta that has gone out, so the next delta starts at the divergence (the longest
 *   common prefix, backed off so it never splits a surrogate pair) and `publishRevision` reports
 *   where that was.
 *
 * After a revision `published` is the common prefix followed by the new delta: the transcript as far
 * as it has been published, which is what a client that truncates its text to `revisedFrom` before
 * appending shows. A client that only appends shows the old text followed by the delta; the
 * transcript is then wrong either way, and starting at the divergence at least never splices a delta
 * into the middle of a character.
 *
 * Intuition: `diff` against what went out, cut at character boundaries.
 *
 * @example
 * ```ts
 * import { TranscriptPublisher } from 'rxjs-llm-stream/core';
 *
 * const publisher = new TranscriptPublisher();
 * publisher.publish('Hel');                    // 'Hel'
 * publisher.publish('Hello \ud83d');           // 'lo ' (the high surrogate waits for its pair)
 * publisher.publish('Hello \ud83d\ude00');     // '\ud83d\ude00'
 * publisher.publishRevision('Help');           // { delta: 'p', revisedFrom: 3 }
 * publisher.published;                         // 'Help'
 * ```
 */
export class TranscriptPublisher {
  private publishedText = '';
  private heldBackUnits = 0;

  /**
   * The text newly decoded since the last call: empty when nothing is new, or when everything new
   * is a high surrogate waiting for its low half.
   *
   * @param transcript The whole transcript so far.
   */
  publish(transcript: string): string {
    return this.publishRevision(transcript).delta;
  }

  /**
   * Like `publish`, also reporting whether (and where) the transcript revised published text.
   *
   * @param transcript The whole transcript so far.
   */
  publishRevision(transcript: string): TranscriptDelta<string> {
    const previous = this.publishedText;
    // The common case (the transcript extends what went out) needs no character-by-character scan.
    const common = transcript.startsWith(previous) ? previous.length : transcriptCommonPrefix(previous, transcript);
    // `common` can pass the publishable end only when the transcript stops exactly where an already
    // published (lone) high surrogate stands; nothing is new then.
    const end = Math.max(transcriptPublishableEnd(transcript), common);
    const delta = transcript.slice(common, end);
    this.publishedText = common === previous.length ? previous + delta : transcript.slice(0, end);
    this.heldBackUnits = transcript.length - end;
    return { delta, revisedFrom: common < previous.length ? common : null };
  }

  /** Forgets what has gone out, for a fresh stream. */
  reset(): void {
    this.publishedText = '';
    this.heldBackUnits = 0;
  }

  /** What has actually been published; it trails the transcript while a character is held back. */
  get published(): string {
    return this.publishedText;
  }

  /** How many code units of the last transcript are held back (0, or 1 for a high surrogate). */
  get heldBack(): number {
    return this.heldBackUnits;
  }
}

/**
 * `TranscriptPublisher` over UTF-8 bytes: each call returns the bytes new since the previous call,
 * never ending inside a UTF-8 sequence.
 *
 * A decode can end part way through a character (a tokenizer falls back to bytes for text its
 * vocabulary does not cover); an incomplete trailing sequence, one that more bytes could still make
 * valid, is held back for the transcript that completes it. A revision restarts at the longest common
 * prefix, backed off so it never lands inside a sequence. Bytes are not validated otherwise: bytes
 * that can never form a character are passed on as they are. `published` and the deltas are copies;
 * the transcript passed in is neither kept nor changed. Revision semantics are as for
 * `TranscriptPublisher`, with offsets in bytes.
 *
 * @example
 * ```ts
 * import { Utf8TranscriptPublisher } from 'rxjs-llm-stream/core';
 *
 * const publisher = new Utf8TranscriptPublisher();
 * publisher.publish(new Uint8Array([0x63, 0x61, 0x66, 0xc3]));       // [63 61 66] ('caf')
 * publisher.publish(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9])); // [c3 a9] ('é')
 * ```
 */
export class Utf8TranscriptPublisher {
  /** The published bytes are `buffer[0, length)`; the buffer grows by doubling, to append in O(delta). */
  private buffer = new Uint8Array(0);
  private length = 0;
  private heldBackBytes = 0;

  /**
   * The bytes new since the last call: empty when nothing is new, or when everything new is an
   * incomplete UTF-8 sequence still being held.
   *
   * @param transcript The whole transcript so far, as UTF-8.
   */
  publish(transcript: Uint8Array): Uint8Array {
    return this.publishRevision(transcript).delta;
  }

  /**
   * Like `publish`, also reporting whether (and where, in bytes) the transcript revised published
   * bytes.
   *
   * @param transcript The whole transcript so far, as UTF-8.
   */
  publishRevision(transcript: Uint8Array): TranscriptDelta<Uint8Array> {
    const previous = this.buffer.subarray(0, this.length);
    const common = transcriptCommonPrefix(previous, transcript);
    const end = Math.max(transcriptPublishableEnd(transcript), common);
    // A copy: the caller may reuse the transcript's buffer, and a `Buffer`'s `slice` would be a view.
    const delta = new Uint8Array(transcript.subarray(common, end));
    this.length = common;
    this.append(delta);
    this.heldBackBytes = transcript.length - end;
    return { delta, revisedFrom: common < previous.length ? common : null };
  }

  /** Forgets what has gone out, for a fresh stream. */
  reset(): void {
    this.buffer = new Uint8Array(0);
    this.length = 0;
    this.heldBackBytes = 0;
  }

  /** A copy of the bytes actually published; they trail the transcript while a sequence is held back. */
  get published(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  /** How many bytes of the last transcript are held back (0 to 3: an incomplete sequence). */
  get heldBack(): number {
    return this.heldBackBytes;
  }

  private append(bytes: Uint8Array): void {
    const needed = this.length + bytes.length;
    if (needed > this.buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.buffer.length * 2, 64));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length = needed;
  }
}

/**
 * Longest common prefix of two transcripts, backed off so that it splits no character of either.
 *
 * For strings, offsets are UTF-16 code units and a character is a surrogate pair (or one code unit);
 * for bytes, a character is a UTF-8 sequence. The end of a text never counts as splitting it, so two
 * equal texts share all of their length.
 *
 * @example
 * ```ts
 * import { transcriptCommonPrefix } from 'rxjs-llm-stream/core';
 *
 * transcriptCommonPrefix('a\ud83d\ude00', 'a\ud83d\ude01'); // 1, not 2: no half emoji
 * ```
 *
 * @returns The length of the prefix (code units or bytes).
 */
export function transcriptCommonPrefix(a: string, b: string): number;
export function transcriptCommonPrefix(a: Uint8Array, b: Uint8Array): number;
export function transcriptCommonPrefix(a: string | Uint8Array, b: string | Uint8Array): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const n = commonLength(a, b);
    // a[0, n) equals b[0, n), so one step back is enough: a high surrogate never follows a high one
    // inside a pair.
    return splitsSurrogatePair(a, n) || splitsSurrogatePair(b, n) ? n - 1 : n;
  }
  if (typeof a !== 'string' && typeof b !== 'string') {
    const n = commonLength(a, b);
    return Math.min(utf8SplitStart(a, n), utf8SplitStart(b, n));
  }
  throw new TypeError('transcriptCommonPrefix: both transcripts must be strings, or both bytes');
}

/**
 * How much of a transcript is safe to publish: everything up to the last complete character. Equal
 * to `text.length` unless the text ends in a partial character: a high surrogate (strings), or a
 * UTF-8 sequence that more bytes could still complete (bytes).
 *
 * @example
 * ```ts
 * import { transcriptPublishableEnd } from 'rxjs-llm-stream/core';
 *
 * transcriptPublishableEnd('hi \ud83d');                            // 3
 * transcriptPublishableEnd(new Uint8Array([0x68, 0x69, 0xe2, 0x82])); // 2
 * ```
 *
 * @returns The length of the publishable prefix (code units or bytes).
 */
export function transcriptPublishableEnd(text: string): number;
export function transcriptPublishableEnd(text: Uint8Array): number;
export function transcriptPublishableEnd(text: string | Uint8Array): number {
  if (typeof text === 'string') {
    return text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1)) ? text.length - 1 : text.length;
  }
  return utf8IncompleteTailStart(text);
}

/** Length of the longest common prefix, unit by unit. */
function commonLength(a: string | Uint8Array, b: string | Uint8Array): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  if (typeof a === 'string' && typeof b === 'string') {
    while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  } else {
    while (n < limit && a[n] === b[n]) n++;
  }
  return n;
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** Whether offset `n` falls between the halves of a surrogate pair of `text`. */
function splitsSurrogatePair(text: string, n: number): boolean {
  return n > 0 && n < text.length && isHighSurrogate(text.charCodeAt(n - 1)) && isLowSurrogate(text.charCodeAt(n));
}

/**
 * Where the valid sequence that is still open at offset `n` of `bytes` starts, or `n` when none is
 * open (the bytes before `n` end a character, or a sequence already broken). Looks back three bytes
 * at most: no sequence is longer than four.
 */
function utf8OpenSequenceStart(bytes: Uint8Array, n: number): number {
  for (let start = n - 1; start >= 0 && start >= n - 3; start--) {
    const lead = bytes[start]!;
    if ((lead & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    if (utf8SequenceLength(lead) <= n - start) return n;
    for (let k = 1; start + k < n; k++) if (!utf8Continues(lead, k, bytes[start + k]!)) return n;
    return start;
  }
  return n;
}

/** The start of a trailing sequence that more bytes could still complete, else `bytes.length`. */
function utf8IncompleteTailStart(bytes: Uint8Array): number {
  return utf8OpenSequenceStart(bytes, bytes.length);
}

/**
 * `n` if offset `n` of `bytes` is a character boundary, else the start of the character it splits.
 * The end of the bytes is a boundary: nothing follows there to be split off.
 */
function utf8SplitStart(bytes: Uint8Array, n: number): number {
  if (n >= bytes.length) return n;
  const start = utf8OpenSequenceStart(bytes, n);
  return start < n && utf8Continues(bytes[start]!, n - start, bytes[n]!) ? start : n;
}
