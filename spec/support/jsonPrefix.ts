import { isDeepStrictEqual } from 'util';
import { JsonValue } from '../../src/types/events';

/**
 * A deep copy made in this realm (Jest runs specs in a VM context, and `structuredClone` would make
 * objects with the outer realm's prototypes), keeping -0 and own `__proto__` keys.
 */
export function copy(value: JsonValue | undefined): JsonValue | undefined {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => copy(item)!);
  const object: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(object, key, { value: copy(value[key]), writable: true, enumerable: true, configurable: true });
  }
  return object;
}

/**
 * "p is a prefix of f": every string in p is a prefix of the string at the same place in f, every
 * array holds at most f's elements (all but its last equal to them), every object a subset of f's
 * keys (all but at most one equal to f's), every number, boolean and null is f's.
 */
export function isPrefix(p: JsonValue | undefined, f: JsonValue): boolean {
  if (p === undefined) return true;
  if (typeof p === 'string') return typeof f === 'string' && f.startsWith(p);
  if (p === null || typeof p !== 'object') return Object.is(p, f);
  if (Array.isArray(p)) {
    if (!Array.isArray(f) || p.length > f.length) return false;
    return p.every((item, i) => (i < p.length - 1 ? isDeepStrictEqual(item, f[i]) : isPrefix(item, f[i]!)));
  }
  if (f === null || typeof f !== 'object' || Array.isArray(f)) return false;
  const keys = Object.keys(p);
  if (!keys.every((key) => Object.hasOwn(f, key) && isPrefix(p[key], f[key]!))) return false;
  return keys.filter((key) => !isDeepStrictEqual(p[key], f[key])).length <= 1;
}
