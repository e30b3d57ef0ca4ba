import { ProtocolError, StreamClosedEarlyError } from '../errors/errors.js';
import { firstInvalidUtf8, utf8SequenceLength } from '../internal/utf8.js';

/** Options of {@link Utf8Decoder} and `decodeUtf8`. */
export interface Utf8DecoderOptions {
  /**
   * `false` (the default): invalid bytes become U+FFFD, as browsers decode a page.
   * `true`: invalid bytes are a `ProtocolError` naming their byte offset.
   */
  readonly fatal?: boolean;
}

/** Reused for every call: `decode` reads the option, it does not keep the object. */
const STREAM: TextDecodeOptions = { stream: true };
/**
 * Chunks this short and all ASCII are decoded here: a call into `TextDecoder` costs more than the
 * few characters it would decode (from about 16 bytes on, the decoder is faster).
 */
const SHORT_CHUNK = 8;

/**
 * Chunks up to this size that start and end with ASCII are decoded whole even after a chunk that was
 * not all ASCII (see `push`).
 */
const SMALL_CHUNK = 512;

/**
 * Decoders of whole chunks, shared by every stream: a call without `{ stream: true }` keeps no state.
 * `ignoreBOM`: a U+FEFF after the start of the stream is a character like any other.
 */
const WHOLE = new Map<boolean, TextDecoder>();
function wholeChunkDecoder(fatal: boolean): TextDecoder {
  let decoder = WHOLE.get(fatal);
  if (decoder === undefined) WHOLE.set(fatal, (decoder = new TextDecoder('utf-8', { fatal, ignoreBOM: true })));
  return decoder;
}

/**
 * The pure core of `decodeUtf8`: bytes in, text out, over any chunking.
 *
 * One streaming `TextDecoder` holds a character split across chunks until it is complete; one leading
 * BOM is dropped. `end()` reports bytes that stopped mid-character, which a plain
 * `TextDecoder.decode()` would turn into a silent U+FFFD.
 *
 * @example
 * ```ts
 * import { Utf8Decoder } from 'rxjs-llm-stream/core';
 *
 * const decoder = new Utf8Decoder();
 * decoder.push(new Uint8Array([0x63, 0x61, 0x66, 0xc3])); // 'caf'
 * decoder.push(new Uint8Array([0xa9]));                   // 'é'
 * decoder.end(); // throws StreamClosedEarlyError if the bytes stopped mid-character
 * ```
 */
export class Utf8Decoder {
  /** The streaming decoder, made when a chunk first needs it (see `push`). */
  #decoder: TextDecoder | undefined = undefined;
  readonly #whole: TextDecoder;
  readonly #fatal: boolean;
  /** Bytes decoded so far, for error positions. */
  #byteCount = 0;
  /**
   * The last three bytes of the stream (fewer at its start), the oldest in the highest bits: enough
   * to find an incomplete sequence at the end when an error needs its position. Kept in a number,
   * not an array: this runs for every chunk, and a decoder is held per open stream (a typed array
   * of three bytes takes two hundred); the streaming decoder holds its own copy of pending bytes.
   */
  #recent = 0;
  #recentLength = 0;
  /**
   * The last byte so far was ASCII: the decoder then holds no part of a character, and has already
   * settled the BOM (it returned that byte), so an ASCII chunk decodes to its bytes as they are.
   */
  #afterAscii = false;
  /**
   * The last chunk decoded to as many characters as it had bytes: it was ASCII (see `push`). False
   * before the first chunk: with nothing to go by, a large first chunk goes through the streaming
   * decoder, which costs little more on ASCII, where a guess of ASCII cost twice the streaming
   * decoder's time on a first chunk of multi-byte text (a 2.5 MB line: 15.5 against 8 ms).
   */
  #lastWasAscii = false;

  constructor(options: Utf8DecoderOptions = {}) {
    this.#fatal = options.fatal === true;
    this.#whole = wholeChunkDecoder(this.#fatal);
  }

