import { Observable, catchError, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { retryRequest } from '../../src/request/retryRequest';

/** Angular's `HttpHeaders`, as far as the library reads it: `get`, case-insensitive. */
class FakeHttpHeaders {
  private readonly values: Map<string, string>;
  constructor(values: Record<string, string> = {}) {
    this.values = new Map(Object.entries(values).map(([name, value]) => [name.toLowerCase(), value]));
  }
  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }
}

/** An `HttpErrorResponse` as Angular makes it: status (0 when nothing answered), headers, the body as `error`. */
function httpError(status: number, headers: Record<string, string> = {}, error: unknown = null): object {
  return {
    name: 'HttpErrorResponse',
    status,
    statusText: '',
    headers: new FakeHttpHeaders(headers),
    error,
    message: `Http failure ${status}`,
  };
}

/** Angular's events: `HttpSentEvent`, `HttpHeaderResponse`, `HttpDownloadProgressEvent`. */
const EVENTS = {
  s: { type: 0 },
  h: { type: 2, status: 200, headers: new FakeHttpHeaders({ 'content-type': 'text/event-stream' }) },
  p: { type: 3, loaded: 12, partialText: 'data: {"a":1}' },
};

/** What a subscriber saw, as plain data for the marbles: the values' types, then the error's class and fields. */
function outcome(source: Observable<unknown>): Observable<unknown> {
  return source.pipe(
    catchError((error: unknown) =>
      of({
        class: (error as Error).constructor.name,
        reason: (error as { reason?: unknown }).reason,
        status: (error as { status?: unknown }).status,
        attempts: (error as { attempts?: unknown }).attempts,
      }),
    ),
  );
}

