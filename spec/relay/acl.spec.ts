import Redis from 'ioredis';
import { createClient } from 'redis';
import { lastValueFrom, toArray } from 'rxjs';
import { contentEntry as event, endEntry as end, delay } from '../support/storeEntries';
import { readStream } from '../../src/relay/readStream';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { RedisClientLike } from '../../src/relay/redisCommands';
import { RedisServer, startRedis } from '../support/redisServer';

// A Redis user as an app gets it on a shared or managed Redis: its own key prefix, data commands
// only (`+@read +@write`, and `+@transaction` for MULTI/EXEC), no CLIENT, no scripting. The store
// must relay streams with nothing more, readers waiting on several streams at once included.

jest.setTimeout(20_000);

const PREFIX = 'app:';
let redis: RedisServer;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = await startRedis();
  const admin = new Redis(redis.port, '127.0.0.1');
  await admin.call(
    'ACL',
    'SETUSER',
    'relay',
    'on',
    '>relay-secret',
    'resetkeys',
    `~${PREFIX}*`,
    '-@all',
    '+@read',
    '+@write',
    '+@transaction',
  );
  admin.disconnect();
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await redis?.stop();
});

type Connect = () => Promise<RedisClientLike>;

const clients: ReadonlyArray<readonly [string, Connect]> = [
  [
    'ioredis',
    async () => {
      const client = new Redis({
        port: redis.port,
        host: '127.0.0.1',
        username: 'relay',
        password: 'relay-secret',
        enableReadyCheck: false,
      });
      closers.push(() => client.quit());
      return client;
    },
  ],
  [
    'redis v5',
    async () => {
      const client = await createClient({ url: `redis://relay:relay-secret@127.0.0.1:${redis.port}` }).connect();
      closers.push(() => client.quit());
      return client;
    },
  ],
];

describe.each(clients)('a Redis user limited to a key prefix and data commands, over %s', (_name, connect) => {
  it('is refused CLIENT (so the store must do without it)', async () => {
    const client = (await connect()) as {
      call?: (...args: string[]) => Promise<unknown>;
      sendCommand?: (args: string[]) => Promise<unknown>;
    };
    const sent = client.call !== undefined ? client.call('CLIENT', 'ID') : client.sendCommand!(['CLIENT', 'ID']);
    await expect(sent).rejects.toThrow(/NOPERM/);
  });

  it('relays streams: a reader on another instance, already waiting on one stream, is woken for a second as its entries come', async () => {
    // Blocks of 10 s: a second reader not woken would wait past the spec's timeout.
    const timing = { heartbeatInterval: 10_000, heartbeatTimeout: 30_000, prefix: PREFIX };
    const producer = new RedisStreamStore({ ...timing, client: await connect(), blockingClient: await connect() });
    const reader = new RedisStreamStore({ ...timing, client: await connect(), blockingClient: await connect() });
    const [first, second] = [`first-${_name}`, `second-${_name}`];
    await producer.create(first);
    await producer.create(second);
    const firstRead = lastValueFrom(readStream(reader, first).pipe(toArray()));
    await delay(200);
    const secondRead = lastValueFrom(readStream(reader, second).pipe(toArray()));
    await delay(200);
    await producer.append(second, [event(1, 'a'), event(2, 'b')]);
    await producer.append(second, [end(3)]);
    expect(await secondRead).toEqual([event(1, 'a'), event(2, 'b'), end(3)]);
    await producer.append(first, [event(1, 'c'), end(2)]);
    expect(await firstRead).toEqual([event(1, 'c'), end(2)]);
    expect(await producer.beat(first)).toBe(false);
    expect(await producer.requestStop(first)).toBe(false);
  });
});
