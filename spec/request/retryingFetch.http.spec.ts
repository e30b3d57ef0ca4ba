import { AddressInfo } from 'net';
import { IncomingMessage, Server, ServerResponse, createServer } from 'http';
import { SchedulerLike, Subscription, asapScheduler, lastValueFrom, switchMap } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';
import { fromResponse } from '../../src/io/fromResponse';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { retryingFetch } from '../../src/request/retryingFetch';
import { retryRequest } from '../../src/request/retryRequest';
import type { RateLimits } from '../../src/types/rateLimits';

/** What the server does with one request. */
type Answer = (request: IncomingMessage, response: ServerResponse) => void;

const REPLY =
  'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n' +
  'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
  'data: [DONE]\n\n';

const ok: Answer = (_, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(REPLY);
};
const refuse =
  (status: number, headers: Record<string, string> = {}): Answer =>
  (_, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify({ error: { message: `refused with ${status}`, type: 'rate_limit_error' } }));
  };
/** Closes the connection before any byte of an answer. */
const reset: Answer = (request) => request.socket.destroy();
/** Sends the head and the first event, then closes the connection. */
const cutAfterFirstByte: Answer = (_, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(REPLY.slice(0, 40), () => setImmediate(() => response.socket?.destroy()));
};

let server: Server;
let url: string;
let answers: Answer[] = [];
let requests = 0;
let bodies: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      const answer = answers.shift() ?? refuse(500, { 'x-should-retry': 'false' });
      answer(request, response);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = [];
  requests = 0;
  bodies = [];
});

/** A scheduler that records each wait asked of it and runs the work at once: no test waits for real. */
function recordingScheduler(): { scheduler: SchedulerLike; waits: number[] } {
  const waits: number[] = [];
  const scheduler: SchedulerLike = {
    now: () => Date.now(),
    schedule: ((work: () => void, delay = 0) => {
      waits.push(delay);
      return asapScheduler.schedule(work, 0);
    }) as SchedulerLike['schedule'],
  };
  return { scheduler, waits };
}

/** The reply's text through the library's pipeline. */
function replyText(response: Response): Promise<string | null> {
  return lastValueFrom(fromResponse(response).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion())).then(
    (c) => c.content,
  );
}

