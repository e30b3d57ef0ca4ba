import { redisUnderTest, sharedTarget } from '../support/engineUnderTest';
import { describeRelayContract } from '../support/relayContract';

// The relay's HTTP contract on one redis-server (or REDIS_URL's), through ioredis and node-redis v5:
// instances of the contract over each client (spec/support/relayContract.ts). The example app
// itself, over node-redis v5, is spec/relay/relay.spec.ts. An engine spec: `npm run test:node24`
// leaves it out (see jest.config.ts).

jest.setTimeout(60_000);

const redis = sharedTarget(redisUnderTest);

describeRelayContract(redis, [
  ['ioredis', 'ioredis'],
  ['redis v5', 'redis'],
]);
