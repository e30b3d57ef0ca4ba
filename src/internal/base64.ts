/**
 * Standard base64 (RFC 4648, with padding), written out: `Buffer` is Node-only, and `btoa` wants a
 * binary string built first. The codec of the chunk lines of a recording file: exported for
 * `recordingFile.ts` only, not from the package.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 61; // '='
/** The 6-bit value of each ASCII code, 255 for codes outside the alphabet. */
const SEXTET = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;

/** Standard base64 (RFC 4648, with padding), in one pass into a byte buffer, decoded as ASCII once. */
export function encodeBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ALPHABET_CODES[n >>> 18]!;
    out[o++] = ALPHABET_CODES[(n >>> 12) & 63]!;
    out[o++] = ALPHABET_CODES[(n >>> 6) & 63]!;
    out[o++] = ALPHABET_CODES[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out[o++] = ALPHABET_CODES[n >>> 18]!;
    out[o++] = ALPHABET_CODES[(n >>> 12) & 63]!;
    out[o++] = rest === 2 ? ALPHABET_CODES[(n >>> 6) & 63]! : PAD;
    out[o] = PAD;
  }
  return new TextDecoder().decode(out); // all ASCII: UTF-8 decoding is the identity here
}

/** Decodes standard padded base64, or returns undefined when the text is not exactly that. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const code = text.charCodeAt(i + j);
      // '=' only in the last one or two places of the last group
      if (code === PAD && last && j >= 4 - padding) {
        n <<= 6;
        continue;
      }
      const value = code < 128 ? SEXTET[code]! : 255;
      if (value === 255) return undefined;
      n = (n << 6) | value;
    }
    out[o++] = n >>> 16;
    if (o < out.length) out[o++] = (n >>> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
