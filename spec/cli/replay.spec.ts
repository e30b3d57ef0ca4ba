import { spawnSync } from 'child_process';
import { join } from 'path';
import { replay, whatIsNotAStream } from '../../src/cli/replay';
import { ProtocolError, ProviderError } from '../../src/errors/errors';
import { root } from '../support/build';

// `replay -` has the whole input, so it can say what a piped body that is not an event stream was,
// where the frame layer (which reads unknown lines as nothing, as the standard says) cannot.

/** llama.cpp's answer to a prompt longer than its context: one JSON line, no line end. */
const LLAMACPP_400 =
  '{"error":{"code":400,"message":"the request exceeds the available context size, try ' +
  'increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":4096}}';
/** OpenAI's error bodies are pretty-printed over several lines. */
const OPENAI_401 =
  '{\n  "error": {\n    "message": "Incorrect API key provided.",\n    ' +
  '"type": "invalid_request_error",\n    "code": "invalid_api_key"\n  }\n}\n';
const PROXY_PAGE = '<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center></body>\n</html>\n';

/** Replays `text` as standard input would be replayed, and returns what it printed as JSON lines. */
async function replayText(text: string): Promise<{ code: number; last: { error?: { name: string; message: string } } }> {
  let output = '';
  const code = await replay(new TextEncoder().encode(text), { json: true, write: (piece) => (output += piece) });
  return { code, last: JSON.parse(output.trim().split('\n').at(-1)!) };
}

describe('whatIsNotAStream', () => {
  it.each([
    [
      'a llama.cpp JSON error with no line end',
      LLAMACPP_400,
      ProviderError,
      'the provider answered with an error instead of a stream: the request exceeds the available context size, try increasing it',
    ],
    [
      'a pretty-printed OpenAI JSON error',
      OPENAI_401,
      ProviderError,
      'the provider answered with an error instead of a stream: Incorrect API key provided.',
    ],
    ["a proxy's HTML page", PROXY_PAGE, ProtocolError, 'the input is an HTML page ("502 Bad Gateway"), not an event stream'],
    [
      'a JSON reply to a request without stream: true',
      '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}',
      ProtocolError,
      'the input is a JSON object, not an event stream (a reply to a request without "stream": true?)',
    ],
    [
      'plain text',
      'upstream connect error or disconnect/reset before headers\n',
      ProtocolError,
      'the input is not an event stream: no line of it is an event-stream ' +
        'field ("upstream connect error or disconnect/reset before headers")',
    ],
  ])('%s', (_name, text, kind, message) => {
    const error = whatIsNotAStream(text);
    expect(error).toBeInstanceOf(kind);
    expect(error?.message).toBe(message);
  });

  it.each([
    ['an event stream', 'data: {"choices":[]}\n\n'],
    ['an event stream that starts with a comment', ': ping\n\ndata: x\n\n'],
    ['one with CRLF line ends', 'event: message_start\r\ndata: {}\r\n\r\n'],
    ['an empty body (the pipeline says it ended before any frame)', ''],
    ['a body of blank lines', '\n\n'],
  ])('leaves %s to the pipeline', (_name, text) => {
    expect(whatIsNotAStream(text)).toBeUndefined();
  });
});

describe('replay of a raw body', () => {
  it("a JSON error body: exit 1 with a ProviderError carrying the provider's message, never 'ended before any frame'", async () => {
    const { code, last } = await replayText(LLAMACPP_400);
    expect(code).toBe(1);
    expect(last.error).toMatchObject({ name: 'ProviderError', message: expect.stringContaining('exceeds the available context size') });
  });

  it('an HTML page: exit 1 with a ProtocolError that says so', async () => {
    const { code, last } = await replayText(PROXY_PAGE);
    expect(code).toBe(1);
    expect(last.error).toMatchObject({
      name: 'ProtocolError',
      message: 'the input is an HTML page ("502 Bad Gateway"), not an event stream',
    });
  });

  it('the built command reads standard input the same way (`replay -`)', () => {
    const cli = join(root, 'dist', 'cjs', 'cli', 'main.js');
    const result = spawnSync(process.execPath, [cli, 'replay', '-', '--json'], { input: LLAMACPP_400, encoding: 'utf8' });
    expect(result.status).toBe(1);
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { error: { name: string; message: string } };
    expect(last.error.name).toBe('ProviderError');
    expect(last.error.message).toBe(
      'the provider answered with an error instead of a stream: the request exceeds the available context size, try increasing it',
    );
  });
});
