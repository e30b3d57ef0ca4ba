import { startRedis } from '../support/redisServer';
import { describeStoreContract } from '../support/storeContract';

// The store contract on redis-server: in memory, and Redis Streams through ioredis, redis v5 and v4.

jest.setTimeout(30_000);

describeStoreContract(() => startRedis(), { memory: true });
