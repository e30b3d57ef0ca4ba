import { execFile } from 'child_process';
import { IncomingMessage, Server, ServerResponse, createServer } from 'http';
import { AddressInfo } from 'net';
import { join } from 'path';
import { promisify } from 'util';

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
    response.writeHead(status, { 'content-type': 'application/json', 'access-control-expose-headers': '*', ...headers });
    response.end(JSON.stringify({ error: { message: `refused with ${status}`, type: 'overloaded_error' } }));
  };
const reset: Answer = (request) => request.socket.destroy();
const cutAfterFirstByte: Answer = (_, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(REPLY.slice(0, 40), () => setImmediate(() => response.socket?.destroy()));
};

const root = join(__dirname, '..', '..');
let server: Server;
let url: string;
let answers: Answer[] = [];
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    request.resume();
    request.on('end', () => (answers.shift() ?? refuse(500, { 'x-should-retry': 'false' }))(request, response));
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = [];
  requests = 0;
});

/** What the Angular client reports. */
async function angular(): Promise<{ content?: string; waits: number[]; limits: unknown[]; error?: Record<string, unknown> }> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'spec', 'support', 'angularRetryClient.mjs'), url], {
    cwd: root,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe("retryRequest over Angular's real HttpClient (withFetch), in a child process", () => {
  it('retries a 429 (retry-after-ms) and a 503 (backoff), then gives up on a reset, listing every attempt', async () => {
    answers = [refuse(429, { 'retry-after-ms': '1500', 'x-ratelimit-remaining-requests': '0' }), refuse(503), reset, ok];
    // Three retries are needed: the client allows the default two, so the reset is the last failure.
    const outcome = await angular();
    expect(requests).toBe(3);
    expect(outcome.waits).toEqual([1500, 1000]);
    expect(outcome.error).toMatchObject({
      name: 'StreamClosedEarlyError',
      reason: 'transport',
      attempts: [{ status: 429, waitMs: 1500 }, { status: 503, waitMs: 1000 }, { cause: 'HttpErrorResponse' }],
    });
    expect(outcome.limits).toEqual([{ status: 429, value: { requests: { remaining: 0 } } }]);
  });

  it('reads the reply after a 503 and a reset', async () => {
    answers = [refuse(503), reset, ok];
    const outcome = await angular();
    expect(outcome).toMatchObject({ content: 'Hi', waits: [500, 1000] });
    expect(requests).toBe(3);
  });

  it("gives the last HttpErrorResponse as a ProviderError with every attempt's status and the rate limits", async () => {
    const limits = { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-limit': '50' };
    answers = [refuse(529, limits), refuse(529, limits), refuse(529, limits)];
    const outcome = await angular();
    expect(outcome.error).toMatchObject({
      name: 'ProviderError',
      reason: 'http-status',
      status: 529,
      message: 'the provider answered HTTP 529: refused with 529',
      attempts: [{ status: 529, waitMs: 500 }, { status: 529, waitMs: 1000 }, { status: 529 }],
      rateLimits: { requests: { limit: 50, remaining: 0 } },
    });
  });

  it('never retries once the reply started: a reset after the first byte is cut, once', async () => {
    answers = [cutAfterFirstByte, ok];
    const outcome = await angular();
    expect(requests).toBe(1);
    expect(outcome.waits).toEqual([]);
    expect(outcome.error).toMatchObject({ name: 'StreamClosedEarlyError' });
  });
});
