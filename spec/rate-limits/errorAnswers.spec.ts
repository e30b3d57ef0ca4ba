import { Readable } from 'stream';
import { lastValueFrom } from 'rxjs';
import { ProviderError } from '../../src/errors/errors';
import { fromReadableStream } from '../../src/io/fromReadableStream';
import { fromResponse } from '../../src/io/fromResponse';

/** The error a source fails with. */
async function failureOf(source: Promise<unknown>): Promise<ProviderError> {
  try {
    await source;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

const BODY = '{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}';

describe('rate limits on the ProviderError of an error answer', () => {
  it('reads the headers of a 429 fetch Response', async () => {
    const before = Date.now();
    const response = new Response(BODY, {
      status: 429,
      headers: {
        'content-type': 'application/json',
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '2s',
        RateLimit: '"default";r=0;t=2',
      },
    });
    const error = await failureOf(lastValueFrom(fromResponse(response)));
    const after = Date.now();
    expect(error.status).toBe(429);
    expect(error.rateLimits?.requests).toMatchObject({ limit: 500, remaining: 0 });
    expect(error.rateLimits?.requests?.resetAt).toBeGreaterThanOrEqual(before + 2000);
    expect(error.rateLimits?.requests?.resetAt).toBeLessThanOrEqual(after + 2000);
    expect(error.rateLimits?.policies?.['default']).toMatchObject({ remaining: 0, unit: 'requests' });
    expect(error.attempts).toBeUndefined();
  });

  it('reads them on any error status, and leaves rateLimits undefined when there are none', async () => {
    const limited = new Response('{"error":{"message":"overloaded"}}', {
      status: 529,
      headers: { 'anthropic-ratelimit-tokens-remaining': '12', 'anthropic-ratelimit-tokens-limit': '400000' },
    });
    expect((await failureOf(lastValueFrom(fromResponse(limited)))).rateLimits).toEqual({ tokens: { limit: 400000, remaining: 12 } });
    const bare = new Response('Bad Gateway', { status: 502 });
    expect((await failureOf(lastValueFrom(fromResponse(bare)))).rateLimits).toBeUndefined();
  });

  it("reads the headers of a Node response's error status", async () => {
    const message = Object.assign(Readable.from([Buffer.from(BODY)]), {
      statusCode: 429,
      headers: { 'content-type': 'application/json', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-limit-tokens': '90000' },
    });
    const error = await failureOf(lastValueFrom(fromReadableStream(message)));
    expect(error.rateLimits).toEqual({ tokens: { limit: 90000, remaining: 0 } });
    expect(error.code).toBe('rate_limit_exceeded');
  });
});
