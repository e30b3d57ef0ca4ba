/**
 * The Redis Cluster hash slot of `key` (0 to 16383): CRC16 (XMODEM) of its hash tag (what is
 * between the first `{` and the next `}`, when not empty) or of the whole key, modulo 16384. The
 * store groups what it waits on by slot, as one `XREAD` may only name keys of one slot.
 *
 * @example
 * ```ts
 * keySlot('llm-stream:{abc}:alive') === keySlot('llm-stream:{abc}'); // true
 * ```
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(new TextEncoder().encode(hashed)) % 16384;
}

/** CRC16-CCITT (XMODEM), as Redis Cluster hashes keys. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * A hash tag whose keys fall in `slot`: the store's wake-up stream for the readers of that slot
 * must share it, as an `XREAD` names keys of one slot only. Found by trying `0`, `1`, `2`, ...
 * (a few thousand tries at most; each slot's tag is computed once).
 *
 * @example
 * ```ts
 * keySlot(`wake:{${tagOfSlot(12)}}`); // 12
 * ```
 */
export function tagOfSlot(slot: number): string {
  let tag = tags.get(slot);
  for (let n = 0; tag === undefined; n++) if (keySlot(String(n)) === slot) tag = String(n);
  tags.set(slot, tag);
  return tag;
}
const tags = new Map<number, string>();
