import { sharedTarget, valkeyUnderTest } from '../support/engineUnderTest';
import { describeRelayContract } from '../support/relayContract';
import { describeStoreContract } from '../support/storeContract';

// Valkey 8 is a supported engine: on one valkey-server (or VALKEY_URL's), started once for the file,
// the store contract through ioredis, redis v5 and v4, and the relay's HTTP contract through redis v5
// (through ioredis too on redis-server: spec/relay/relayContract.spec.ts). valkey-server must be
// installed: .ci/run does it, from bookworm-backports on Debian 12. An engine spec:
// `npm run test:node24` leaves it out (see jest.config.ts).

jest.setTimeout(60_000);

const valkey = sharedTarget(valkeyUnderTest);

describeStoreContract(valkey, { memory: false });
describeRelayContract(valkey, [['redis v5', 'redis']]);
