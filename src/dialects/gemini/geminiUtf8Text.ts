/** UTF-16 units in one block: a lookup scans at most one block. */
const BLOCK = 1024;

/**
 * A text that grows piece by piece and can be addressed by UTF-8 byte offsets, as Gemini's grounding
 * segments address the reply (`segment.startIndex` and `endIndex` are byte offsets). The text is kept
 * in blocks of about a thousand UTF-16 units, each with the byte and unit offsets it starts at, so
 * that turning a byte offset into a UTF-16 offset costs a binary search and the scan of one block,
 * however long the reply: a stream that cites its text at every chunk stays linear.
 */
export class Utf8Text {
  private readonly blocks: string[] = [];
  /** Where each block starts: its UTF-8 byte offset and its UTF-16 offset. */
  private readonly byteStarts: number[] = [];
  private readonly unitStarts: number[] = [];
  /** The text not yet in a block. */
  private tail = '';
  private bytes = 0;
  private units = 0;

  append(piece: string): void {
    this.tail += piece;
    if (this.tail.length >= BLOCK) this.seal();
  }

  /**
   * The UTF-16 offset at UTF-8 byte offset `byte`; undefined past the end or inside a character
   * (an offset that cannot be one of this text).
   */
  unitAt(byte: number): number | undefined {
    this.seal();
    if (!Number.isSafeInteger(byte) || byte < 0 || byte > this.bytes) return undefined;
    if (byte === this.bytes) return this.units;
    const block = lastAtOrBefore(this.byteStarts, byte);
    const text = this.blocks[block]!;
    let at = this.byteStarts[block]!;
    for (let i = 0; i < text.length; i++) {
      if (at === byte) return this.unitStarts[block]! + i;
      if (at > byte) return undefined;
      const size = utf8Size(text, i);
      if (size === 4) i++;
      at += size;
    }
    return undefined;
  }

  /** The text between two UTF-16 offsets. */
  slice(start: number, end: number): string {
    this.seal();
    if (start >= end) return '';
    let text = '';
    for (let block = lastAtOrBefore(this.unitStarts, start); block < this.blocks.length; block++) {
      const from = this.unitStarts[block]!;
      if (from >= end) break;
      text += this.blocks[block]!.slice(Math.max(0, start - from), end - from);
    }
    return text;
  }

  /** Moves the tail into blocks, never splitting a surrogate pair. */
  private seal(): void {
    let rest = this.tail;
    this.tail = '';
    while (rest !== '') {
      let cut = Math.min(rest.length, BLOCK);
      if (cut < rest.length && isHighSurrogate(rest.charCodeAt(cut - 1))) cut++;
      const block = rest.slice(0, cut);
      rest = rest.slice(cut);
      this.blocks.push(block);
      this.byteStarts.push(this.bytes);
      this.unitStarts.push(this.units);
      this.bytes += utf8Length(block);
      this.units += block.length;
    }
  }
}

/** The index of the last entry of the ascending `starts` at or before `value` (0 when none is). */
function lastAtOrBefore(starts: readonly number[], value: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The UTF-8 size of the character at `i`: 4 for a surrogate pair (both units), 3 for a lone surrogate (U+FFFD). */
function utf8Size(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  if (unit < 0x80) return 1;
  if (unit < 0x800) return 2;
  if (isHighSurrogate(unit) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) return 4;
  return 3;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const size = utf8Size(text, i);
    if (size === 4) i++;
    bytes += size;
  }
  return bytes;
}
