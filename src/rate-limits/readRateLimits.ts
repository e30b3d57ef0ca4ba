import type { RateLimits } from '../types/rateLimits.js';
import type { HeadersLike } from '../internal/headerValue.js';
import { anthropicRateLimits } from './anthropicRateLimits.js';
import { ietfRateLimits } from './ietfRateLimits.js';
import { openaiRateLimits } from './openaiRateLimits.js';

/**
 * The rate limits a response's headers announce, from each family a provider uses, in one value:
 * OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (resets like `6m0s`, `1s`,
 * `20ms`), Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 * (RFC 3339 resets), and the IETF `RateLimit-Policy` / `RateLimit` structured fields
 * (draft-ietf-httpapi-ratelimit-headers-12) under `policies`. Every reset is an absolute time
 * (`resetAt`, milliseconds since the epoch), relative ones counted from `now`.
 *
 * Pure and total: a malformed value is left out, never thrown on; `undefined` when the headers
 * carry no limit at all. Where one kind comes from two families (a gateway adding its own), the
 * Anthropic value wins over the OpenAI one, field by field.
 *
 * @example
 * ```ts
 * import { readRateLimits } from 'rxjs-llm-stream';
 *
 * const response = await fetch(url, { method: 'POST', headers, body });
 * const limits = readRateLimits(response.headers);
 * if (limits?.tokens?.remaining !== undefined && limits.tokens.remaining < 2_000) pauseUntil(limits.tokens.resetAt);
 * ```
 *
 * @param headers A fetch `Headers`, Angular's `HttpHeaders`, or a record such as Node's `IncomingHttpHeaders`.
 * @param now The time the headers were read, in milliseconds since the epoch (`Date.now()` by default).
 * @returns The limits, or `undefined` when there were none.
 */
export function readRateLimits(headers: HeadersLike, now: number = Date.now()): RateLimits | undefined {
  const openai = openaiRateLimits(headers, now);
  const anthropic = anthropicRateLimits(headers);
  const policies = ietfRateLimits(headers, now);
  const limits: { -readonly [K in keyof RateLimits]: RateLimits[K] } = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const merged = { ...openai[kind], ...anthropic[kind] };
    if (Object.keys(merged).length > 0) limits[kind] = merged;
  }
  if (anthropic.inputTokens !== undefined) limits.inputTokens = anthropic.inputTokens;
  if (anthropic.outputTokens !== undefined) limits.outputTokens = anthropic.outputTokens;
  if (policies !== undefined) limits.policies = policies;
  return Object.keys(limits).length === 0 ? undefined : limits;
}
