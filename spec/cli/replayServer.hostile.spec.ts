import { readFileSync } from 'fs';
import { request as httpRequest } from 'http';
import { join } from 'path';
import { ReplayServer, startReplayServer } from '../../src/cli/replayServer';

// The replay server is the demo's upstream and the NestJS example's, a process that stays up: a
// request it cannot act on must get an answer, and must not take the server down with it.

const recording = readFileSync(join(__dirname, '..', '..', 'marbles', 'openai', 'text.sse'));

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => {
  await server.close();
});

interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

/**
 * Sends `path` as the request target exactly as given (no URL parsing on the way, unlike `fetch`),
 * and resolves to the answer, or rejects when the connection fails or closes without one.
 */
function send(path: string, options: { method?: string; body?: string } = {}): Promise<Answer> {
  const { port } = new URL(server.url);
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (piece: string) => (body += piece));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A good request still gets the whole recording, byte for byte. */
async function expectStillServing(): Promise<void> {
  const response = await fetch(`${server.url}/openai/text.sse`);
  expect(response.status).toBe(200);
  expect(Buffer.from(await response.arrayBuffer()).equals(recording)).toBe(true);
}

describe('the replay server answers a request it cannot act on with a 400, and keeps serving', () => {
  it.each([
    ['a malformed percent-encoding in the path', '/openai/%E0%A4%A.sse', 'the path has a malformed percent-encoding'],
    ['a lone percent sign in the path', '/openai/100%.sse', 'the path has a malformed percent-encoding'],
    ['a request target that is no URL', '//[', 'the request target is not a URL'],
    ['status=abc', '/openai/text.sse?status=abc', 'status must be an HTTP status from 200 to 599'],
    ['an empty status', '/openai/text.sse?status=', 'status must be an HTTP status from 200 to 599'],
    ['status=1000', '/openai/text.sse?status=1000', 'status must be an HTTP status from 200 to 599'],
    ['status=42', '/openai/text.sse?status=42', 'status must be an HTTP status from 200 to 599'],
    ['a 1xx status, which is no final answer', '/openai/text.sse?status=100', 'status must be an HTTP status from 200 to 599'],
    [
      'a CRLF in the content type',
      '/openai/text.sse?type=text/plain%0D%0AX-Injected:%201',
      'type must be a content type of at most 200 characters, without line ends or control characters',
    ],
    [
      'a character outside Latin-1 in the content type',
      '/openai/text.sse?type=text/%E2%82%AC',
      'type must be a content type of at most 200 characters, without line ends or control characters',
    ],
    [
      'a NUL in the content type',
      '/openai/text.sse?type=text/plain%00',
      'type must be a content type of at most 200 characters, without line ends or control characters',
    ],
    ['chunk=abc', '/openai/text.sse?chunk=abc', 'chunk must be a whole number of at most 15 digits'],
    ['delay=-5', '/openai/text.sse?delay=-5', 'delay must be a whole number of at most 15 digits'],
    ['truncate=1e400 (Infinity)', '/openai/text.sse?truncate=1e400', 'truncate must be a whole number of at most 15 digits'],
    ['stall=0x10', '/openai/text.sse?stall=0x10', 'stall must be a whole number of at most 15 digits'],
    ['an empty drop', '/openai/text.sse?drop=', 'drop must be a whole number of at most 15 digits'],
    ['reset=1.5', '/openai/text.sse?reset=1.5', 'reset must be a whole number of at most 15 digits'],
    ['dropOnce=NaN', '/openai/text.sse?dropOnce=NaN', 'dropOnce must be a whole number of at most 15 digits'],
    ['retry=abc (it would be written into the stream)', '/openai/text.sse?retry=abc', 'retry must be a whole number of at most 15 digits'],
  ])('%s', async (_name, path, message) => {
    const answer = await send(path);
    expect(answer).toEqual({ status: 400, contentType: 'text/plain; charset=utf-8', body: `${message}\n` });
    await expectStillServing();
  });

  it('a POST with a malformed percent-encoding and a body: 400, and the request is recorded as it came', async () => {
    const answer = await send('/dialects/%ZZ.sse?chunk=5', { method: 'POST', body: '{"stream":true}' });
    expect(answer.status).toBe(400);
    const seen = server.requests.find((request) => request.path === '/dialects/%ZZ.sse');
    expect(seen).toMatchObject({ method: 'POST', query: 'chunk=5', body: '{"stream":true}' });
    await expectStillServing();
  });

  it('a request body over 1 MiB: 413, and the server keeps serving', async () => {
    const answer = await send('/openai/text.sse', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(answer).toEqual({ status: 413, contentType: 'text/plain; charset=utf-8', body: 'request body over 1048576 bytes\n' });
    await expectStillServing();
  });

  it('what it keeps of the requests has a cap: the oldest bodies go first, the newest request stays', async () => {
    const body = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 20; i++) expect((await send(`/openai/text.sse?big=${i}`, { method: 'POST', body })).status).toBe(200);
    const keptBodies = server.requests.reduce((sum, request) => sum + request.body.length, 0);
    expect(keptBodies).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(server.requests.at(-1)?.query).toBe('big=19');
    await expectStillServing();
  });

  // A guard for the checks above: they must not refuse what the specs and the examples send.
  it('the good values of each parameter still work: a 429 as asked, and a content type that is a valid header', async () => {
    const limited = await send('/openai/text.sse?status=429');
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body)).toEqual({ error: { message: 'replayed error 429', type: 'replay_error', code: 429 } });
    const typed = await send('/openai/text.sse?type=text/html;%20charset=iso-8859-1&chunk=0&truncate=20');
    expect(typed).toEqual({ status: 200, contentType: 'text/html; charset=iso-8859-1', body: recording.subarray(0, 20).toString('utf8') });
  });
});
