import Redis from 'ioredis';
import { Observable } from 'rxjs';
import { StreamEntry } from '../../src/relay/streamEntries';
import { Producer } from '../../src/relay/Producer';
import { readStream } from '../../src/relay/readStream';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { ChatEvent } from '../../src/types/events';
import { collect } from '../support/collect';
import { RedisSentinel, startRedisSentinel } from '../support/redisServer';

// RedisStreamStore behind redis-sentinel (a primary, its replica): a failover forced mid-reply
// (SENTINEL FAILOVER), after the primary stalled its writers for longer than a heartbeat lasts,
// must cost neither the producer nor a reader on another instance the reply.
// Heartbeats are fast (every 200 ms, dead after 1 s) so that a false death would show.

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

/** An ioredis client that finds the primary through the sentinel, as an app behind Sentinel has. */
function sentinelClient(): Redis {
  const client = new Redis({ sentinels: [{ host: '127.0.0.1', port: sentinel.sentinelPort }], name: sentinel.masterName });
  closers.push(() => client.quit().catch(() => undefined));
  return client;
}

const store = (): RedisStreamStore =>
  new RedisStreamStore({ heartbeatInterval: 200, heartbeatTimeout: 1000, client: sentinelClient(), blockingClient: sentinelClient() });

const EVENTS = 120;

describe('a failover mid-reply', () => {
  it('the producer goes on, and a reader on another instance gets the whole reply, not producer-lost', async () => {
    const producerStore = store();
    const readerStore = store();
    await producerStore.create('failover');
    const errors: unknown[] = [];
    const over = new Promise<void>((resolve) => {
      const producer = new Producer(producerStore, 'failover', {
        maxPendingBytes: 1 << 20,
        onError: (error) => errors.push(error),
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
    const read = collect(readStream(readerStore, 'failover'));
    await new Promise((resolve) => setTimeout(resolve, 800));
    // The primary stalls its writers longer than a heartbeat lasts (as one does before it is failed
    // over), then the replica is promoted: reads go on, the heartbeat lapses meanwhile.
    const primary = new Redis(sentinel.primary.port, '127.0.0.1');
    await primary.call('CLIENT', 'PAUSE', '2500', 'WRITE');
    primary.disconnect();
    await sentinel.failover();
    await over;
    const outcome = await read;
    expect(errors).toEqual([]);
    expect(outcome.error).toBeUndefined();
    const entries = outcome.values as StreamEntry[];
    expect(entries.map((entry) => entry.id)).toEqual(Array.from({ length: EVENTS + 1 }, (_, i) => i + 1));
    expect(entries[EVENTS]!.kind).toBe('end');
  });
});
