import { clusterUnderTest, sharedTarget } from '../support/engineUnderTest';
import { describeRelayContract } from '../support/relayContract';
import { describeStoreContract } from '../support/storeContract';

// On one Redis Cluster of 3 masters (or REDIS_CLUSTER_URLS's seeds), started once for the file: the
// store contract (the same specs as on one redis-server, spec/relay/store.spec.ts) and the relay's
// HTTP contract, each through ioredis Cluster and node-redis createCluster of v5 and v4. An engine
// spec: `npm run test:node24` leaves it out (see jest.config.ts).

jest.setTimeout(60_000);

const cluster = sharedTarget(clusterUnderTest);

describeStoreContract(cluster, { memory: false, clustered: true });
describeRelayContract(cluster, [
  ['ioredis Cluster', 'ioredis-cluster'],
  ['node-redis createCluster', 'redis-cluster'],
  ['node-redis v4 createCluster', 'redis4-cluster'],
]);
