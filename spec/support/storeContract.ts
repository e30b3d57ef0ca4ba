import Redis, { Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { createClient as createClientV4, createCluster as createClusterV4 } from 'redis4';
import { lastValueFrom, toArray } from 'rxjs';
import { contentEntry as event, endEntry as end, delay } from './storeEntries';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { readStream } from '../../src/relay/readStream';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { StreamStore } from '../../src/relay/StreamStore';
import { StreamStoreOptions } from '../../src/relay/storeOptions';
import { collect } from './collect';
import { ClusterTarget, RUN_PREFIX, ServerTarget } from './engineUnderTest';

// One contract for every store: in memory, and Redis Streams through each client a user may have
// (ioredis, redis v5 and redis v4), against a real server (redis-server, valkey-server), or through
// the cluster clients (ioredis Cluster, node-redis createCluster of v5 and v4) against a Redis Cluster.

/**
 * Declares the store contract's specs against the server (or cluster) `target` gives (started by
 * the spec file, see `sharedTarget`), and the in-memory store when `memory` is true; `clustered`
 * when it is a cluster (then through the cluster clients).
 *
 * @example
 * ```ts
 * const valkey = sharedTarget(valkeyUnderTest);
 * describeStoreContract(valkey, { memory: false });
 * ```
 */
export function describeStoreContract(
  target: () => ServerTarget | ClusterTarget,
  { memory, clustered = false }: { memory: boolean; clustered?: boolean },
): void {
  describe('the store contract', () => {
    defineStoreContract(target, memory, clustered);
  });
}

/** The contract's specs, in the describe of `describeStoreContract` (its clients are closed when it ends). */
function defineStoreContract(target: () => ServerTarget | ClusterTarget, memory: boolean, clustered: boolean): void {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  const server = (): ServerTarget => target() as ServerTarget;
  const cluster = (): ClusterTarget => target() as ClusterTarget;
  /** A prefix of this store's own, under this run's (the server may be a shared one, see engineUnderTest.ts). */
  const prefix = (): string => `${RUN_PREFIX}t${closers.length}:`;

  /** Fast heartbeats, so that a lapse is seen within a second. */
  const FAST: StreamStoreOptions = { heartbeatInterval: 100, heartbeatTimeout: 300 };

  type StoreMaker = (options?: StreamStoreOptions) => Promise<StreamStore>;

  const all: ReadonlyArray<readonly [string, StoreMaker]> = [
    ['MemoryStreamStore', async (options) => new MemoryStreamStore({ ...FAST, ...options })],
    [
      'RedisStreamStore over ioredis',
      async (options) => {
        const client = new Redis(server().url);
        const blockingClient = client.duplicate();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
    [
      'RedisStreamStore over redis v5',
      async (options) => {
        const client = await createClient({ url: server().url }).connect();
        const blockingClient = await client.duplicate().connect();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
    [
      'RedisStreamStore over redis v4',
      async (options) => {
        const client = createClientV4({ url: server().url });
        await client.connect();
        const blockingClient = client.duplicate();
        await blockingClient.connect();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
  ];

  const clusters: ReadonlyArray<readonly [string, StoreMaker]> = [
    [
      'RedisStreamStore over ioredis Cluster',
      async (options) => {
        const { seeds, auth } = cluster();
        const client = new Cluster(
          seeds.map((seed) => ({ ...seed })),
          { redisOptions: { username: auth.username, password: auth.password, ...(auth.tls ? { tls: {} } : {}) } },
        );
        const blockingClient = client.duplicate();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
    [
      'RedisStreamStore over node-redis createCluster',
      async (options) => {
        const { urls, auth } = cluster();
        const client = await createCluster({
          rootNodes: urls.map((url) => ({ url })),
          defaults: { username: auth.username, password: auth.password },
        }).connect();
        const blockingClient = await client.duplicate().connect();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
    [
      'RedisStreamStore over node-redis v4 createCluster',
      async (options) => {
        const { urls, auth } = cluster();
        const client = createClusterV4({
          rootNodes: urls.map((url) => ({ url })),
          defaults: { username: auth.username, password: auth.password },
        });
        await client.connect();
        const blockingClient = client.duplicate();
        await blockingClient.connect();
        closers.push(
          () => client.quit(),
          () => blockingClient.quit(),
        );
        return new RedisStreamStore({ ...FAST, ...options, client, blockingClient, prefix: prefix() });
      },
    ],
  ];

  const stores = clustered ? clusters : memory ? all : all.slice(1);

  describe.each(stores)('%s', (_name, makeStore) => {
    it('keeps entries with their ids and gives back those after an id; an end marks it ended', async () => {
      const store = await makeStore();
      await store.create('a');
      await store.append('a', [event(1, 'x'), event(2, 'é\n"y"')]);
      await store.append('a', [event(3, 'z'), end(4)]);
      expect(await store.read('a', 0, { count: 10, waitMs: 0 })).toEqual([event(1, 'x'), event(2, 'é\n"y"'), event(3, 'z'), end(4)]);
      expect(await store.read('a', 2, { count: 1, waitMs: 0 })).toEqual([event(3, 'z')]);
      expect(await store.state('a')).toEqual({ stored: true, ended: true, alive: false, lastId: 4 });
      expect(await store.state('nobody')).toEqual({ stored: false, ended: false, alive: false, lastId: 0 });
    });

    it('refuses to create a stream twice', async () => {
      const store = await makeStore();
      await store.create('twice');
      await expect(store.create('twice')).rejects.toThrow();
    });

    it('wakes a waiting read when an entry is appended, on each of several streams followed at once', async () => {
      const store = await makeStore();
      const ids = ['w1', 'w2', 'w3'];
      for (const id of ids) await store.create(id);
      const reads = ids.map((id) => store.read(id, 0, { count: 10, waitMs: 10_000 }));
      await delay(50);
      for (const [i, id] of ids.entries()) await store.append(id, [event(1, `to ${i}`)]);
      expect(await Promise.all(reads)).toEqual(ids.map((_, i) => [event(1, `to ${i}`)]));
    });

    it('answers an empty read after the wait when nothing came, and at once when aborted', async () => {
      const store = await makeStore();
      await store.create('quiet');
      expect(await store.read('quiet', 0, { count: 10, waitMs: 150 })).toEqual([]);
      const abort = new AbortController();
      const read = store.read('quiet', 0, { count: 10, waitMs: 60_000, signal: abort.signal });
      abort.abort();
      expect(await read).toEqual([]);
    });

    it('tells a producer that a stop was asked for at its next heartbeat; a stop of an unknown stream is refused', async () => {
      const store = await makeStore();
      await store.create('s');
      expect(await store.beat('s')).toBe(false);
      expect(await store.requestStop('s')).toBe(true);
      expect(await store.beat('s')).toBe(true);
      expect(await store.requestStop('unknown')).toBe(false);
    });

    it('readStream ends in StreamClosedEarlyError (producer-lost) after what came', async () => {
      const store = await makeStore();
      await store.create('dead');
      await store.append('dead', [event(1, 'a'), event(2, 'b')]);
      expect((await store.state('dead')).alive).toBe(true);
      const outcome = await collect(readStream(store, 'dead'));
      expect(outcome.values).toEqual([event(1, 'a'), event(2, 'b')]);
      expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
      expect((outcome.error as StreamClosedEarlyError).reason).toBe('producer-lost');
      expect((await store.state('dead')).alive).toBe(false);
    });

    it('readStream follows a live stream to its end, from after a given id', async () => {
      const store = await makeStore();
      await store.create('live');
      await store.append('live', [event(1, 'a'), event(2, 'b')]);
      const read = lastValueFrom(readStream(store, 'live', { after: 1 }).pipe(toArray()));
      for (let id = 3; id <= 6; id++) {
        await delay(30);
        await store.beat('live');
        await store.append('live', [event(id, String(id))]);
      }
      await store.append('live', [end(7)]);
      expect((await read).map((entry) => entry.id)).toEqual([2, 3, 4, 5, 6, 7]);
    });

    it('trims to about its length cap; a reader that needs a trimmed entry fails with reason store', async () => {
      const store = await makeStore({ maxLength: 10 });
      await store.create('long');
      for (let id = 1; id <= 600; id += 100) {
        await store.append(
          'long',
          Array.from({ length: 100 }, (_, i) => event(id + i, 'x')),
        );
      }
      const [first] = await store.read('long', 0, { count: 1, waitMs: 0 });
      expect(first!.id).toBeGreaterThan(1);
      const outcome = await collect(readStream(store, 'long'));
      expect(outcome.values).toEqual([]);
      expect((outcome.error as StreamClosedEarlyError).reason).toBe('store');
    });

    it('refuses an append to a stream it no longer holds (typed, reason store)', async () => {
      const store = await makeStore();
      const error = await store.append('never-made', [event(1, 'a')]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as StreamClosedEarlyError).reason).toBe('store');
    });
  });
}
