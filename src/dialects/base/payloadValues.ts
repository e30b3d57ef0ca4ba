/** What the dialects say of a payload's values: errors in it, the description of a wrong value, an index. */
import { excerpt } from '../../internal/json.js';
import type { JsonObject } from '../../internal/json.js';

/** `where.field`, or `where` alone: joined only for an error message. */
export function path(where: string, field: string | undefined): string {
  return field === undefined ? where : `${where}.${field}`;
}

/** True for a payload that carries an error: a non-null top-level `error`. */
export function hasError(payload: JsonObject): boolean {
  return payload['error'] !== undefined && payload['error'] !== null;
}

/** A short description of a value of the wrong type, for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return excerpt(value, 20);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** True for an index a server may send: a non-negative safe integer. */
export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
