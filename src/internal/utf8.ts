/** Length of the UTF-8 sequence a lead byte starts, or 0 if it cannot start one. */
export function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Whether `byte` may be the `position`-th byte (1-based after the lead) of a valid sequence led by
 * `lead`. The second byte's range depends on the lead: that is what rules out overlong forms,
 * UTF-16 surrogates and code points above U+10FFFF (WHATWG's UTF-8 decoder).
 */
export function utf8Continues(lead: number, position: number, byte: number): boolean {
  let low = 0x80;
  let high = 0xbf;
  if (position === 1) {
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
    else if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
  }
  return byte >= low && byte <= high;
}

/**
 * Index of the first byte that starts an invalid sequence (WHATWG's UTF-8 decoder: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or -1. Used only to name the offset in an error.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const need = utf8SequenceLength(lead);
    if (need === 0) return i;
    if (need === 1) {
      i++;
      continue;
    }
    for (let k = 1; k < need; k++) {
      const byte = bytes[i + k];
      if (byte === undefined) return -1; // incomplete at the end: not invalid (yet)
      if (!utf8Continues(lead, k, byte)) return i;
    }
    i += need;
  }
  return -1;
}
