import type { RateLimit } from '../types/rateLimits.js';

/** A header value that is a whole number of zero or more (`"30000"`), else `undefined`. */
export function nonNegativeInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,15}\s*$/.test(text)) return undefined;
  return Number(text);
}

/** The limit with the fields that were read, or `undefined` when none was. */
export function limitOf(limit: number | undefined, remaining: number | undefined, resetAt: number | undefined): RateLimit | undefined {
  if (limit === undefined && remaining === undefined && resetAt === undefined) return undefined;
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(resetAt === undefined ? {} : { resetAt }),
  };
}
