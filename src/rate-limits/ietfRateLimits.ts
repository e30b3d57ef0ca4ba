import type { RateLimitPolicy } from '../types/rateLimits.js';
import { HeadersLike, headerValue } from '../internal/headerValue.js';
import { BareItem, ListMember, parseStructuredList } from './structuredFieldList.js';

/** A parameter that is a whole number of zero or more, as the draft requires of `q`, `w`, `r` and `t`. */
function count(value: BareItem | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A policy's name: a string or a token (the draft writes strings; early servers send tokens). */
function nameOf(member: ListMember): string | undefined {
  return typeof member.item === 'string' ? member.item : undefined;
}

/**
 * The IETF fields (draft-ietf-httpapi-ratelimit-headers-12): `RateLimit-Policy` (`"default";q=100;w=60`:
 * the quota `q`, the window `w` in seconds, the unit `qu`) and `RateLimit` (`"default";r=50;t=30`:
 * the remaining `r`, seconds to the reset `t`), joined by policy name. A field that breaks the
 * structured-field grammar is ignored whole, a member without a usable value is left out.
 */
export function ietfRateLimits(headers: HeadersLike, now: number): { [name: string]: RateLimitPolicy } | undefined {
  const policyField = headerValue(headers, 'ratelimit-policy');
  const limitField = headerValue(headers, 'ratelimit');
  const policies = new Map<string, { -readonly [K in keyof RateLimitPolicy]: RateLimitPolicy[K] }>();
  const entry = (name: string): { -readonly [K in keyof RateLimitPolicy]: RateLimitPolicy[K] } => {
    let policy = policies.get(name);
    if (policy === undefined) policies.set(name, (policy = { unit: 'requests' }));
    return policy;
  };
  for (const member of policyField === undefined ? [] : (parseStructuredList(policyField) ?? [])) {
    const name = nameOf(member);
    const quota = count(member.params.get('q'));
    if (name === undefined || quota === undefined) continue; // `q` is required of a policy
    const policy = entry(name);
    policy.limit = quota;
    const window = count(member.params.get('w'));
    if (window !== undefined) policy.windowSeconds = window;
    const unit = member.params.get('qu');
    if (typeof unit === 'string' && unit !== '') policy.unit = unit;
  }
  for (const member of limitField === undefined ? [] : (parseStructuredList(limitField) ?? [])) {
    const name = nameOf(member);
    const remaining = count(member.params.get('r'));
    if (name === undefined || remaining === undefined) continue; // `r` is required of a limit
    const policy = entry(name);
    policy.remaining = remaining;
    const reset = count(member.params.get('t'));
    if (reset !== undefined) policy.resetAt = now + reset * 1000;
  }
  return policies.size === 0 ? undefined : Object.fromEntries(policies);
}
