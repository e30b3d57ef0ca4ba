import { ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

// A Redis of the suite's own: Debian's redis-server, on a free port of 127.0.0.1, with no
// persistence, in a folder of its own, stopped after the spec. `.ci/run` installs the package when
// it is missing; without it the relay specs fail here, saying so (they are never skipped).

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops it and starts a fresh one, empty, on the same port: a Redis restarted under its clients. */
  restart(): Promise<void>;
}

/** The redis-server binary: on PATH, or Debian's place for it. */
export function redisServerPath(): string {
  const candidates = [...(process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'redis-server')), '/usr/bin/redis-server'];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    'redis-server was not found on PATH nor at /usr/bin/redis-server: the relay specs need a real Redis. ' +
      "Install Debian's package (apt-get install -y redis-server), as .ci/run does.",
  );
}

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts redis-server on `port` and resolves once it accepts connections. */
function launch(binary: string, port: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start within 10 s:\n${output}`));
    }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(child);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${String(code)}) before it was ready:\n${output}`));
    });
  });
}

/** Stops a redis-server and waits for its exit. */
function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts a redis-server of the spec's own. */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerPath();
  const dir = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-redis-'));
  const port = await freePort();
  let child = await launch(binary, port, dir);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await terminate(child);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await terminate(child);
      child = await launch(binary, port, dir);
    },
  };
}
