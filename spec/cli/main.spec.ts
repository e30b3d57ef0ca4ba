import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { fromFetch } from 'rxjs/fetch';
import { Writable } from 'stream';
import { main, writeUntilClosed } from '../../src/cli/main';
import { marblesFolder, packageFolder } from '../../src/cli/paths';
import { render, replay } from '../../src/cli/replay';
import { startReplayServer } from '../../src/cli/replayServer';
import { fromResponse } from '../../src/io/fromResponse';

const marble = (path: string): Uint8Array => new Uint8Array(readFileSync(join(__dirname, '..', '..', 'marbles', path)));

async function run(path: string, options: { json?: boolean; chunkSize?: number } = {}): Promise<{ code: number; output: string }> {
  let output = '';
  const code = await replay(marble(path), { ...options, write: (text) => (output += text) });
  return { code, output };
}

describe('replay (the CLI and the demo)', () => {
  it('prints reasoning, text and tool calls as they arrive, then the completion, and exits 0', async () => {
    const { code, output } = await run('dialects/llamacpp-chat.sse');
    expect(code).toBe(0);
    expect(output).toContain('[thinking] The user wants the current weather in Paris and Tokyo.');
    expect(output).toContain('Let me check both cities.');
    expect(output).toContain('→ get_weather({"city": "Paris", "unit": "celsius"})');
    expect(output.indexOf('[thinking]')).toBeLessThan(output.indexOf('Let me check'));
    expect(output.indexOf('Let me check')).toBeLessThan(output.indexOf('→ get_weather'));
    expect(output).toContain('completion:\n{\n  "id": "chatcmpl-Xr7Qm2Tz9LkWp4Nb8Vc1Hs6Jd3Fg5Ya0"');
    expect(output).not.toContain('\x1b['); // no colour unless asked
  });

  it('shows the error and what was saved for a truncated stream, and exits 1', async () => {
    const { code, output } = await run('openai/truncated-in-arguments.sse', { chunkSize: 5 });
    expect(code).toBe(1);
    expect(output).toContain('StreamClosedEarlyError: the stream ended without [DONE]');
    expect(output).toContain('saved so far:');
    expect(output).toContain('"arguments": "{\\"city\\":\\"Bergen\\",\\"un"');
  });

  it('prints one JSON line per event with --json, then the result', async () => {
    const { code, output } = await run('openai/text.sse', { json: true });
    const lines = output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(code).toBe(0);
    expect(lines[0]).toMatchObject({ type: 'start' });
    expect(lines.at(-1)).toHaveProperty('completion');
    const errorRun = await run('openai/error-payload.sse', { json: true });
    expect(errorRun.code).toBe(1);
    expect(JSON.parse(errorRun.output.trim().split('\n').at(-1)!)).toMatchObject({ error: { name: 'ProviderError' } });
  });

  it('renders a reply streamed over HTTP from the replay server, as the demo does', async () => {
    const server = await startReplayServer();
    try {
      let output = '';
      const code = await render(
        fromFetch(`${server.url}/dialects/anthropic-messages.sse?chunk=50&delay=1`, { selector: (r) => fromResponse(r) }),
        { write: (text) => (output += text) },
      );
      expect(code).toBe(0);
      expect(output).toContain('Let me check both cities.');
      expect(output).toContain('→ get_weather');
      expect(server.requests[0]?.finished).toBe(true);
    } finally {
      await server.close();
    }
  });
});

/** Runs the command line in place, from source, and collects what it wrote where. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (text) => (out += text), err: (text) => (err += text) });
  return { code, out, err };
}

/** The commands whose usage lines a text holds (`  rxjs-llm-stream <command> ...`). */
const commandsIn = (usage: string): string[] => [...usage.matchAll(/^ {2}rxjs-llm-stream (\w+)/gm)].map((match) => match[1]!);

const ALL_COMMANDS = ['replay', 'record', 'demo', 'help'];

