import { startRedisCluster } from '../support/redisServer';
import { describeStoreContract } from '../support/storeContract';

// The store contract on a Redis Cluster of 3 masters, through ioredis Cluster and node-redis
// createCluster: the same specs as on one redis-server (spec/relay/store.spec.ts).

jest.setTimeout(30_000);

describeStoreContract(() => startRedisCluster(), { memory: false, clustered: true });