describe('retryRequest in virtual time', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('backs off 0.5 s then 1 s, less the jitter, then fails with every attempt', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, httpError(503));
      const result = retryRequest(() => source, { random: () => 0.2 });
      // 500 and 1000 ms, each less 0.2 of a quarter (5%): 475 and 950.
      expectObservable(outcome(result)).toBe('1428ms (e|)', {
        e: {
          class: 'ProviderError',
          reason: 'http-status',
          status: 503,
          attempts: [{ status: 503, waitMs: 475 }, { status: 503, waitMs: 950 }, { status: 503 }],
        },
      });
      expectSubscriptions(source.subscriptions).toBe(['^!', '476ms ^!', '1427ms ^!']);
    });
  });

  it('caps the backoff at maxDelayMs and makes maxRetries retries', () => {
    testScheduler.run(({ cold, expectSubscriptions, expectObservable }) => {
      const source = cold('#', undefined, httpError(0));
      const result = retryRequest(() => source, { random: () => 0, maxRetries: 5, maxDelayMs: 3000 });
      // 500, 1000, 2000, then 3000 twice (4000 and 8000 capped).
      expectSubscriptions(source.subscriptions).toBe(['(^!)', '500ms (^!)', '1500ms (^!)', '3500ms (^!)', '6500ms (^!)', '9500ms (^!)']);
      expectObservable(outcome(result).pipe()).toBe('9500ms (e|)', {
        e: {
          class: 'StreamClosedEarlyError',
          reason: 'transport',
          status: undefined,
          attempts: [
            { cause: httpError(0), waitMs: 500 },
            { cause: httpError(0), waitMs: 1000 },
            { cause: httpError(0), waitMs: 2000 },
            { cause: httpError(0), waitMs: 3000 },
            { cause: httpError(0), waitMs: 3000 },
            { cause: httpError(0) },
          ],
        },
      });
    });
  });

  it("waits an HttpErrorResponse's Retry-After, and passes Angular's events of the answered attempt", () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const refused = cold('s-#', EVENTS, httpError(429, { 'Retry-After': '2' }));
      const answered = cold('s-h-p-|', EVENTS);
      const attempts = [refused, answered];
      const result = retryRequest(() => attempts.shift()!);
      expectObservable(result).toBe('s 2001ms s-h-p-|', EVENTS);
      expectSubscriptions(refused.subscriptions).toBe('^-!');
      expectSubscriptions(answered.subscriptions).toBe('2002ms ^-----!');
    });
  });

  it('gives the last HttpErrorResponse as a ProviderError with its body, rate limits and attempts', () => {
    const body = { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } };
    const headers = { 'retry-after-ms': '100', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-limit-requests': '60' };
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('#', undefined, httpError(429, headers, JSON.stringify(body)));
      const result = retryRequest(() => source, { maxRetries: 1 }).pipe(
        catchError((error: unknown) => {
          const provider = error as ProviderError;
          return of([
            provider instanceof ProviderError,
            provider.message,
            provider.code,
            provider.body,
            provider.rateLimits,
            provider.attempts,
          ]);
        }),
      );
      expectObservable(result).toBe('100ms (e|)', {
        e: [
          true,
          'the provider answered HTTP 429: Rate limit reached',
          'rate_limit_exceeded',
          body,
          { requests: { limit: 60, remaining: 0 } },
          [{ status: 429, waitMs: 100 }, { status: 429 }],
        ],
      });
    });
  });

  it('does not retry an answer that says x-should-retry: false, nor a 400', () => {
    testScheduler.run(({ cold, expectSubscriptions }) => {
      const forbidden = cold('#', undefined, httpError(503, { 'x-should-retry': 'false' }));
      const invalid = cold('#', undefined, httpError(400));
      retryRequest(() => forbidden).subscribe({ error: () => undefined });
      retryRequest(() => invalid).subscribe({ error: () => undefined });
      expectSubscriptions(forbidden.subscriptions).toBe('(^!)');
      expectSubscriptions(invalid.subscriptions).toBe('(^!)');
    });
  });

  it('retries a ProviderError of an error status made by this library', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('#', undefined, new ProviderError('the provider answered HTTP 502', { status: 502 }));
      expectObservable(outcome(retryRequest(() => source, { maxRetries: 1, random: () => 0 }))).toBe('500ms (e|)', {
        e: { class: 'ProviderError', reason: 'http-status', status: 502, attempts: [{ status: 502, waitMs: 500 }, { status: 502 }] },
      });
    });
  });

  it('never retries once the reply started: a failure after a download progress passes through untouched', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const cut = httpError(0);
      const source = cold('s-h-p-#', EVENTS, cut);
      expectObservable(retryRequest(() => source)).toBe('s-h-p-#', EVENTS, cut);
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('cancels the wait on unsubscribe: no attempt follows', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, httpError(529));
      expectObservable(
        retryRequest(() => source),
        '^ 200ms !',
      ).toBe('');
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });

  it('retries a transport failure of this library before any value, and not a ProtocolError', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const reset = new StreamClosedEarlyError('the connection failed before any byte arrived', { reason: 'transport' });
      const closed = cold('#', undefined, reset);
      expectObservable(outcome(retryRequest(() => closed, { maxRetries: 1, random: () => 0 }))).toBe('500ms (e|)', {
        e: {
          class: 'StreamClosedEarlyError',
          reason: 'transport',
          status: undefined,
          attempts: [{ cause: reset, waitMs: 500 }, { cause: reset }],
        },
      });
      const refused = new ProtocolError('expected a streamed body (text/event-stream), got text/html', { reason: 'unknown-format' });
      const html = cold('#', undefined, refused);
      expectObservable(retryRequest(() => html)).toBe('#', undefined, refused);
      expectSubscriptions(html.subscriptions).toBe('(^!)');
    });
  });

  it('ends the stream with the error onRateLimits throws, and makes no further attempt', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, httpError(429, { 'x-ratelimit-remaining-requests': '0' }));
      const broken = new Error('the callback failed');
      const result = retryRequest(() => source, {
        onRateLimits: () => {
          throw broken;
        },
      });
      expectObservable(result).toBe('-#', undefined, broken);
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
  });
});
