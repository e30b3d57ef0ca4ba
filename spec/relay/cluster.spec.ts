import Redis, { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { lastValueFrom, toArray } from 'rxjs';
import { contentEntry as event, endEntry as end, delay } from '../support/storeEntries';
import { keySlot } from '../../src/relay/clusterSlots';
import { readStream } from '../../src/relay/readStream';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { RedisClientLike } from '../../src/relay/redisCommands';
import { RedisCluster, startRedisCluster } from '../support/redisServer';

// RedisStreamStore on a Redis Cluster of 3 masters (slots assigned by the spec), through both
// cluster clients users have: ioredis `Cluster` and node-redis `createCluster`. Readers of streams
// in several slots wait at once on one instance; a stream's slot moves to another node mid-reply.

jest.setTimeout(60_000);

let cluster: RedisCluster;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await cluster?.stop();
});

type Connect = () => Promise<RedisClientLike>;

const clients: ReadonlyArray<readonly [string, Connect]> = [
  [
    'ioredis Cluster',
    async () => {
      const client = new Cluster(cluster.seeds.map((seed) => ({ ...seed })));
      closers.push(() => client.quit());
      return client;
    },
  ],
  [
    'node-redis createCluster',
    async () => {
      const client = createCluster({ rootNodes: cluster.seeds.map((seed) => ({ url: `redis://${seed.host}:${seed.port}` })) });
      await client.connect();
      closers.push(() => client.quit());
      return client;
    },
  ],
];

/** Stream ids whose keys fall on different nodes (their slots as the cluster computes them). */
async function idsOnDistinctNodes(prefix: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const owners = new Set<number>();
  for (let n = 0; ids.length < count; n++) {
    const owner = await cluster.ownerOf(keySlot(`${prefix}{s${n}}`));
    if (owners.has(owner)) continue;
    owners.add(owner);
    ids.push(`s${n}`);
  }
  return ids;
}

describe('the cluster', () => {
  it('hashes keys to the slots the cluster does', async () => {
    const admin = new Redis(cluster.nodes[0]!.port, '127.0.0.1');
    try {
      for (const key of ['llm-stream:{abc}', 'llm-stream:{abc}:alive', 'plain', 'a{}b', '{x}{y}', 'é{ü}']) {
        expect([key, keySlot(key)]).toEqual([key, Number(await admin.call('CLUSTER', 'KEYSLOT', key))]);
      }
    } finally {
      admin.disconnect();
    }
  });
});

describe.each(clients)('RedisStreamStore over %s', (name, connect) => {
  const prefix = `${name.replace(/\W/g, '')}:`;
  const makeStore = async (): Promise<RedisStreamStore> =>
    new RedisStreamStore({
      heartbeatInterval: 500,
      heartbeatTimeout: 5000,
      prefix,
      client: await connect(),
      blockingClient: await connect(),
    });

  it('relays three streams on three nodes whose readers wait at once on one instance', async () => {
    const [producer, reader] = [await makeStore(), await makeStore()];
    const ids = await idsOnDistinctNodes(prefix, 3);
    for (const id of ids) await producer.create(id);
    const reads = ids.map((id) => lastValueFrom(readStream(reader, id).pipe(toArray())));
    await delay(100);
    for (const [i, id] of ids.entries()) await producer.append(id, [event(1, `to ${i}`)]);
    await delay(50);
    for (const id of ids) await producer.append(id, [event(2, 'more'), end(3)]);
    expect(await Promise.all(reads)).toEqual(ids.map((_, i) => [event(1, `to ${i}`), event(2, 'more'), end(3)]));
  });

  it('goes on when the slot of a stream moves to another node mid-reply', async () => {
    const [producer, reader] = [await makeStore(), await makeStore()];
    const id = `moving-${name.replace(/\W/g, '')}`;
    const slot = keySlot(`${prefix}{${id}}`);
    await producer.create(id);
    const read = lastValueFrom(readStream(reader, id).pipe(toArray()));
    for (let n = 1; n <= 5; n++) await producer.append(id, [event(n, `before ${n}`)]);
    const from = await cluster.ownerOf(slot);
    await cluster.migrateSlot(slot, (from + 1) % 3);
    expect(await cluster.ownerOf(slot)).toBe((from + 1) % 3);
    for (let n = 6; n <= 10; n++) {
      await producer.beat(id);
      await producer.append(id, [event(n, `after ${n}`)]);
      await delay(20);
    }
    await producer.append(id, [end(11)]);
    const entries = await read;
    expect(entries.map((entry) => entry.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(entries[9]).toEqual(event(10, 'after 10'));
  });
});