/** The error the pipeline fails with. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const POST = { method: 'POST', body: '{"model":"m","stream":true}' };

describe('retryingFetch against a real server', () => {
  it('waits what retry-after-ms asks on a 429, then reads the reply; the body is sent again', async () => {
    answers = [refuse(429, { 'retry-after-ms': '250' }), ok];
    const { scheduler, waits } = recordingScheduler();
    const response = await retryingFetch(fetch, { scheduler })(url, POST);
    expect(await replyText(response)).toBe('Hi');
    expect(waits).toEqual([250]);
    expect(bodies).toEqual([POST.body, POST.body]);
  });

  it('waits Retry-After seconds on a 429', async () => {
    answers = [refuse(429, { 'retry-after': '3' }), ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler })(url, POST))).toBe('Hi');
    expect(waits).toEqual([3000]);
  });

  it('waits until a Retry-After HTTP date on a 429', async () => {
    const now = Date.UTC(2026, 11, 6, 12, 0, 0);
    answers = [refuse(429, { 'retry-after': 'Sun, 06 Dec 2026 12:00:42 GMT' }), ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler, now: () => now })(url, POST))).toBe('Hi');
    expect(waits).toEqual([42_000]);
  });

  it('falls back to the backoff when Retry-After asks for more than the cap', async () => {
    answers = [refuse(429, { 'retry-after': '3600' }), ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler, random: () => 0 })(url, POST))).toBe('Hi');
    expect(waits).toEqual([500]);
  });

  it('does not retry a 429 that says x-should-retry: false; the ProviderError has its rate limits and attempt', async () => {
    answers = [refuse(429, { 'x-should-retry': 'false', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s' }), ok];
    const { scheduler, waits } = recordingScheduler();
    const before = Date.now();
    const response = await retryingFetch(fetch, { scheduler })(url, POST);
    const error = await failureOf(replyText(response));
    expect(requests).toBe(1);
    expect(waits).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    const provider = error as ProviderError;
    expect(provider.status).toBe(429);
    expect(provider.message).toBe('the provider answered HTTP 429: refused with 429');
    expect(provider.attempts).toEqual([{ status: 429 }]);
    expect(provider.rateLimits?.requests?.remaining).toBe(0);
    expect(provider.rateLimits?.requests?.resetAt).toBeGreaterThanOrEqual(before + 20_000);
  });

  it('retries an answer that says x-should-retry: true, even a 400', async () => {
    answers = [refuse(400, { 'x-should-retry': 'true' }), ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler, random: () => 0 })(url, POST))).toBe('Hi');
    expect(waits).toEqual([500]);
  });

  it('does not retry a 400', async () => {
    answers = [refuse(400), ok];
    const { scheduler } = recordingScheduler();
    const error = await failureOf(replyText(await retryingFetch(fetch, { scheduler })(url, POST)));
    expect(requests).toBe(1);
    expect((error as ProviderError).status).toBe(400);
    expect((error as ProviderError).attempts).toEqual([{ status: 400 }]);
  });

  it('retries a 503 with the backoff, then reads the 200', async () => {
    answers = [refuse(503), ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler, random: () => 0.5 })(url, POST))).toBe('Hi');
    expect(waits).toEqual([500 * 0.875]);
  });

  it('gives up after two retries with a ProviderError listing every attempt, and reports the limits of each answer', async () => {
    const limits = { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-12-06T12:00:00Z' };
    answers = [refuse(429, limits), refuse(529, limits), refuse(503, limits), ok];
    const { scheduler, waits } = recordingScheduler();
    const seen: Array<[RateLimits, number]> = [];
    const send = retryingFetch(fetch, { scheduler, random: () => 0, onRateLimits: (l, status) => seen.push([l, status]) });
    const error = await failureOf(replyText(await send(url, POST)));
    expect(requests).toBe(3);
    expect(waits).toEqual([500, 1000]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).attempts).toEqual([{ status: 429, waitMs: 500 }, { status: 529, waitMs: 1000 }, { status: 503 }]);
    const limit = { requests: { remaining: 0, resetAt: Date.UTC(2026, 11, 6, 12, 0, 0) } };
    expect((error as ProviderError).rateLimits).toEqual(limit);
    expect(seen).toEqual([
      [limit, 429],
      [limit, 529],
      [limit, 503],
    ]);
  });

  it('retries a connection reset before the first byte', async () => {
    answers = [reset, ok];
    const { scheduler, waits } = recordingScheduler();
    expect(await replyText(await retryingFetch(fetch, { scheduler, random: () => 0 })(url, POST))).toBe('Hi');
    expect(requests).toBe(2);
    expect(waits).toEqual([500]);
  });

  it('fails with a StreamClosedEarlyError listing every attempt when no attempt is answered', async () => {
    answers = [reset, reset, reset, ok];
    const { scheduler } = recordingScheduler();
    const error = await failureOf(retryingFetch(fetch, { scheduler, random: () => 0 })(url, POST));
    expect(requests).toBe(3);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    const closed = error as StreamClosedEarlyError;
    expect(closed.reason).toBe('transport');
    expect(closed.message).toMatch(/^the connection failed before any byte arrived \(3 attempts\): /);
    expect(closed.attempts?.map((attempt) => attempt.waitMs)).toEqual([500, 1000, undefined]);
    expect(closed.attempts?.every((attempt) => attempt.status === undefined && attempt.cause !== undefined)).toBe(true);
    expect(closed.cause).toBe(closed.attempts?.[2]?.cause);
  });

  it('never retries once the first byte arrived: the reply is cut, as without retries', async () => {
    answers = [cutAfterFirstByte, ok];
    const { scheduler, waits } = recordingScheduler();
    const error = await failureOf(replyText(await retryingFetch(fetch, { scheduler })(url, POST)));
    expect(requests).toBe(1);
    expect(waits).toEqual([]);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as StreamClosedEarlyError).reason).toBe('transport');
    expect((error as StreamClosedEarlyError).message).toMatch(/^the connection failed after 40 bytes in 1 chunk/);
  });

  it('ends a wait when the request is aborted, and makes no further attempt', async () => {
    answers = [refuse(429, { 'retry-after': '30' }), ok];
    const controller = new AbortController();
    const pending: Array<() => void> = [];
    let cancelled = 0;
    // A scheduler that holds the wait until the test aborts: the abort must end it.
    const scheduler: SchedulerLike = {
      now: () => Date.now(),
      schedule: ((work: () => void) => {
        pending.push(work);
        return new Subscription(() => cancelled++);
      }) as SchedulerLike['schedule'],
    };
    const attempt = retryingFetch(fetch, { scheduler })(url, { ...POST, signal: controller.signal });
    while (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('the user left'));
    await expect(attempt).rejects.toThrow('the user left');
    expect(cancelled).toBe(1);
    expect(requests).toBe(1);
  });
});

describe('retryRequest over fromFetch against a real server', () => {
  it('retries a 429 Response before its body and reads the reply of the next attempt', async () => {
    answers = [refuse(429, { 'retry-after-ms': '10' }), ok];
    const { scheduler, waits } = recordingScheduler();
    const completion = await lastValueFrom(
      retryRequest(() => fromFetch(url, POST), { scheduler }).pipe(
        switchMap((response) => fromResponse(response)),
        decodeUtf8(),
        sseFrames(),
        assembleChunks(),
        finalizeCompletion(),
      ),
    );
    expect(completion.content).toBe('Hi');
    expect(waits).toEqual([10]);
    expect(requests).toBe(2);
  });

  it('hands on the last error Response with its attempts, for fromResponse', async () => {
    answers = [refuse(503), refuse(503), refuse(503)];
    const { scheduler } = recordingScheduler();
    const error = await failureOf(
      lastValueFrom(retryRequest(() => fromFetch(url, POST), { scheduler, random: () => 0 }).pipe(switchMap((r) => fromResponse(r)))),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).attempts).toEqual([{ status: 503, waitMs: 500 }, { status: 503, waitMs: 1000 }, { status: 503 }]);
  });
});
