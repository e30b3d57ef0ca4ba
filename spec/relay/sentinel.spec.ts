import Redis from 'ioredis';
import { createSentinel } from 'redis';
import { Observable } from 'rxjs';
import { StreamEntry } from '../../src/relay/streamEntries';
import { Producer } from '../../src/relay/Producer';
import { readStream } from '../../src/relay/readStream';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { RedisClientLike } from '../../src/relay/redisCommands';
import { ChatEvent } from '../../src/types/events';
import { collect } from '../support/collect';
import { RedisSentinel, startRedisSentinel } from '../support/redisServer';

// RedisStreamStore behind redis-sentinel (a primary, its replica), through the clients that find the
// primary through it (ioredis `new Redis({ sentinels, name })`, node-redis `createSentinel`): a
// failover forced mid-reply (SENTINEL FAILOVER), after the primary stalled its writers for longer
// than a heartbeat lasts, must cost neither the producer nor a reader on another instance the reply.
// Heartbeats are fast (every 200 ms, dead after 1 s) so that a false death would show. One sentinel
// for the file: each client's case fails over from whichever server is the primary then.
// An engine spec: `npm run test:node24` leaves it out (see jest.config.ts).

jest.setTimeout(90_000);

let sentinel: RedisSentinel;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  sentinel = await startRedisSentinel();
}, 60_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await sentinel?.stop();
});

type Connect = () => Promise<RedisClientLike>;

/** The clients that find the primary through the sentinel, as an app behind Sentinel has. */
const clients: ReadonlyArray<readonly [string, Connect]> = [
  [
    'ioredis new Redis({ sentinels, name })',
    async () => {
      const client = new Redis({ sentinels: [{ host: '127.0.0.1', port: sentinel.sentinelPort }], name: sentinel.masterName });
      closers.push(() => client.quit().catch(() => undefined));
      return client;
    },
  ],
  [
    'node-redis createSentinel',
    async () => {
      const client = createSentinel({
        name: sentinel.masterName,
        sentinelRootNodes: [{ host: '127.0.0.1', port: sentinel.sentinelPort }],
        // It asks the sentinel for the primary every 10 s by default: a failover would show that late.
        scanInterval: 500,
      });
      // A failover shows as errors of the connections it cuts: the client reconnects to the new primary.
      client.on('error', () => undefined);
      await client.connect();
      // destroy, not close: close waits for the blocking read the store may have left waiting.
      closers.push(() => client.destroy().catch(() => undefined));
      return client;
    },
  ],
];

const EVENTS = 120;

/** A store whose clients find the primary through the sentinel, by `connect`. */
const store = async (connect: Connect): Promise<RedisStreamStore> =>
  new RedisStreamStore({ heartbeatInterval: 200, heartbeatTimeout: 1000, client: await connect(), blockingClient: await connect() });

/** What a reply came to: the producer's errors, the reader's failure, the ids it read, the last entry's kind. */
interface Reply {
  readonly producerErrors: unknown[];
  readonly readerError: unknown;
  readonly ids: number[];
  readonly last: string | undefined;
}

/** Starts a reply of `EVENTS` events (one every 40 ms) on a producer of its own, read by a store of another instance. */
async function reply(connect: Connect, id: string): Promise<() => Promise<Reply>> {
  const producerStore = await store(connect);
  const readerStore = await store(connect);
  await producerStore.create(id);
  const producerErrors: unknown[] = [];
  const over = new Promise<void>((resolve) => {
    const producer = new Producer(producerStore, id, {
      maxPendingBytes: 1 << 20,
      onError: (error) => producerErrors.push(error),
      onOver: resolve,
    });
    producer.detach();
    producer.run(
      () =>
        new Observable<ChatEvent>((subscriber) => {
          let n = 0;
          const timer = setInterval(() => {
            subscriber.next({ type: 'content', choice: 0, text: `word ${++n} ` });
            if (n === EVENTS) {
              clearInterval(timer);
              subscriber.complete();
            }
          }, 40);
          return () => clearInterval(timer);
        }),
    );
  });
  const read = collect(readStream(readerStore, id));
  return async () => {
    await over;
    const outcome = await read;
    const entries = outcome.values as StreamEntry[];
    return { producerErrors, readerError: outcome.error, ids: entries.map((entry) => entry.id), last: entries[entries.length - 1]?.kind };
  };
}

// One failover, both clients' replies across it (a second failover would wait for the sentinel to
// see the former primary in sync, which it checks every 10 s).
describe('a failover mid-reply', () => {
  it('the producer goes on, and a reader on another instance gets the whole reply, not producer-lost, through each client', async () => {
    const replies = await Promise.all(clients.map(([name, connect]) => reply(connect, `failover-${name.replace(/\W/g, '')}`)));
    await new Promise((resolve) => setTimeout(resolve, 800));
    // The primary stalls its writers longer than a heartbeat lasts (as one does before it is failed
    // over), then the replica is promoted: reads go on, the heartbeat lapses meanwhile.
    const primary = new Redis(sentinel.primary.port, '127.0.0.1');
    await primary.call('CLIENT', 'PAUSE', '2500', 'WRITE');
    primary.disconnect();
    await sentinel.failover();
    const outcomes = await Promise.all(replies.map((outcome) => outcome()));
    const whole: Reply = {
      producerErrors: [],
      readerError: undefined,
      ids: Array.from({ length: EVENTS + 1 }, (_, i) => i + 1),
      last: 'end',
    };
    expect(Object.fromEntries(clients.map(([name], i) => [name, outcomes[i]]))).toEqual(
      Object.fromEntries(clients.map(([name]) => [name, whole])),
    );
  });
});
