import Redis from 'ioredis';
import { StreamEntry } from '../../src/relay/streamEntries';
import { contentEntry as event, endEntry as end } from '../support/storeEntries';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { RedisServer, startRedis } from '../support/redisServer';

// What RedisStreamStore writes: a key never lives without its expiry, whatever command a crash
// cuts the writes at, and a delta costs one command (its XADD); the expiry is renewed with the
// heartbeat, not with every entry.

jest.setTimeout(30_000);

let redis: RedisServer;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.port, '127.0.0.1');
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

/**
 * A store whose process dies after `sent` commands: later ones never reach Redis, and its
 * connection closes (as a dead process's does), which discards a transaction left open.
 */
async function dying(prefix: string, sent: number, write: (store: RedisStreamStore) => Promise<unknown>): Promise<void> {
  const connection = new Redis(redis.port, '127.0.0.1');
  let count = 0;
  const client = {
    call: (command: string, ...args: string[]): Promise<unknown> =>
      ++count <= sent ? connection.call(command, ...args) : new Promise(() => undefined),
  };
  await write(new RedisStreamStore({ client, blockingClient: client, prefix, commandTimeout: 200 })).catch(() => undefined);
  connection.disconnect();
  // The server sees the connection close before the keys are inspected.
  await admin.ping();
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Every key of `prefix` with its remaining time to live (-1: none). */
async function ttls(prefix: string): Promise<Map<string, number>> {
  const keys = await admin.keys(`${prefix}*`);
  return new Map(await Promise.all(keys.map(async (key) => [key, await admin.pttl(key)] as const)));
}

describe('RedisStreamStore writes', () => {
  it('a crash at any command of a create, or of the append that ends the stream, leaves no key without its expiry', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      for (let sent = 0; sent <= 8; sent++) {
        const prefix = `crash-create-${sent}:`;
        await dying(prefix, sent, (store) => store.create('s'));
        for (const [key, ttl] of await ttls(prefix)) expect([key, ttl > 0]).toEqual([key, true]);
      }
      for (let sent = 0; sent <= 8; sent++) {
        const prefix = `crash-end-${sent}:`;
        await new RedisStreamStore({ client, blockingClient: client, prefix, liveTtl: 60_000 }).create('s');
        // The stream loses its expiry as a key would that was made without one, then the end is written.
        await admin.persist(`${prefix}{s}`);
        await dying(prefix, sent, (store) => store.append('s', [event(1, 'a'), end(2)]));
        const stored = (await admin.xlen(`${prefix}{s}`)) > 1;
        // Either the end is stored with the ended stream's expiry, or nothing of it is.
        expect([stored, (await admin.pttl(`${prefix}{s}`)) > 0]).toEqual(stored ? [true, true] : [false, false]);
      }
    } finally {
      client.disconnect();
    }
  });

  it('a delta costs one command: appending 100 events one at a time sends 100 XADD and nothing else', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    const sent: string[] = [];
    const counting = {
      call: (command: string, ...args: string[]) => {
        sent.push(command);
        return client.call(command, ...args);
      },
    };
    try {
      const store = new RedisStreamStore({ client: counting, blockingClient: client, prefix: 'lean:' });
      await store.create('s');
      sent.length = 0;
      for (let id = 1; id <= 100; id++) await store.append('s', [event(id, `delta ${id}`)]);
      expect(sent).toEqual(Array.from({ length: 100 }, () => 'XADD'));
      expect(await admin.pttl('lean:{s}')).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });

  it('renews the live expiry at each heartbeat', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      const store = new RedisStreamStore({ client, blockingClient: client, prefix: 'renew:', liveTtl: 60_000 });
      await store.create('s');
      await admin.pexpire('renew:{s}', 1000);
      await store.beat('s');
      expect(await admin.pttl('renew:{s}')).toBeGreaterThan(1000);
    } finally {
      client.disconnect();
    }
  });

  it('gives back every kind of entry as it was appended, whatever its type and JSON', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      const store = new RedisStreamStore({ client, blockingClient: client, prefix: 'codec:' });
      const entries: StreamEntry[] = [
        event(1, 'first choice'),
        { id: 2, kind: 'event', type: 'content', data: JSON.stringify({ type: 'content', choice: 1, text: 'second choice' }) },
        { id: 3, kind: 'event', type: 'reasoning', data: JSON.stringify({ type: 'reasoning', choice: 0, text: 'think' }) },
        { id: 4, kind: 'event', type: 'usage', data: JSON.stringify({ type: 'usage', usage: { total: 3 } }) },
        { id: 5, kind: 'event', type: 'content', data: JSON.stringify({ choice: 0, type: 'content', text: 'type not first' }) },
        { id: 6, kind: 'event', type: 'custom-type', data: '{"type":"custom-type","x":1}' },
        { id: 7, kind: 'event', type: 'two\nlines', data: '"\n"' },
        { id: 8, kind: 'event', type: '', data: '' },
        { id: 9, kind: 'error', type: '', data: JSON.stringify({ kind: 'http', message: 'é\n"x"' }) },
        end(10),
      ];
      await store.create('s');
      await store.append('s', entries);
      expect(await store.read('s', 0, { count: 100, waitMs: 0 })).toEqual(entries);
    } finally {
      client.disconnect();
    }
  });

  it('an ended stream of 500 text deltas (11 KiB of text) holds at most 32 KiB in Redis', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      const store = new RedisStreamStore({ client, blockingClient: client, prefix: 'memory:' });
      await store.create('s');
      let text = 0;
      for (let id = 1; id <= 500; id++) {
        const delta = `word${id} and some more `.slice(0, 22);
        text += delta.length;
        await store.append('s', [event(id, delta)]);
      }
      await store.append('s', [end(501)]);
      expect(text).toBeGreaterThanOrEqual(10 * 1024);
      const keys = await admin.keys('memory:*');
      let bytes = 0;
      for (const key of keys) bytes += Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      expect(bytes).toBeLessThanOrEqual(32 * 1024);
    } finally {
      client.disconnect();
    }
  });
});
