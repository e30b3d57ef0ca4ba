import { ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import Redis from 'ioredis';

// The engines of the suite's own: Debian's redis-server (alone, as a 3-master cluster, or as a
// primary and a replica watched by redis-sentinel) and valkey-server, each on free ports of
// 127.0.0.1, with no persistence, in a folder of its own, stopped after the spec. `.ci/run` installs
// the packages that are missing; without one the specs that need it fail here, saying what to
// install (they are never skipped).

/** A server binary the specs start, and the package that brings it. */
export type EngineBinary = 'redis-server' | 'redis-sentinel' | 'valkey-server';

const INSTALL: Record<EngineBinary, string> = {
  'redis-server': 'apt-get install -y redis-server',
  'redis-sentinel': 'apt-get install -y redis-sentinel',
  'valkey-server':
    'apt-get install -y valkey-server (on Debian 12 from bookworm-backports: add ' +
    "'deb http://deb.debian.org/debian bookworm-backports main' to /etc/apt/sources.list.d/, apt-get update, " +
    'apt-get install -y -t bookworm-backports valkey-server)',
};

/** A running redis-server (or valkey-server). */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops it and starts a fresh one, empty, on the same port: a Redis restarted under its clients. */
  restart(): Promise<void>;
}

/** How to start one server. */
export interface StartOptions {
  /** Which engine. Default redis-server. */
  readonly binary?: EngineBinary;
  /** Arguments after the suite's own (port, bind, no persistence, dir). */
  readonly args?: readonly string[];
}

