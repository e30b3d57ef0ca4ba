/**
 * One limit a provider enforces, as its headers told it: how much the window allows, how much is
 * left, and when it fills again. A field the headers did not carry (or carried malformed) is absent.
 *
 * @example
 * ```ts
 * import type { RateLimit } from 'rxjs-llm-stream';
 *
 * const tokens: RateLimit = { limit: 30_000, remaining: 120, resetAt: Date.now() + 6_000 };
 * ```
 */
export interface RateLimit {
  /** What the window allows (requests, tokens, or the policy's unit). */
  readonly limit?: number;
  /** What is left of it now. */
  readonly remaining?: number;
  /**
   * When it is whole again, in milliseconds since the epoch (as `Date.now()`): relative resets
   * (OpenAI's `6m0s`, the IETF `t=30`) are added to the time the headers were read.
   */
  readonly resetAt?: number;
}

/**
 * A policy of the IETF `RateLimit-Policy` / `RateLimit` fields, by its name: the limit, its window
 * and its unit (`requests` unless the server named another).
 *
 * @example
 * ```ts
 * import type { RateLimitPolicy } from 'rxjs-llm-stream';
 *
 * const policy: RateLimitPolicy = { limit: 100, remaining: 50, windowSeconds: 60, unit: 'requests' };
 * ```
 */
export interface RateLimitPolicy extends RateLimit {
  /** The window the quota is counted over, in seconds (`w`). */
  readonly windowSeconds?: number;
  /** What the quota counts (`qu`): `requests` by default, `content-bytes`, `concurrent-requests`, or the server's own. */
  readonly unit: string;
}

/**
 * What a response said of the limits its caller is under, from whichever header family it used
 * (`readRateLimits`): OpenAI's `x-ratelimit-*`, Anthropic's `anthropic-ratelimit-*`, the IETF
 * `RateLimit` / `RateLimit-Policy` fields. A kind the headers did not mention is absent.
 *
 * @example
 * ```ts
 * import type { RateLimits } from 'rxjs-llm-stream';
 *
 * function slowDown(limits: RateLimits): boolean {
 *   return (limits.tokens?.remaining ?? Infinity) < 1_000;
 * }
 * ```
 */
export interface RateLimits {
  /** Requests per window (OpenAI, Anthropic). */
  readonly requests?: RateLimit;
  /** Tokens per window, input and output together (OpenAI, Anthropic). */
  readonly tokens?: RateLimit;
  /** Input tokens per window (Anthropic). */
  readonly inputTokens?: RateLimit;
  /** Output tokens per window (Anthropic). */
  readonly outputTokens?: RateLimit;
  /** The IETF fields' policies, by name (`"default"`, `"burst"`, ...). */
  readonly policies?: { readonly [name: string]: RateLimitPolicy };
}
