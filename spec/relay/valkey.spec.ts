import { startValkey } from '../support/redisServer';
import { describeStoreContract } from '../support/storeContract';

// Valkey 8 is a supported engine: the store contract on valkey-server, through ioredis, redis v5 and
// v4 (valkey-server must be installed: .ci/run does it, from bookworm-backports on Debian 12).

jest.setTimeout(30_000);

describeStoreContract(() => startValkey(), { memory: false });
