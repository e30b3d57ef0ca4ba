import { randomBytes } from 'node:crypto';
import { startRedis, startRedisCluster, startValkey } from './redisServer';

// The servers the contracts (spec/support/storeContract.ts, relayContract.ts) run on: started by the
// spec on free ports of 127.0.0.1 (the default), or servers that already run, named by the
// environment, e.g. a managed Redis:
//
//   REDIS_URL=redis://user:secret@host:6379            one redis-server (store.spec.ts, relayContract.spec.ts)
//   VALKEY_URL=redis://host:6380                        one valkey-server (valkey.spec.ts)
//   REDIS_CLUSTER_URLS=redis://h1:7000,redis://h2:7001  seeds of a Redis Cluster (clusterContract.spec.ts)
//
// A server named so is never stopped nor flushed by the suite: every key the contracts write is
// under a prefix of this run's own, and expires (the store's keys do). The specs that restart, fail
// over, reshard or give ACL users to their server (relay.spec.ts, sentinel.spec.ts, cluster.spec.ts,
// acl.spec.ts, ...) always start their own.

/** One server the contracts talk to (a redis-server or valkey-server). */
export interface ServerTarget {
  /** `redis://[user:password@]host:port` (or `rediss://`). */
  readonly url: string;
  /** Stops it when the suite started it; nothing for a server named by the environment. */
  stop(): Promise<void>;
}

/** A Redis Cluster the contracts talk to, by its seeds. */
export interface ClusterTarget {
  /** The seed nodes' URLs (credentials and `rediss:` as in the URL). */
  readonly urls: readonly string[];
  /** `{ host, port }` of each seed, as ioredis `Cluster` takes them. */
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  /** The user and password of the seeds' URLs, and whether they say TLS (`rediss:`). */
  readonly auth: { readonly username?: string; readonly password?: string; readonly tls: boolean };
  stop(): Promise<void>;
}

/**
 * A prefix for this run's keys: distinct from any other run's on a shared server.
 *
 * @example
 * ```ts
 * new RedisStreamStore({ client, blockingClient, prefix: `${RUN_PREFIX}t1:` });
 * ```
 */
export const RUN_PREFIX = `spec-${randomBytes(4).toString('hex')}:`;

/** What the environment names, `undefined` when it is unset or empty. */
function named(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A server named by the environment: the suite leaves it running. */
function external(url: string): ServerTarget {
  return { url, stop: async () => undefined };
}

/**
 * The redis-server of the contracts: `REDIS_URL`'s, or one the spec starts.
 *
 * @example
 * ```ts
 * const redis = await redisUnderTest();
 * try { ... } finally { await redis.stop(); }
 * ```
 */
export async function redisUnderTest(): Promise<ServerTarget> {
  const url = named('REDIS_URL');
  return url === undefined ? startRedis() : external(url);
}

/**
 * The valkey-server of the contracts: `VALKEY_URL`'s, or one the spec starts.
 *
 * @example
 * ```ts
 * const valkey = await valkeyUnderTest();
 * ```
 */
export async function valkeyUnderTest(): Promise<ServerTarget> {
  const url = named('VALKEY_URL');
  return url === undefined ? startValkey() : external(url);
}

/** A cluster target of seed URLs. */
function clusterOf(urls: readonly string[], stop: () => Promise<void>): ClusterTarget {
  const parsed = urls.map((url) => new URL(url));
  const first = parsed[0]!;
  return {
    urls,
    seeds: parsed.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    auth: {
      username: first.username === '' ? undefined : decodeURIComponent(first.username),
      password: first.password === '' ? undefined : decodeURIComponent(first.password),
      tls: first.protocol === 'rediss:',
    },
    stop,
  };
}

/**
 * The Redis Cluster of the contracts: `REDIS_CLUSTER_URLS`'s seeds (comma-separated URLs), or a
 * cluster of 3 masters the spec starts.
 *
 * @example
 * ```ts
 * const cluster = await clusterUnderTest();
 * new Cluster(cluster.seeds);
 * ```
 */
export async function clusterUnderTest(): Promise<ClusterTarget> {
  const urls = named('REDIS_CLUSTER_URLS');
  if (urls !== undefined) {
    return clusterOf(
      urls.split(',').map((url) => url.trim()),
      async () => undefined,
    );
  }
  const cluster = await startRedisCluster();
  return clusterOf(
    cluster.nodes.map((node) => node.url),
    () => cluster.stop(),
  );
}

/** A target started once for a spec file (`beforeAll`) and stopped after it, whatever failed. */
export interface SharedTarget<T> {
  /** The target; only inside a spec or a hook that runs after `beforeAll`. */
  (): T;
}

/**
 * Starts `start` in a `beforeAll` of the file (or describe) it is called in, and stops it in an
 * `afterAll`: one server for the contracts of a spec file.
 *
 * @example
 * ```ts
 * const valkey = sharedTarget(valkeyUnderTest);
 * describeStoreContract(valkey, { memory: false });
 * describeRelayContract(valkey, [['ioredis', 'ioredis']]);
 * ```
 */
export function sharedTarget<T extends { stop(): Promise<void> }>(start: () => Promise<T>): SharedTarget<T> {
  let target: T | undefined;
  beforeAll(async () => {
    target = await start();
  }, 60_000);
  afterAll(async () => {
    await target?.stop();
  });
  return () => {
    if (target === undefined) throw new Error('the server of this spec file did not start (see the beforeAll failure)');
    return target;
  };
}
