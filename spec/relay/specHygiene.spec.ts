import { request } from 'node:http';
import { FakeUpstream, startFakeUpstream } from '../support/fakeUpstream';
import Redis from 'ioredis';
import { RedisServer, startRedis, startRedisCluster, startRedisSentinel, startValkey } from '../support/redisServer';
import { startTogether } from '../support/startTogether';

// A spec that starts a Redis beside a fake upstream must not leave the upstream listening when
// Redis fails to start (a missing binary, a busy port): Jest would wait for its handle forever.

/** Whether something answers HTTP at `url`. */
function listening(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET' }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

describe('starting a Redis beside a fake upstream', () => {
  it('a failing Redis start still closes the upstream that did start', async () => {
    let upstream: FakeUpstream | undefined;
    const failure = await startTogether<[RedisServer, FakeUpstream]>([
      [
        async () => {
          // Redis fails after the upstream is up: its handle must not be lost.
          await new Promise((resolve) => setTimeout(resolve, 100));
          return startRedis({ binary: 'valkey-server', args: ['--no-such-option', 'x'] });
        },
        (server) => server.stop(),
      ],
      [
        async () => {
          upstream = await startFakeUpstream();
          return upstream;
        },
        (fake) => fake.close(),
      ],
    ]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(upstream).toBeDefined();
    expect(await listening(upstream!.url)).toBe(false);
  });
});

describe('the engines the specs start', () => {
  jest.setTimeout(60_000);

  it('a 3-master cluster with every slot served, on free ports, stopped after', async () => {
    const cluster = await startRedisCluster();
    try {
      const client = new Redis(cluster.nodes[0]!.port, '127.0.0.1');
      const info = String(await client.call('CLUSTER', 'INFO'));
      client.disconnect();
      expect(info).toMatch(/cluster_state:ok/);
      expect(info).toMatch(/cluster_size:3/);
      expect(info).toMatch(/cluster_slots_assigned:16384/);
    } finally {
      await cluster.stop();
    }
    expect(await listeningRedis(cluster.nodes[0]!.port)).toBe(false);
  });

  it('a primary and its replica watched by redis-sentinel, which fails over on request', async () => {
    const sentinel = await startRedisSentinel();
    try {
      const admin = new Redis(sentinel.sentinelPort, '127.0.0.1');
      const before = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinel.masterName)) as string[];
      expect(Number(before[1])).toBe(sentinel.primary.port);
      await sentinel.failover();
      const after = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinel.masterName)) as string[];
      admin.disconnect();
      expect(Number(after[1])).toBe(sentinel.replica.port);
    } finally {
      await sentinel.stop();
    }
  });

  it('a valkey-server', async () => {
    const valkey = await startValkey();
    try {
      const client = new Redis(valkey.port, '127.0.0.1');
      const info = String(await client.call('INFO', 'server'));
      client.disconnect();
      expect(info).toMatch(/valkey_version:8\./);
    } finally {
      await valkey.stop();
    }
  });
});

/** Whether a Redis answers on `port`. */
async function listeningRedis(port: number): Promise<boolean> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
