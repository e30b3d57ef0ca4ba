import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { createServer } from 'http';
import { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { lastValueFrom } from 'rxjs';
import { parseRecordArguments, record } from '../../src/cli/record';
import { redactCredentials } from '../../src/recording/redactCredentials';
import { framingOfRecording, replay } from '../../src/cli/replay';
import { ReplayServer, startReplayServer } from '../../src/cli/replayServer';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { StreamRecording } from '../../src/recording/StreamRecording';
import { parseRecording, serializeRecording } from '../../src/recording/recordingFile';
import { replayRecording } from '../../src/recording/replayRecording';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError } from '../../src/errors/errors';
import { Completion } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { sseFrames } from '../../src/frames/sseFrames';

const marbles = join(__dirname, '..', '..', 'marbles');
const marbleBytes = (path: string): Uint8Array => new Uint8Array(readFileSync(join(marbles, path)));
const expectedOf = (path: string): { completion?: Completion; error?: string } =>
  JSON.parse(readFileSync(join(marbles, path.replace(/\.(sse|ndjson)$/, '.expected.json')), 'utf8')) as {
    completion?: Completion;
    error?: string;
  };

let server: ReplayServer;
let folder: string;
beforeAll(async () => {
  server = await startReplayServer();
  folder = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-record-'));
});
afterAll(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `record` and collects what it printed and logged. */
async function runRecord(
  url: string,
  options: Partial<Parameters<typeof record>[1]> & { out: string },
): Promise<{ code: number; output: string; log: string }> {
  let output = '';
  let log = '';
  const code = await record(url, { ...options, write: (text) => (output += text), log: (text) => (log += text) });
  return { code, output, log };
}

/** Runs `replay` over a file and returns the exit code and the JSON lines it printed. */
async function runReplay(
  file: string,
  options: { timing?: 'original' | 'none'; chunkSize?: number } = {},
): Promise<{ code: number; lines: Record<string, unknown>[] }> {
  let output = '';
  const code = await replay(new Uint8Array(readFileSync(file)), { ...options, json: true, write: (text) => (output += text) });
  return {
    code,
    lines: output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('record: a recording taken once becomes a spec', () => {
  const path = '/openai/tool-calls-interleaved.sse';
  const url = () => `${server.url}${path}?chunk=7&delay=1`;
  const out = () => join(folder, 'tool-calls.rec.jsonl');

  beforeAll(async () => {
    const { code, output, log } = await runRecord(url(), { out: out() });
    expect(code).toBe(0);
    // Printed live, as replay prints it.
    expect(output).toContain('→ get_weather({"city":"Zürich","unit":"celsius"})');
    expect(output).toContain('→ get_time({"tz":"Asia/Tokyo"})');
    expect(log).toMatch(/^recorded \d+ chunks \(3722 bytes\) to .*tool-calls\.rec\.jsonl\n$/);
  });

  it('writes the exact bytes of the reply, with the source, the content type and arrival times', () => {
    const text = readFileSync(out(), 'utf8');
    const recording = parseRecording(text);
    expect(recording.source).toBe(url());
    expect(recording.contentType).toBe('text/event-stream; charset=utf-8');
    expect(Array.from(recording.bytes())).toEqual(Array.from(marbleBytes(path)));
    expect(recording.chunks[0]?.t).toBe(0);
    const times = recording.chunks.map((chunk) => chunk.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // 532 pieces of 7 bytes with 1 ms between them: the last cannot have come at once.
    expect(times.at(-1)).toBeGreaterThan(100);
    expect(text.split('\n')[0]).toMatch(/^\{"format":"rxjs-llm-stream\/recording","version":1,"recordedAt":"\d{4}-\d\d-\d\dT/);
  });

  it('replaying the file gives the expected Completion of the recording (the CLI, --json)', async () => {
    const { code, lines } = await runReplay(out());
    expect(code).toBe(0);
    expect(lines.at(-1)).toEqual({ completion: expectedOf(path).completion });
  });

  it('replaying the file through the pipeline gives the expected Completion (the library)', async () => {
    const recording = parseRecording(readFileSync(out(), 'utf8'));
    const completion = await lastValueFrom(
      replayRecording(recording).pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion()),
    );
    expect(completion).toEqual(expectedOf(path).completion);
  });

  it('--timing original waits out the recorded gaps; --chunk re-cuts the bytes; both give the same Completion', async () => {
    const recording = parseRecording(readFileSync(out(), 'utf8'));
    const last = recording.chunks.at(-1)!.t;
    const started = performance.now();
    const timed = await runReplay(out(), { timing: 'original' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(last - 5);
    expect(timed.lines.at(-1)).toEqual({ completion: expectedOf(path).completion });
    const recut = await runReplay(out(), { chunkSize: 1 });
    expect(recut.lines.at(-1)).toEqual({ completion: expectedOf(path).completion });
  });
});

describe('record', () => {
  it('sends the method, headers and body it is given, and writes none of them to the file', async () => {
    const out = join(folder, 'post.rec.jsonl');
    const data = '{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}';
    const { code } = await runRecord(`${server.url}/openai/text.sse?post`, {
      out,
      data,
      headers: [
        ['authorization', 'Bearer sk-live-do-not-write'],
        ['x-request-tag', 'recorded'],
      ],
    });
    expect(code).toBe(0);
    const seen = server.requests.find((request) => request.query === 'post')!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(data);
    expect(seen.headers['authorization']).toBe('Bearer sk-live-do-not-write');
    expect(seen.headers['x-request-tag']).toBe('recorded');
    expect(seen.headers['content-type']).toBe('application/json');
    const file = readFileSync(out, 'utf8');
    expect(file).not.toContain('sk-live-do-not-write');
    expect(file).not.toContain('"messages"');
  });

  it('redacts credentials in the URL before writing it', async () => {
    const out = join(folder, 'key.rec.jsonl');
    const { code } = await runRecord(`${server.url}/openai/text.sse?key=AIza-secret&alt=sse`, { out });
    expect(code).toBe(0);
    const file = readFileSync(out, 'utf8');
    expect(file).not.toContain('AIza-secret');
    expect(parseRecording(file).source).toBe(`${server.url}/openai/text.sse?key=REDACTED&alt=sse`);
  });

  it('a stream cut by a reset: exit 1, and the file keeps every byte that arrived, which replays to the same failure', async () => {
    const out = join(folder, 'cut.rec.jsonl');
    const { code, output } = await runRecord(`${server.url}/openai/text.sse?drop=500`, { out });
    expect(code).toBe(1);
    expect(output).toContain('saved so far:');
    const recording = parseRecording(readFileSync(out, 'utf8'));
    expect(Array.from(recording.bytes())).toEqual(Array.from(marbleBytes('openai/text.sse').subarray(0, 500)));
    const replayed = await runReplay(out);
    expect(replayed.code).toBe(1);
    expect(replayed.lines.at(-1)).toMatchObject({ error: { name: 'StreamClosedEarlyError' } });
  });

  it(
    'an error status: exit 1 with the ProviderError; the recording keeps ' +
      'the status, the headers and the body, and replays to the same error',
    async () => {
      const out = join(folder, 'status.rec.jsonl');
      const { code, output } = await runRecord(`${server.url}/openai/text.sse?status=429`, { out });
      expect(code).toBe(1);
      expect(output).toContain('ProviderError: the provider answered HTTP 429: replayed error 429');
      const recording = parseRecording(readFileSync(out, 'utf8'));
      expect(recording.status).toBe(429);
      expect(recording.contentType).toBe('application/json');
      expect(recording.headers).toMatchObject({ 'content-type': 'application/json' });
      expect(new TextDecoder().decode(recording.bytes())).toBe(
        '{"error":{"message":"replayed error 429","type":"replay_error","code":429}}',
      );
      const replayed = await runReplay(out);
      expect(replayed.code).toBe(1);
      expect(replayed.lines.at(-1)).toMatchObject({
        error: { name: 'ProviderError', message: 'the provider answered HTTP 429: replayed error 429' },
      });
    },
  );

  it('a llama.cpp-style 400 with a cookie: the cookie is not written, and the replay gives the live error', async () => {
    // What llama.cpp's server answers to a prompt longer than its context: JSON, no line end.
    const body =
      '{"error":{"code":400,"message":"the request exceeds the available context size, try ' +
      'increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":4096}}';
    const refusing = createServer((_request, response) => {
      response.writeHead(400, {
        'content-type': 'application/json; charset=utf-8',
        'set-cookie': 'session=secret',
        'x-api-key': 'sk-secret',
        'x-ratelimit-remaining-tokens': '42',
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const out = join(folder, 'llamacpp-400.rec.jsonl');
      const live = await runRecord(`http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1/chat/completions`, { out, json: true });
      expect(live.code).toBe(1);
      const liveError = (JSON.parse(live.output.trim().split('\n').at(-1)!) as { error: unknown }).error;
      expect(liveError).toMatchObject({
        name: 'ProviderError',
        message: 'the provider answered HTTP 400: the request exceeds the available context size, try increasing it',
      });
      const file = readFileSync(out, 'utf8');
      expect(file).not.toContain('secret');
      const recording = parseRecording(file);
      expect(recording.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-remaining-tokens': '42' });
      expect(Object.keys(recording.headers!)).not.toContain('set-cookie');
      expect(Object.keys(recording.headers!)).not.toContain('x-api-key');
      const replayed = await runReplay(out);
      expect(replayed.lines.at(-1)).toEqual({ error: liveError });
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('an HTML page with status 200: the same ProtocolError live and replayed', async () => {
    const out = join(folder, 'html.rec.jsonl');
    const live = await runRecord(`${server.url}/openai/text.sse?type=text/html`, { out, json: true });
    expect(live.code).toBe(1);
    const liveError = (JSON.parse(live.output.trim().split('\n').at(-1)!) as { error: { name: string; message: string } }).error;
    expect(liveError.name).toBe('ProtocolError');
    expect(liveError.message).toContain('got text/html');
    const replayed = await runReplay(out);
    expect(replayed.lines.at(-1)).toEqual({ error: liveError });
  });

  it('no response at all: exit 1, says so, and writes no file', async () => {
    const closed = await startReplayServer();
    const url = `${closed.url}/openai/text.sse`;
    await closed.close();
    const out = join(folder, 'refused.rec.jsonl');
    const { code, log } = await runRecord(url, { out });
    expect(code).toBe(1);
    expect(log).toContain(`no response from ${url}: fetch failed`);
    expect(existsSync(out)).toBe(false);
  });

  it('records an NDJSON stream and replays it with ndjsonFrames, from the recorded content type', async () => {
    const path = '/dialects/ollama-native.ndjson';
    const out = join(folder, 'ollama.rec.jsonl');
    const { code } = await runRecord(`${server.url}${path}?chunk=9`, { out });
    expect(code).toBe(0);
    const recording = parseRecording(readFileSync(out, 'utf8'));
    expect(recording.contentType).toBe('application/x-ndjson');
    expect(framingOfRecording(recording)).toBe('ndjson');
    const replayed = await runReplay(out);
    expect(replayed.lines.at(-1)).toEqual({ completion: expectedOf(path).completion });
    const completion = await lastValueFrom(
      replayRecording(recording).pipe(decodeUtf8(), ndjsonFrames(), assembleChunks(), finalizeCompletion()),
    );
    expect(completion).toEqual(expectedOf(path).completion);
  });
});

describe('replay of files', () => {
  it('a raw .ndjson body: the caller names the framing (main does so from the extension)', async () => {
    let output = '';
    const code = await replay(marbleBytes('dialects/ollama-native.ndjson'), {
      framing: 'ndjson',
      json: true,
      write: (text) => (output += text),
    });
    expect(code).toBe(0);
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({ completion: expectedOf('/dialects/ollama-native.ndjson').completion });
  });

  it('a raw body named .ndjson or .jsonl is NDJSON; a recording named .jsonl keeps its recorded framing', async () => {
    let output = '';
    const write = (text: string): void => void (output += text);
    expect(await replay(marbleBytes('dialects/ollama-native.ndjson'), { fileName: 'ollama-native.ndjson', json: true, write })).toBe(0);
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({ completion: expectedOf('/dialects/ollama-native.ndjson').completion });
    const recording = new StreamRecording({ contentType: 'text/event-stream' });
    recording.append(marbleBytes('openai/text.sse'), 0);
    output = '';
    expect(await replay(new TextEncoder().encode(serializeRecording(recording)), { fileName: 'text.rec.jsonl', json: true, write })).toBe(
      0,
    );
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({ completion: expectedOf('/openai/text.sse').completion });
  });

  it('refuses --timing original for a raw body, which has no times', async () => {
    await expect(replay(marbleBytes('openai/text.sse'), { timing: 'original', write: () => undefined })).rejects.toThrow(
      '--timing original needs a recording (made with `rxjs-llm-stream record`); a raw body has no times',
    );
  });

  it('refuses a malformed recording with the ProtocolError that names its line', async () => {
    const file = new TextEncoder().encode(
      '{"format":"rxjs-llm-stream/recording","version":1,' +
        '"recordedAt":"2026-01-01T00:00:00Z"}\n{"t":0,"b":"ZGF0YTo="}\n{"t":1,"b":"not base64!"}\n',
    );
    const outcome = replay(file, { write: () => undefined });
    await expect(outcome).rejects.toBeInstanceOf(ProtocolError);
    await expect(outcome).rejects.toThrow('recording line 3: "b" must be the chunk\'s bytes in standard base64');
  });

  it('framingOfRecording reads the content type first, then the source name', () => {
    const of = (init: { contentType?: string; source?: string }): string | undefined => framingOfRecording(new StreamRecording(init));
    expect(of({ contentType: 'text/event-stream; charset=utf-8' })).toBe('sse');
    expect(of({ contentType: 'application/x-ndjson' })).toBe('ndjson');
    expect(of({ contentType: 'application/jsonl', source: 'http://h/x.sse' })).toBe('ndjson');
    expect(of({ contentType: 'text/event-stream', source: 'http://h/x.ndjson' })).toBe('sse');
    expect(of({ source: 'http://h/api/x.ndjson?chunk=9' })).toBe('ndjson');
    expect(of({})).toBeUndefined();
  });
});

describe('parseRecordArguments', () => {
  it('reads the URL, --out, --method, repeated --header and --data', () => {
    expect(
      parseRecordArguments([
        'https://api.example.com/v1/chat/completions',
        '--out',
        'reply.rec.jsonl',
        '--method',
        'put',
        '--header',
        'Authorization: Bearer k:with:colons',
        '-H',
        'x-a:1',
        '--data',
        '{"stream":true}',
        '--json',
      ]),
    ).toEqual({
      url: 'https://api.example.com/v1/chat/completions',
      out: 'reply.rec.jsonl',
      method: 'PUT',
      headers: [
        ['Authorization', 'Bearer k:with:colons'],
        ['x-a', '1'],
      ],
      data: '{"stream":true}',
      json: true,
    });
  });

  it('leaves the method to record (GET, or POST with a body) when not given', () => {
    expect(parseRecordArguments(['http://127.0.0.1:1/x', '-o', 'f'])).toEqual({
      url: 'http://127.0.0.1:1/x',
      out: 'f',
      headers: [],
      json: false,
    });
  });

  it.each([
    [['--out', 'f'], 'record needs a URL'],
    [['ftp://host/x', '--out', 'f'], 'record needs an http(s) URL, got ftp://host/x'],
    [['http://h/x'], 'record needs --out FILE'],
    [['http://h/x', '--out'], '--out needs a value'],
    [['http://h/x', '--out', 'f', '--header', 'no colon'], `--header needs 'name: value' (the header given has no colon before its value)`],
    [['http://h/x', '--out', 'f', '--data', "{'single':1}"], "--data is not JSON: {'single':1}"],
    [['http://h/x', '--out', 'f', '--chunk', '3'], 'unknown argument --chunk'],
    [['http://h/x', 'http://h/y', '--out', 'f'], 'unknown argument http://h/y'],
  ])('refuses %j', (args, message) => {
    expect(() => parseRecordArguments(args)).toThrow(new Error(message));
  });

  it('redactCredentials removes user info and the values of credential-like parameters only', () => {
    expect(redactCredentials('https://user:pw@h.example/v1?key=abc&api_key=def&x-goog-sig=s&alt=sse&model=m')).toBe(
      'https://h.example/v1?key=REDACTED&api_key=REDACTED&x-goog-sig=REDACTED&alt=sse&model=m',
    );
    expect(redactCredentials('http://127.0.0.1:8080/openai/text.sse?chunk=7')).toBe('http://127.0.0.1:8080/openai/text.sse?chunk=7');
  });

  it.each([
    ['an Azure Functions key', 'https://f.example/api/chat?code=abc%3D%3D&alt=sse', 'https://f.example/api/chat?code=REDACTED&alt=sse'],
    ['passwd and pwd', 'http://h/x?passwd=p1&pwd=p2&user=me', 'http://h/x?passwd=REDACTED&pwd=REDACTED&user=me'],
    ['a token in the fragment', 'https://h/cb#access_token=t1&state=s', 'https://h/cb#access_token=REDACTED&state=s'],
    ['a percent-encoded name', 'http://h/x?api%5Fkey=k1&q=a+b', 'http://h/x?api%5Fkey=REDACTED&q=a+b'],
    ['a relative URL', '/v1/x?sig=s1&page=2', '/v1/x?sig=REDACTED&page=2'],
    ['a URL with only a user', 'https://someone@h.example/x', 'https://h.example/x'],
    ['a URL that does not parse', 'http://u:p@[bad/x?token=t1', 'http://[bad/x?token=REDACTED'],
    [
      'URLs inside a message',
      'no response from http://u:p@h/x?key=k1: fetch failed',
      'no response from http://h/x?key=REDACTED: fetch failed',
    ],
    ['a content type, left as it is', 'text/event-stream; charset=utf-8', 'text/event-stream; charset=utf-8'],
  ])('redactCredentials: %s', (_name, text, redacted) => {
    expect(redactCredentials(text)).toBe(redacted);
  });
});
