import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './build';

// An instance of examples/relay in a process of its own (`node examples/relay/start.cjs`, over the
// built package), on a free port: what `npm run relay` starts, so that it can be killed, and its
// memory is its own. Or an instance of the same HTTP contract on a given Redis client
// (spec/support/relayInstance.cjs), for the contract run per engine.

export interface RelayApp {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the instance printed. */
  output(): string;
  /** Kills it with `signal` (SIGKILL: a crash) and waits for its exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * What an instance is configured by: none of it is inherited from the suite's own environment
 * (where `REDIS_URL` may name the server the suite runs on), only what the spec passes.
 */
const CONFIGURATION = /^(REDIS_|VALKEY_URL$|UPSTREAM_|RELAY_|STORE_|PORT$)/;

/** The suite's environment without the instances' configuration. */
function inherited(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIGURATION.test(name)));
}

/**
 * Starts an instance of examples/relay with `env` (UPSTREAM_URL, REDIS_URL, ...); resolves when it listens.
 *
 * @example
 * ```ts
 * const app = await startRelayApp({ UPSTREAM_URL: upstream.url, REDIS_URL: redis.url });
 * ```
 */
export function startRelayApp(env: Record<string, string>, execArgv: readonly string[] = []): Promise<RelayApp> {
  return startInstance(join(root, 'examples', 'relay', 'start.cjs'), env, execArgv);
}

/**
 * Starts an instance of the relay's HTTP contract whose store is on the client `env.RELAY_CLIENT`
 * names (spec/support/relayInstance.cjs); resolves when it listens.
 *
 * @example
 * ```ts
 * const app = await startRelayInstance({ RELAY_CLIENT: 'ioredis-cluster', REDIS_CLUSTER_URLS: urls, UPSTREAM_URL: upstream.url });
 * ```
 */
export function startRelayInstance(env: Record<string, string>): Promise<RelayApp> {
  return startInstance(join(root, 'spec', 'support', 'relayInstance.cjs'), env, []);
}

/** Starts `script` in a process of its own with `env`; resolves when it prints where it listens. */
function startInstance(script: string, env: Record<string, string>, execArgv: readonly string[]): Promise<RelayApp> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...execArgv, script], {
      cwd: root,
      env: { ...inherited(), PORT: '0', ...env },
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