describe('the command line: help and exit codes', () => {
  const toolHelp = [['--help'], ['-h'], ['help'], []].map((argv) => [argv.length === 0 ? 'no arguments' : argv.join(' '), argv] as const);
  it.each(toolHelp)('`%s` prints the usage of every command on stdout and exits 0', async (_title, argv) => {
    const { code, out, err } = await cli(...argv);
    expect(code).toBe(0);
    expect(out.startsWith('usage:\n')).toBe(true);
    expect(commandsIn(out)).toEqual(ALL_COMMANDS);
    expect(err).toBe('');
  });

  const commandHelp: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['replay', ['replay', '--help']],
    ['replay', ['replay', '-h']],
    ['replay', ['help', 'replay']],
    ['replay', ['--help', 'replay']],
    ['replay', ['replay', 'missing.sse', '--json', '--help']],
    ['record', ['record', '--help']],
    ['record', ['record', '-h']],
    ['record', ['help', 'record']],
    // Help comes before record reads its arguments, so nothing is fetched and no file is written.
    ['record', ['record', 'http://127.0.0.1:9/never', '--out', join(tmpdir(), 'never-written.jsonl'), '-h']],
    ['demo', ['demo', '--help']],
    ['demo', ['demo', '-h']],
    ['demo', ['help', 'demo']],
    ['help', ['help', '--help']],
  ];
  it.each(commandHelp)('`%s` help from %j: that usage only, on stdout, exit 0', async (command, argv) => {
    const { code, out, err } = await cli(...argv);
    expect(code).toBe(0);
    expect(out.startsWith('usage:\n')).toBe(true);
    expect(commandsIn(out)).toEqual([command]);
    expect(err).toBe('');
  });

  it.each([
    [['nope'], ALL_COMMANDS, 'unknown command nope'],
    [['help', 'nope'], ALL_COMMANDS, 'unknown command nope'],
    [['help', 'replay', 'demo'], ['help'], 'unknown argument demo'],
    [['replay', '--bogus'], ['replay'], 'unknown argument --bogus'],
    [['replay', '--chunk', 'many'], ['replay'], '--chunk needs a whole number'],
    [['replay', '--timing', 'fast'], ['replay'], '--timing needs original or none'],
    [['record', '--bogus'], ['record'], '--bogus'],
    [['record'], ['record'], undefined],
    [['demo', 'now'], ['demo'], 'unknown argument now'],
  ] as const)('%j exits 2 with the message and the usage on stderr', async (argv, commands, message) => {
    const { code, out, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    if (message !== undefined) expect(err.split('\n')[0]).toContain(message);
    expect(err).toContain('\nusage:\n');
    expect(commandsIn(err)).toEqual(commands);
  });

  it('exits 0 for a completion, 1 for a stream error, 2 for a file it cannot read', async () => {
    const completed = await cli('replay', join(marblesFolder(), 'openai', 'text.sse'));
    expect(completed.code).toBe(0);
    expect(completed.out).toContain('completion:');
    expect(completed.err).toBe('');

    const truncated = await cli('replay', join(marblesFolder(), 'openai', 'truncated-in-arguments.sse'));
    expect(truncated.code).toBe(1);
    expect(truncated.out).toContain('StreamClosedEarlyError');

    const missing = await cli('replay', join(marblesFolder(), 'no-such-file.sse'));
    expect(missing.code).toBe(2);
    expect(missing.out).toBe('');
    expect(missing.err).toContain('ENOENT');
    expect(missing.err).not.toContain('usage:'); // the command line was right; the file is not there
  });
});

describe('writeUntilClosed (standard output of the process)', () => {
  /** A stream that fails every write with `code`, and counts the writes that reached it. */
  function failingStream(code: string): Writable & { writes: number } {
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        stream.writes++;
        callback(Object.assign(new Error(`write ${code}`), { code }));
      },
    }) as Writable & { writes: number };
    stream.writes = 0;
    return stream;
  }
  const afterEvents = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('stops writing, quietly, once the reader has gone (EPIPE)', async () => {
    const stream = failingStream('EPIPE');
    const readerGone = jest.fn();
    const failed = jest.fn();
    const write = writeUntilClosed(stream, { readerGone, failed });
    write('first line\n');
    await afterEvents();
    write('more');
    write('and more');
    await afterEvents();
    expect(readerGone).toHaveBeenCalledTimes(1);
    expect(failed).not.toHaveBeenCalled();
    expect(stream.writes).toBe(1);
  });

  it('reports any other write error', async () => {
    const stream = failingStream('ENOSPC');
    const readerGone = jest.fn();
    const failed = jest.fn();
    writeUntilClosed(stream, { readerGone, failed })('text');
    await afterEvents();
    expect(failed).toHaveBeenCalledTimes(1);
    expect((failed.mock.calls[0]![0] as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(readerGone).not.toHaveBeenCalled();
  });

  it('passes text through while the stream takes it', () => {
    const chunks: string[] = [];
    const stream = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });
    const write = writeUntilClosed(stream, { readerGone: jest.fn(), failed: jest.fn() });
    write('a');
    write('b');
    expect(chunks).toEqual(['a', 'b']);
  });
});

describe('marblesFolder (the recordings the demo streams)', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-paths-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** Writes `content` to `folder/path`, making the folders on the way. */
  const put = (path: string, content: string): string => {
    const file = join(folder, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    return dirname(file);
  };

  it("is this package's own marbles/ folder, from the sources", () => {
    expect(marblesFolder()).toBe(join(__dirname, '..', '..', 'marbles'));
  });

  it('is found through the package.json named rxjs-llm-stream, past dist/cjs and its nameless one', () => {
    const cli = put('repo/dist/cjs/cli/main.js', '');
    put('repo/dist/cjs/package.json', '{"type":"commonjs"}');
    put('repo/package.json', '{"name":"rxjs-llm-stream"}');
    expect(packageFolder(cli)).toBe(join(folder, 'repo'));
  });

  it("is the installed package's, not a marbles/ folder of the project that installed it", () => {
    put('app/package.json', '{"name":"app"}');
    put('app/marbles/dialects/llamacpp-chat.sse', 'data: {}\n\n');
    put('app/node_modules/rxjs-llm-stream/package.json', '{"name":"rxjs-llm-stream"}');
    const cli = put('app/node_modules/rxjs-llm-stream/dist/cjs/cli/main.js', '');
    put('app/node_modules/rxjs-llm-stream/dist/cjs/package.json', '{"type":"commonjs"}');
    expect(packageFolder(cli)).toBe(join(folder, 'app', 'node_modules', 'rxjs-llm-stream'));
  });

  it('is an error, naming where it looked, outside the package', () => {
    const outside = put('elsewhere/marbles/README.md', '');
    expect(() => packageFolder(outside)).toThrow(`no package.json named rxjs-llm-stream at or above ${outside}`);
  });
});
