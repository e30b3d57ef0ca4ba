import type { RateLimit } from '../types/rateLimits.js';
import { HeadersLike, headerValue } from '../internal/headerValue.js';
import { limitOf, nonNegativeInteger } from './rateLimitFields.js';

/** An RFC 3339 date-time (`2026-12-06T10:45:41Z`, fractions and offsets allowed); nothing looser. */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time in milliseconds since the epoch, or `undefined`. */
export function rfc3339Ms(text: string | undefined): number | undefined {
  const value = text?.trim();
  if (value === undefined || !RFC_3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The kinds Anthropic reports, by the name in its headers. */
const KINDS = [
  ['requests', 'requests'],
  ['tokens', 'tokens'],
  ['input-tokens', 'inputTokens'],
  ['output-tokens', 'outputTokens'],
] as const;

type AnthropicKind = (typeof KINDS)[number][1];

/**
 * Anthropic's limits: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 * the reset an RFC 3339 time. Malformed values are left out.
 */
export function anthropicRateLimits(headers: HeadersLike): { [K in AnthropicKind]?: RateLimit } {
  const limits: { [K in AnthropicKind]?: RateLimit } = {};
  for (const [name, kind] of KINDS) {
    const limit = limitOf(
      nonNegativeInteger(headerValue(headers, `anthropic-ratelimit-${name}-limit`)),
      nonNegativeInteger(headerValue(headers, `anthropic-ratelimit-${name}-remaining`)),
      rfc3339Ms(headerValue(headers, `anthropic-ratelimit-${name}-reset`)),
    );
    if (limit !== undefined) limits[kind] = limit;
  }
  return limits;
}
