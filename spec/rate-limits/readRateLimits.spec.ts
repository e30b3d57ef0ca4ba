import { readRateLimits } from '../../src/rate-limits/readRateLimits';

/** The time the headers are read at, fixed so that relative resets have known absolute values. */
const NOW = Date.UTC(2026, 11, 6, 10, 0, 0);

const fetchHeaders = (record: Record<string, string>): Headers => new Headers(record);

describe('readRateLimits', () => {
  it('is undefined for headers that carry no limit', () => {
    expect(readRateLimits(fetchHeaders({ 'content-type': 'text/event-stream' }), NOW)).toBeUndefined();
    expect(readRateLimits({}, NOW)).toBeUndefined();
  });

  describe("OpenAI's x-ratelimit-*", () => {
    it.each([
      ['6m0s', 360_000],
      ['1s', 1_000],
      ['20ms', 20],
      ['1h2m3.5s', 3_723_500],
      ['0.5s', 500],
      ['2m', 120_000],
    ])('reads the reset %s as %d ms from now', (reset, ms) => {
      const limits = readRateLimits(fetchHeaders({ 'x-ratelimit-reset-tokens': reset }), NOW);
      expect(limits).toEqual({ tokens: { resetAt: NOW + ms } });
    });

    it('reads limit, remaining and reset of requests and tokens', () => {
      const headers = fetchHeaders({
        'x-ratelimit-limit-requests': '5000',
        'x-ratelimit-remaining-requests': '4999',
        'x-ratelimit-reset-requests': '12ms',
        'x-ratelimit-limit-tokens': '800000',
        'x-ratelimit-remaining-tokens': '799982',
        'x-ratelimit-reset-tokens': '1ms',
      });
      expect(readRateLimits(headers, NOW)).toEqual({
        requests: { limit: 5000, remaining: 4999, resetAt: NOW + 12 },
        tokens: { limit: 800000, remaining: 799982, resetAt: NOW + 1 },
      });
    });

    it.each([
      ['a negative count', { 'x-ratelimit-limit-requests': '-1', 'x-ratelimit-remaining-requests': '3' }, { requests: { remaining: 3 } }],
      ['a fraction', { 'x-ratelimit-remaining-requests': '2.5', 'x-ratelimit-limit-requests': '10' }, { requests: { limit: 10 } }],
      ['a word', { 'x-ratelimit-remaining-tokens': 'many', 'x-ratelimit-reset-tokens': '1s' }, { tokens: { resetAt: NOW + 1000 } }],
      ['a bare number as a reset', { 'x-ratelimit-reset-tokens': '30', 'x-ratelimit-limit-tokens': '9' }, { tokens: { limit: 9 } }],
      ['a reset with junk after it', { 'x-ratelimit-reset-tokens': '1sx', 'x-ratelimit-limit-tokens': '9' }, { tokens: { limit: 9 } }],
      ['an empty reset', { 'x-ratelimit-reset-tokens': '', 'x-ratelimit-limit-tokens': '9' }, { tokens: { limit: 9 } }],
      ['a negative reset', { 'x-ratelimit-reset-tokens': '-1s', 'x-ratelimit-limit-tokens': '9' }, { tokens: { limit: 9 } }],
    ])('leaves out %s and keeps the rest', (_, record, expected) => {
      expect(readRateLimits(fetchHeaders(record), NOW)).toEqual(expected);
    });

    it('is undefined when every value is malformed', () => {
      expect(readRateLimits(fetchHeaders({ 'x-ratelimit-limit-tokens': 'lots', 'x-ratelimit-reset-tokens': 'soon' }), NOW)).toBeUndefined();
    });
  });

  describe("Anthropic's anthropic-ratelimit-*", () => {
    it('reads every kind, the reset an RFC 3339 time', () => {
      const headers = fetchHeaders({
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '49',
        'anthropic-ratelimit-requests-reset': '2026-12-06T10:00:01Z',
        'anthropic-ratelimit-tokens-limit': '90000',
        'anthropic-ratelimit-tokens-remaining': '89000',
        'anthropic-ratelimit-tokens-reset': '2026-12-06T10:00:06.5Z',
        'anthropic-ratelimit-input-tokens-limit': '40000',
        'anthropic-ratelimit-input-tokens-remaining': '39500',
        'anthropic-ratelimit-input-tokens-reset': '2026-12-06T11:00:00+01:00',
        'anthropic-ratelimit-output-tokens-limit': '8000',
        'anthropic-ratelimit-output-tokens-remaining': '7500',
        'anthropic-ratelimit-output-tokens-reset': '2026-12-06T10:01:00Z',
      });
      expect(readRateLimits(headers, NOW)).toEqual({
        requests: { limit: 50, remaining: 49, resetAt: NOW + 1_000 },
        tokens: { limit: 90000, remaining: 89000, resetAt: NOW + 6_500 },
        inputTokens: { limit: 40000, remaining: 39500, resetAt: NOW },
        outputTokens: { limit: 8000, remaining: 7500, resetAt: NOW + 60_000 },
      });
    });

    it.each([
      ['a date without a time zone', '2026-12-06T10:00:01'],
      ['an HTTP date', 'Sun, 06 Dec 2026 10:00:01 GMT'],
      ['seconds', '60'],
      ['an impossible month', '2026-13-06T10:00:01Z'],
      ['nothing', ''],
    ])('leaves out a reset that is %s', (_, reset) => {
      const headers = fetchHeaders({
        'anthropic-ratelimit-output-tokens-remaining': '7',
        'anthropic-ratelimit-output-tokens-reset': reset,
      });
      expect(readRateLimits(headers, NOW)).toEqual({ outputTokens: { remaining: 7 } });
    });

    it('wins over an OpenAI value of the same kind, field by field', () => {
      const headers = fetchHeaders({
        'x-ratelimit-limit-requests': '10',
        'x-ratelimit-remaining-requests': '9',
        'anthropic-ratelimit-requests-remaining': '4',
      });
      expect(readRateLimits(headers, NOW)).toEqual({ requests: { limit: 10, remaining: 4 } });
    });
  });

  describe('the IETF RateLimit and RateLimit-Policy fields', () => {
    it('joins a policy and its current limit by name', () => {
      const headers = fetchHeaders({ 'RateLimit-Policy': '"default";q=100;w=60', RateLimit: '"default";r=50;t=30' });
      expect(readRateLimits(headers, NOW)).toEqual({
        policies: { default: { limit: 100, windowSeconds: 60, unit: 'requests', remaining: 50, resetAt: NOW + 30_000 } },
      });
    });

    it('reads several policies, their units, and a limit without a policy', () => {
      const headers = fetchHeaders({
        'RateLimit-Policy': '"burst";q=10;w=1, "daily";q=1000;w=86400;qu="content-bytes"',
        RateLimit: '"daily";r=700;t=3600, "other";r=3',
      });
      expect(readRateLimits(headers, NOW)).toEqual({
        policies: {
          burst: { limit: 10, windowSeconds: 1, unit: 'requests' },
          daily: { limit: 1000, windowSeconds: 86400, unit: 'content-bytes', remaining: 700, resetAt: NOW + 3_600_000 },
          other: { unit: 'requests', remaining: 3 },
        },
      });
    });

    it('reads a record of headers, as Node gives them', () => {
      expect(readRateLimits({ ratelimit: '"default";r=0;t=5', 'x-ratelimit-remaining-tokens': ['12'] }, NOW)).toEqual({
        tokens: { remaining: 12 },
        policies: { default: { unit: 'requests', remaining: 0, resetAt: NOW + 5_000 } },
      });
    });

    it.each([
      ['an unclosed string', '"default;q=100'],
      ['a trailing comma', '"default";q=100,'],
      ['a parameter without a key', '"default";=100'],
      ['junk between members', '"a";q=1 "b";q=2'],
      ['a control character', '"de\u0001fault";q=1'],
    ])('ignores a policy field with %s', (_, field) => {
      expect(readRateLimits(fetchHeaders({ 'RateLimit-Policy': field }), NOW)).toBeUndefined();
    });

    it.each([
      ['a negative quota', '"default";q=-1'],
      ['a fractional quota', '"default";q=1.5'],
      ['no quota', '"default";w=60'],
      ['a quota that is a string', '"default";q="100"'],
      ['an integer as its name', '7;q=100'],
    ])('leaves out a policy member with %s', (_, field) => {
      expect(readRateLimits(fetchHeaders({ 'RateLimit-Policy': `${field}, "kept";q=5` }), NOW)).toEqual({
        policies: { kept: { limit: 5, unit: 'requests' } },
      });
    });

    it('leaves out a limit member without a remaining count, and a reset that is not a count', () => {
      const headers = fetchHeaders({ RateLimit: '"a";t=5, "b";r=2;t=soon' });
      expect(readRateLimits(headers, NOW)).toEqual({ policies: { b: { unit: 'requests', remaining: 2 } } });
    });

    it('never throws on a headers object whose get throws', () => {
      const hostile = {
        get(): string | null {
          throw new Error('revoked');
        },
      };
      expect(readRateLimits(hostile, NOW)).toBeUndefined();
    });
  });
});
