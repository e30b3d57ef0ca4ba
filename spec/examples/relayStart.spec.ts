import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { postChat, completionOf } from '../support/relayClient';
import { freePort } from '../support/redisServer';

// `npm run relay` as a newcomer meets it (issue 31, "the example and the first hour"): with no
// environment it listens, relaying recorded replies; with a Redis that is down it ends at once with a
// message that says what to do, never a stack trace or a retry loop that neither listens nor exits.
// The example runs as `npm run relay` runs it (examples/relay/start.cjs over the built package).

const START = join(__dirname, '..', '..', 'examples', 'relay', 'start.cjs');

interface Started {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  const clean = { ...process.env };
  for (const name of ['UPSTREAM_URL', 'UPSTREAM_API_KEY', 'REDIS_URL', 'REDIS_PREFIX']) delete clean[name];
  const child = spawn(process.execPath, [START], { env: { ...clean, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves with the first match of `pattern` in what the process printed, or rejects when it exits first. */
function printed(started: Started, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const look = (): boolean => {
      const match = pattern.exec(started.output());
      if (match !== null) resolve(match);
      return match !== null;
    };
    if (look()) return;
    const onData = (): void => {
      if (look()) {
        started.child.stdout!.off('data', onData);
        started.child.stderr!.off('data', onData);
      }
    };
    started.child.stdout!.on('data', onData);
    started.child.stderr!.on('data', onData);
    void started.exited.then(() => reject(new Error(`the example exited before printing ${pattern}:\n${started.output()}`)));
  });
}

describe('examples/relay, started as `npm run relay` starts it', () => {
  it('listens with no environment at all, relaying a recorded reply, and says how to relay a provider', async () => {
    const started = start({});
    try {
      const [, url] = await printed(started, /relay listening on (http:\/\/127\.0\.0\.1:\d+)/);
      expect(started.output()).toContain('set UPSTREAM_URL and UPSTREAM_API_KEY');
      // Any message: the recording answers.
      const outcome = await completionOf(postChat(url!.replace(/\/$/, ''), { events: 1 }));
      expect(outcome.error).toBeUndefined();
      // marbles/openai/text.sse, the recording the example replays.
      expect(outcome.values[0]).toMatchObject({ content: 'Café au lait, 中文 and an emoji 🙂!', finishReason: 'stop' });
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
    }
  }, 60_000);

  it('ends with a message that says what to do when REDIS_URL names a Redis that is down, and prints no credentials', async () => {
    const port = await freePort();
    const started = start({ REDIS_URL: `redis://app:s3cret@127.0.0.1:${port}` });
    const code = await started.exited;
    const output = started.output();
    expect(code).toBe(1);
    expect(output).toContain(`cannot reach Redis at redis://127.0.0.1:${port}`);
    expect(output).toContain('unset REDIS_URL for the in-memory store');
    expect(output).not.toContain('s3cret');
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    expect(output).not.toContain('relay listening');
  }, 60_000);
});
