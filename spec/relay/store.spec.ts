import { redisUnderTest, sharedTarget } from '../support/engineUnderTest';
import { describeStoreContract } from '../support/storeContract';

// The store contract on redis-server (or REDIS_URL's): in memory, and Redis Streams through ioredis,
// redis v5 and v4.

jest.setTimeout(30_000);

describeStoreContract(sharedTarget(redisUnderTest), { memory: true });