  /** Decodes one chunk; returns the text it completes (possibly `''`). */
  push(bytes: Uint8Array): string {
    const length = bytes.length;
    if (length <= SHORT_CHUNK && this.#afterAscii) {
      let text = '';
      let i = 0;
      for (; i < length; i++) {
        const byte = bytes[i]!;
        if (byte >= 0x80) break;
        text += String.fromCharCode(byte);
      }
      if (i === length) {
        if (length > 0) this.#remember(bytes);
        this.#byteCount += length;
        return text;
      }
    }
    let text: string;
    try {
      // A chunk that starts after an ASCII byte and ends with one starts and ends with the streaming
      // decoder holding nothing: decoding it whole gives the same text, and network chunks of an LLM
      // reply nearly always end with one (a line end, the ASCII of a JSON envelope). In Node a whole
      // decode goes through V8's decoder instead of ICU's converter: 2 to 6 times faster on ASCII,
      // and on chunks of a few hundred bytes whatever they hold; but from about a kilobyte on, V8
      // decodes everything after the first non-ASCII byte one byte at a time, twice, and ICU is then
      // faster. So a large chunk is decoded whole only after one that was all ASCII (the reply is
      // English, say), a guess that costs nothing: the text is the same either way. Others go
      // through the streaming decoder, which also holds a character that the chunk cuts until its
      // end arrives. (At the very start, a first byte that is ASCII is no BOM.)
      const settled = this.#afterAscii || (this.#byteCount === 0 && bytes[0]! < 0x80);
      if (settled && bytes[length - 1]! < 0x80 && (length <= SMALL_CHUNK || this.#lastWasAscii)) {
        text = this.#whole.decode(bytes);
        this.#lastWasAscii = text.length === length;
      } else {
        text = this.#streaming().decode(bytes, STREAM);
        this.#lastWasAscii = text.length === length;
      }
    } catch (cause) {
      const byteOffset = this.#invalidOffset(bytes);
      // The text before the invalid bytes arrived whole: it is the partial, for decodeUtf8 to pass on,
      // so that what arrives before the fault does not depend on where the chunks were cut.
      throw new ProtocolError(`invalid UTF-8 at byte offset ${byteOffset}`, {
        cause,
        reason: 'invalid-utf8',
        position: { byteOffset },
        partial: this.#textBefore(bytes, byteOffset),
      });
    }
    this.#remember(bytes);
    this.#byteCount += bytes.length;
    return text;
  }

  /**
   * The streaming decoder, made at the first chunk that needs it. Made after the start of the stream,
   * it keeps a U+FEFF at the start of its input: the BOM was settled by the bytes before.
   */
  #streaming(): TextDecoder {
    return (this.#decoder ??= new TextDecoder('utf-8', { fatal: this.#fatal, ignoreBOM: this.#byteCount > 0 }));
  }

  /** Ends the stream; throws `StreamClosedEarlyError` if the bytes stopped mid-character. */
  end(): void {
    let rest: string;
    try {
      rest = this.#decoder === undefined ? '' : this.#decoder.decode();
    } catch {
      // Only an incomplete final sequence can fail here: no new bytes were given.
      rest = '\uFFFD';
    }
    if (rest !== '') {
      const start = this.#byteCount - Math.max(this.#tail().length, 1);
      throw new StreamClosedEarlyError(`the bytes ended mid-character: an incomplete UTF-8 sequence starts at byte offset ${start}`, {
        reason: 'mid-character',
        position: { byteOffset: start },
      });
    }
  }

  /** Keeps the last three bytes of the stream, `bytes` included. */
  #remember(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n > 0) this.#afterAscii = bytes[n - 1]! < 0x80;
    if (n >= 3) {
      this.#recent = (bytes[n - 3]! << 16) | (bytes[n - 2]! << 8) | bytes[n - 1]!;
      this.#recentLength = 3;
      return;
    }
    for (let i = 0; i < n; i++) {
      this.#recent = ((this.#recent << 8) | bytes[i]!) & 0xffffff;
      if (this.#recentLength < 3) this.#recentLength++;
    }
  }

  /** The bytes of an incomplete sequence at the end of what has arrived (0 to 3 of them). */
  #tail(): Uint8Array {
    const last = new Uint8Array(this.#recentLength);
    for (let i = 0; i < last.length; i++) last[i] = (this.#recent >> (8 * (last.length - 1 - i))) & 0xff;
    for (let i = last.length - 1; i >= 0; i--) {
      const byte = last[i]!;
      if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
      return utf8SequenceLength(byte) > last.length - i ? last.slice(i) : new Uint8Array(0);
    }
    return new Uint8Array(0);
  }

  /**
   * The text of the bytes before stream offset `byteOffset` that this decoder has not returned yet:
   * a sequence left open by the previous chunk, then `bytes` up to the offset.
   */
  #textBefore(bytes: Uint8Array, byteOffset: number): string {
    const tail = this.#tail();
    const start = this.#byteCount - tail.length;
    const joined = new Uint8Array(tail.length + bytes.length);
    joined.set(tail, 0);
    joined.set(bytes, tail.length);
    // A BOM is dropped only at the very start of the stream, as the streaming decoder does.
    return new TextDecoder('utf-8', { ignoreBOM: start > 0 }).decode(joined.subarray(0, Math.max(byteOffset - start, 0)));
  }

  /** Where the first invalid byte of `bytes` is, counting from the start of the stream. */
  #invalidOffset(bytes: Uint8Array): number {
    const tail = this.#tail();
    const joined = new Uint8Array(tail.length + bytes.length);
    joined.set(tail, 0);
    joined.set(bytes, tail.length);
    const index = firstInvalidUtf8(joined);
    return this.#byteCount - tail.length + Math.max(index, 0);
  }
}
