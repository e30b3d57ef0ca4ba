import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'http';
import { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseRecordArguments, record } from '../../src/cli/record';
import { parseRecording } from '../../src/recording/recordingFile';

// `record` is run with a provider's key at hand: the key must reach that provider and nothing else,
// and must show neither in what it prints nor in the file it writes (recordings are made to be shared).

const reply = readFileSync(join(__dirname, '..', '..', 'marbles', 'openai', 'text.sse'));

/** What a server saw of one request. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A server on 127.0.0.1 and a free port that keeps what it was sent and answers with `answer`. */
async function startServer(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (piece: string) => (body += piece));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** Answers with the recorded reply, as a provider streams it. */
const streamReply = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(reply);
};

let folder: string;
let provider: Awaited<ReturnType<typeof startServer>>;
let redirecting: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-credentials-'));
  provider = await startServer(streamReply);
  // The first origin redirects: `/<status>/<path>` to `<path>` on the other origin (another port),
  // `/same/<path>` to `<path>` on its own origin, and serves the reply itself on any other path.
  redirecting = await startServer((request, response) => {
    const [, first, ...rest] = (request.url ?? '/').split('/');
    const path = `/${rest.join('/')}`;
    if (first === 'same') response.writeHead(307, { location: path }).end();
    else if (/^30[12378]$/.test(first ?? '')) response.writeHead(Number(first), { location: `${provider.url}${path}` }).end();
    else streamReply(request, response);
  });
});
afterAll(async () => {
  await new Promise((resolve) => provider.server.close(resolve));
  await new Promise((resolve) => redirecting.server.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `record` and collects what it printed and logged, and the file it wrote. */
async function runRecord(
  url: string,
  options: Partial<Parameters<typeof record>[1]> = {},
): Promise<{ code: number; printed: string; file: string | undefined }> {
  let printed = '';
  const out = join(folder, `${Math.random().toString(36).slice(2)}.rec.jsonl`);
  const code = await record(url, { out, ...options, write: (text) => (printed += text), log: (text) => (printed += text) });
  let file: string | undefined;
  try {
    file = readFileSync(out, 'utf8');
  } catch {
    file = undefined;
  }
  return { code, printed, file };
}

/** The secret headers a provider call may carry, and one that is not a secret. */
const SENT_HEADERS: [string, string][] = [
  ['authorization', 'Bearer sk-authorization'],
  ['proxy-authorization', 'Basic cHJveHk6c2VjcmV0'],
  ['cookie', 'session=cookie-secret'],
  ['x-api-key', 'sk-ant-x-api-key'],
  ['api-key', 'azure-api-key'],
  ['x-goog-api-key', 'AIza-goog-api-key'],
  ['ocp-apim-subscription-key', 'apim-subscription-key'],
  ['x-auth-user', 'auth-user'],
  ['x-session-token', 'session-token'],
  ['x-client-secret', 'client-secret'],
  ['x-request-tag', 'kept-as-sent'],
];
const SECRET_NAMES = SENT_HEADERS.map(([name]) => name).filter((name) => name !== 'x-request-tag');

describe('record never sends a secret header to another origin', () => {
  it.each([[307], [308], [301], [302], [303]])(
    'a %s from one origin to another: the second origin gets none of the secret headers, only the others',
    async (status) => {
      const before = provider.seen.length;
      const { code } = await runRecord(`${redirecting.url}/${status}/v1/chat?status-${status}`, {
        headers: SENT_HEADERS,
        data: '{"stream":true}',
      });
      expect(code).toBe(0);
      expect(provider.seen.length).toBe(before + 1);
      const got = provider.seen.at(-1)!;
      expect(got.path).toBe(`/v1/chat?status-${status}`);
      expect(Object.keys(got.headers).filter((name) => SECRET_NAMES.includes(name))).toEqual([]);
      expect(JSON.stringify(got.headers)).not.toMatch(/secret|sk-|AIza|azure|auth-user|session/);
      expect(got.headers['x-request-tag']).toBe('kept-as-sent');
      // 307 and 308 repeat the request as it was; the others turn a POST into a GET without its body.
      expect([got.method, got.body]).toEqual(status === 307 || status === 308 ? ['POST', '{"stream":true}'] : ['GET', '']);
    },
  );

  // A guard for the rule above: the key still reaches the origin it was given for.
  it('a redirect within one origin keeps them: that is the server the key was given for', async () => {
    const before = redirecting.seen.length;
    const { code } = await runRecord(`${redirecting.url}/same/v1/chat`, { headers: SENT_HEADERS });
    expect(code).toBe(0);
    const got = redirecting.seen.slice(before);
    expect(got.map((request) => request.path)).toEqual(['/same/v1/chat', '/v1/chat']);
    for (const [name, value] of SENT_HEADERS) expect(got[1]!.headers[name]).toBe(value);
  });
});

describe('record never prints user info or a credential parameter, nor writes one', () => {
  const SECRET_QUERY =
    'code=AZURE-FUNCTION-KEY&key=GEMINI-KEY&api-key=API-KEY&passwd=PASSWD-VALUE&password=PASSWORD-VALUE' +
    '&token=TOKEN-VALUE&access_token=ACCESS-TOKEN&sig=SIGNATURE-VALUE&X-Amz-Credential=AMZ-CREDENTIAL&alt=sse&model=m';
  const SECRET_VALUES =
    /AZURE-FUNCTION-KEY|GEMINI-KEY|API-KEY|PASSWD-VALUE|PASSWORD-VALUE|TOKEN-VALUE|ACCESS-TOKEN|SIGNATURE-VALUE|AMZ-CREDENTIAL/;

  it('the credential parameters of the URL are REDACTED in the file; the others are kept as they were', async () => {
    const { code, printed, file } = await runRecord(`${provider.url}/v1/chat?${SECRET_QUERY}`);
    expect(code).toBe(0);
    expect(printed).not.toMatch(SECRET_VALUES);
    expect(file).not.toMatch(SECRET_VALUES);
    expect(parseRecording(file!).source).toBe(
      `${provider.url}/v1/chat?code=REDACTED&key=REDACTED&api-key=REDACTED&passwd=REDACTED&password=REDACTED` +
        '&token=REDACTED&access_token=REDACTED&sig=REDACTED&X-Amz-Credential=REDACTED&alt=sse&model=m',
    );
    // The provider got them all: redaction is for what is printed and written, not for the request.
    expect(provider.seen.at(-1)!.path).toBe(`/v1/chat?${SECRET_QUERY}`);
  });

  it('no response: the failure message names the URL without user info or credential parameters', async () => {
    const closed = await startServer(streamReply);
    await new Promise((resolve) => closed.server.close(resolve));
    const url = closed.url.replace('http://', 'http://someone:PA55WORD@');
    const { code, printed, file } = await runRecord(`${url}/v1/chat?${SECRET_QUERY}`);
    expect(code).toBe(1);
    expect(printed).toContain(`no response from ${closed.url}/v1/chat?code=REDACTED&key=REDACTED`);
    expect(printed).not.toMatch(/PA55WORD|someone/);
    expect(printed).not.toMatch(SECRET_VALUES);
    expect(file).toBeUndefined();
  });

  it('user info is sent as HTTP Basic authorization, and appears in neither the output nor the file', async () => {
    const { code, printed, file } = await runRecord(`${provider.url.replace('http://', 'http://someone:PA55%40WORD@')}/v1/chat`);
    expect(code).toBe(0);
    expect(provider.seen.at(-1)!.headers['authorization']).toBe(`Basic ${Buffer.from('someone:PA55@WORD').toString('base64')}`);
    expect(`${printed}${file!}`).not.toMatch(/PA55|someone/);
    expect(parseRecording(file!).source).toBe(`${provider.url}/v1/chat`);
  });

  it('URLs in the response headers are written with their credentials redacted', async () => {
    const signed = await startServer((_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'content-location': '/v1/chat?code=AZURE-FUNCTION-KEY&alt=sse',
        link: '<https://someone:PA55WORD@cdn.example/next?sig=SIGNATURE-VALUE&page=2>; rel="next"',
        // Header names that say a key or an auth value (Azure's, an API gateway's) are left out whole.
        'x-functions-key': 'AZURE-FUNCTION-KEY',
        'ocp-apim-subscription-key': 'API-KEY',
        'x-auth': 'TOKEN-VALUE',
      });
      response.end(reply);
    });
    try {
      const { code, file } = await runRecord(`${signed.url}/v1/chat`);
      expect(code).toBe(0);
      expect(file).not.toMatch(SECRET_VALUES);
      expect(file).not.toMatch(/PA55WORD|someone/);
      expect(parseRecording(file!).headers).toMatchObject({
        'content-location': '/v1/chat?code=REDACTED&alt=sse',
        link: '<https://cdn.example/next?sig=REDACTED&page=2>; rel="next"',
      });
    } finally {
      await new Promise((resolve) => signed.server.close(resolve));
    }
  });

  it('a header value with a line end: exit 1, saying which header, without its value', async () => {
    const { code, printed } = await runRecord(`${provider.url}/v1/chat`, { headers: [['authorization', 'Bearer sk-live-KEY\r\nx: y']] });
    expect(code).toBe(1);
    expect(printed).toContain('the header "authorization" has an invalid name or value');
    expect(printed).not.toContain('sk-live-KEY');
  });

  it('a header typed without its colon is refused without quoting its value', () => {
    expect(() => parseRecordArguments(['http://h/x', '--out', 'f', '--header', 'authorization Bearer sk-live-KEY'])).toThrow(
      /^--header needs 'name: value'(?!.*sk-live-KEY)/,
    );
  });

  it('a command line with a URL it cannot record says so without its user info', () => {
    expect(() => parseRecordArguments(['ftp://someone:PA55WORD@files.example/x', '--out', 'f'])).toThrow(
      new Error('record needs an http(s) URL, got ftp://files.example/x'),
    );
  });
});
