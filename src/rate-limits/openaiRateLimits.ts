import type { RateLimit } from '../types/rateLimits.js';
import { HeadersLike, headerValue } from '../internal/headerValue.js';
import { limitOf, nonNegativeInteger } from './rateLimitFields.js';

/** The length of each unit of a Go duration, in milliseconds. */
const UNIT_MS: { readonly [unit: string]: number } = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000_001 };

/** One `<number><unit>` piece of a duration, read from where the last one ended. */
const PIECE = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/y;

/**
 * A Go duration as OpenAI writes its resets (`6m0s`, `1s`, `20ms`, `1h2m3.5s`), in milliseconds;
 * `undefined` for anything else (an empty value, a bare number, a negative one, trailing junk).
 */
export function goDurationMs(text: string): number | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  PIECE.lastIndex = 0;
  let total = 0;
  while (PIECE.lastIndex < value.length) {
    const at = PIECE.lastIndex;
    const piece = PIECE.exec(value);
    if (piece === null || piece.index !== at) return undefined;
    total += Number(piece[1]) * UNIT_MS[piece[2]!]!;
  }
  return Number.isFinite(total) ? total : undefined;
}

/**
 * OpenAI's limits: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the reset a Go
 * duration from `now`. Malformed values are left out.
 */
export function openaiRateLimits(headers: HeadersLike, now: number): { requests?: RateLimit; tokens?: RateLimit } {
  const kind = (name: 'requests' | 'tokens'): RateLimit | undefined => {
    const reset = headerValue(headers, `x-ratelimit-reset-${name}`);
    const inMs = reset === undefined ? undefined : goDurationMs(reset);
    return limitOf(
      nonNegativeInteger(headerValue(headers, `x-ratelimit-limit-${name}`)),
      nonNegativeInteger(headerValue(headers, `x-ratelimit-remaining-${name}`)),
      inMs === undefined ? undefined : now + inMs,
    );
  };
  const requests = kind('requests');
  const tokens = kind('tokens');
  return { ...(requests === undefined ? {} : { requests }), ...(tokens === undefined ? {} : { tokens }) };
}
