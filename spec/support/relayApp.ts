import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './build';

// An instance of examples/relay in a process of its own (`node examples/relay/start.cjs`, over the
// built package), on a free port: what `npm run relay` starts, so that it can be killed, and its
// memory is its own.

export interface RelayApp {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the instance printed. */
  output(): string;
  /** Kills it with `signal` (SIGKILL: a crash) and waits for its exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts an instance with `env` (UPSTREAM_URL, REDIS_URL, ...); resolves when it listens. */
export function startRelayApp(env: Record<string, string>, execArgv: readonly string[] = []): Promise<RelayApp> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...execArgv, join(root, 'examples', 'relay', 'start.cjs')], {
      cwd: root,
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the relay app did not start within 30 s:\n${output}`));
    }, 30_000);
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`the relay app exited (${String(code)}) before it listened:\n${output}`));
    };
    child.once('exit', onExit);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /relay listening on (http:\/\/\S+)/.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      resolve({
        url: match[1]!.replace('[::1]', '127.0.0.1'),
        child,
        output: () => output,
        kill: async (signal: NodeJS.Signals = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}