/** A binary: on PATH, or at Debian's place for it; a missing one fails saying what to install. */
export function enginePath(name: EngineBinary): string {
  const candidates = [...(process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, name)), `/usr/bin/${name}`];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${name} was not found on PATH nor at /usr/bin/${name}: these specs need it. Install it (${INSTALL[name]}), as .ci/run does.`,
  );
}

/** The redis-server binary: on PATH, or Debian's place for it. */
export function redisServerPath(): string {
  return enginePath('redis-server');
}

/** A port nobody listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether a server on `port` answers PING (with `+PONG`, or any error such as NOAUTH). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data: Buffer) => done(/^[+-]/.test(data.toString())));
  });
}

/** Starts `binary` with `args` and resolves once it answers on `port`. */
function launch(binary: string, args: readonly string[], port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let settled = false;
    const started = Date.now();
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`${message}:\n${output}`));
    };
    child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.once('error', (error) => fail(`${binary} could not be started (${error.message})`));
    child.once('exit', (code) => fail(`${binary} exited (${String(code)}) before it was ready`));
    const poll = async (): Promise<void> => {
      while (!settled) {
        if (await answers(port)) {
          settled = true;
          child.removeAllListeners('exit');
          resolve(child);
          return;
        }
        if (Date.now() - started > 10_000) return fail(`${binary} did not start within 10 s`);
        await new Promise((wake) => setTimeout(wake, 50));
      }
    };
    void poll();
  });
}

/** Stops a server and waits for its exit. */
function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts a redis-server (or `options.binary`) of the spec's own. */
export async function startRedis(options: StartOptions = {}): Promise<RedisServer> {
  const binary = enginePath(options.binary ?? 'redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-redis-'));
  try {
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(options.args ?? [])];
    let child = await launch(binary, args, port);
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      async stop() {
        await terminate(child);
        rmSync(dir, { recursive: true, force: true });
      },
      async restart() {
        await terminate(child);
        child = await launch(binary, args, port);
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts a valkey-server of the spec's own. */
export function startValkey(): Promise<RedisServer> {
  return startRedis({ binary: 'valkey-server' });
}

/** Starts each of `starts`; when one fails, stops those that started, then fails. */
async function startEach(starts: ReadonlyArray<() => Promise<RedisServer>>): Promise<RedisServer[]> {
  const settled = await Promise.allSettled(starts.map((start) => start()));
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined) return started;
  await Promise.all(started.map((server) => server.stop()));
  throw failed.reason;
}

/** A Redis Cluster of 3 masters and no replica. */
export interface RedisCluster {
  readonly nodes: readonly RedisServer[];
  /** `{ host, port }` of each node, as cluster clients take their seeds. */
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  /** Moves `slot` from the node that has it to `target`, its keys with it (MIGRATE), as `redis-cli --cluster reshard` does. */
  migrateSlot(slot: number, target: number): Promise<void>;
  /** The index of the node that serves `slot`. */
  ownerOf(slot: number): Promise<number>;
  stop(): Promise<void>;
}

/** Waits until `check` answers true, failing with `what` after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** An admin connection for one command sequence; closed after. */
async function withAdmin<T>(port: number, use: (admin: Redis) => Promise<T>): Promise<T> {
  const admin = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
    return await use(admin);
  } finally {
    admin.disconnect();
  }
}

/**
 * Starts 3 redis-server in cluster mode (each with its bus on a free port of its own), gives each a
 * third of the 16384 slots (CLUSTER ADDSLOTSRANGE), joins them (CLUSTER MEET), and waits for
 * `cluster_state:ok` on every node.
 */
export async function startRedisCluster(options: { binary?: EngineBinary } = {}): Promise<RedisCluster> {
  const busPorts = await Promise.all([freePort(), freePort(), freePort()]);
  const nodes = await startEach(
    busPorts.map(
      (busPort) => () =>
        startRedis({
          binary: options.binary,
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            '2000',
          ],
        }),
    ),
  );
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  const ranges: Array<[number, number]> = [
    [0, 5460],
    [5461, 10922],
    [10923, 16383],
  ];
  try {
    await Promise.all(
      nodes.map((node, i) =>
        withAdmin(node.port, (admin) => admin.call('CLUSTER', 'ADDSLOTSRANGE', String(ranges[i]![0]), String(ranges[i]![1]))),
      ),
    );
    for (const node of nodes.slice(1)) {
      await withAdmin(node.port, (admin) => admin.call('CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port), String(busPorts[0])));
    }
    await until(
      async () => {
        const states = await Promise.all(nodes.map((node) => withAdmin(node.port, (admin) => admin.call('CLUSTER', 'INFO'))));
        return states.every((info) => /cluster_state:ok/.test(String(info)) && /cluster_known_nodes:3/.test(String(info)));
      },
      20_000,
      'the cluster reaching cluster_state:ok',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const idOf = (port: number): Promise<string> => withAdmin(port, async (admin) => String(await admin.call('CLUSTER', 'MYID')));
  const ownerOf = async (slot: number): Promise<number> => {
    const slots = (await withAdmin(nodes[0]!.port, (admin) => admin.call('CLUSTER', 'SLOTS'))) as Array<[number, number, [string, number]]>;
    const range = slots.find(([from, to]) => from <= slot && slot <= to);
    if (range === undefined) throw new Error(`no node serves slot ${slot}`);
    return nodes.findIndex((node) => node.port === Number(range[2][1]));
  };
  return {
    nodes,
    seeds: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
    ownerOf,
    async migrateSlot(slot, target) {
      const source = await ownerOf(slot);
      if (source === target) return;
      const from = nodes[source]!;
      const to = nodes[target]!;
      const [fromId, toId] = await Promise.all([idOf(from.port), idOf(to.port)]);
      await withAdmin(to.port, (admin) => admin.call('CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId));
      await withAdmin(from.port, (admin) => admin.call('CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId));
      await withAdmin(from.port, async (admin) => {
        for (;;) {
          const keys = (await admin.call('CLUSTER', 'GETKEYSINSLOT', String(slot), '100')) as string[];
          if (keys.length === 0) break;
          await admin.call('MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys);
        }
      });
      for (const node of [to, from, ...nodes.filter((node) => node !== to && node !== from)]) {
        await withAdmin(node.port, (admin) => admin.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', toId));
      }
    },
    stop,
  };
}

/** A primary and a replica, watched by one redis-sentinel. */
export interface RedisSentinel {
  readonly primary: RedisServer;
  readonly replica: RedisServer;
  readonly sentinelPort: number;
  /** The name the sentinel knows the primary by. */
  readonly masterName: string;
  /** Forces a failover (SENTINEL FAILOVER) and resolves once the sentinel names the other server, and it is a master. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a primary, its replica (in sync), and a redis-sentinel that watches them. */
export async function startRedisSentinel(): Promise<RedisSentinel> {
  const sentinelBinary = enginePath('redis-sentinel');
  const [primary, replica] = await startEach([() => startRedis(), () => startRedis()]);
  const masterName = 'relay';
  const dir = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-sentinel-'));
  let sentinel: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (sentinel !== undefined) await terminate(sentinel);
    await Promise.all([primary!.stop(), replica!.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await withAdmin(replica!.port, (admin) => admin.call('REPLICAOF', '127.0.0.1', String(primary!.port)));
    await until(
      async () => /master_link_status:up/.test(String(await withAdmin(replica!.port, (admin) => admin.call('INFO', 'replication')))),
      10_000,
      'the replica in sync',
    );
    const sentinelPort = await freePort();
    const config = join(dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${primary!.port} 1`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        '',
      ].join('\n'),
    );
    sentinel = await launch(sentinelBinary, [config], sentinelPort);
    const port = sentinelPort;
    await until(
      async () => {
        const replicas = (await withAdmin(port, (admin) => admin.call('SENTINEL', 'REPLICAS', masterName))) as string[][];
        return replicas.some((fields) => fields.includes(String(replica!.port)) && fields[fields.indexOf('flags') + 1] === 'slave');
      },
      15_000,
      'the sentinel knowing the replica',
    );
    const masterPort = async (): Promise<number> =>
      Number(((await withAdmin(port, (admin) => admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName))) as string[])[1]);
    return {
      primary: primary!,
      replica: replica!,
      sentinelPort,
      masterName,
      async failover() {
        const before = await masterPort();
        await withAdmin(port, (admin) => admin.call('SENTINEL', 'FAILOVER', masterName));
        await until(
          async () => {
            const now = await masterPort();
            if (now === before) return false;
            return /role:master/.test(String(await withAdmin(now, (admin) => admin.call('INFO', 'replication'))));
          },
          20_000,
          'the sentinel promoting the replica',
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
