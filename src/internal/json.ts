import type { JsonValue } from '../types/events.js';

/** A parsed JSON object whose fields are not yet checked. */
export type JsonObject = { readonly [key: string]: unknown };

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, or undefined. Providers send `""` and `null` for "not in this piece". */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number, or undefined. */
export function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The first characters of `text`, for error messages that must not grow with the input. */
export function excerpt(text: string, length = 60): string {
  return JSON.stringify(text.length > length ? `${text.slice(0, length)}…` : text);
}

/**
 * A copy of a JSON value taken out of a payload, safe to keep: dialects read payloads through a
 * template that overwrites the objects of one payload with the next one's. Object keys are defined,
 * not assigned (`__proto__` stays a field).
 */
export function copyJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(copyJson);
  if (typeof value === 'object') {
    const copy: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(copy, key, {
        value: copyJson((value as JsonObject)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return null;
}

/** Keys whose non-empty string values are reply text in some format: the unread-text guard looks for them. */
const TEXT_KEYS = new Set([
  'text',
  'content',
  'delta',
  'response',
  'output_text',
  'thinking',
  'reasoning',
  'reasoning_content',
  'refusal',
  'transcript',
  'partial_json',
  'arguments',
]);

/**
 * The path of the first non-empty string under a text-bearing key in `value` (`choices[0].text`),
 * looking at most `depth` levels down; undefined when there is none. A stream that ends with such
 * text and no event read from it lost its reply.
 */
export function findText(value: unknown, depth = 8, path = ''): string | undefined {
  if (depth === 0 || typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && i < 64; i++) {
      const found = findText(value[i], depth - 1, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const field = (value as JsonObject)[key];
    const where = path === '' ? key : `${path}.${key}`;
    if (typeof field === 'string') {
      if (field !== '' && TEXT_KEYS.has(key)) return where;
    } else {
      const found = findText(field, depth - 1, where);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
