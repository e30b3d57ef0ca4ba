import { execFileSync } from 'node:child_process';
import { ClientRequest, IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { root } from '../support/build';
import { FakeUpstream, fakeMessages, startFakeUpstream } from '../support/fakeUpstream';
import { RedisServer, startRedis } from '../support/redisServer';
import { RelayApp, startRelayApp } from '../support/relayApp';
import { startTogether } from '../support/startTogether';

// Ten slow clients at once, each asking for a reply of about 30 MB and reading it at about 1 KB/s:
// the relay (examples/relay in a process of its own, over Redis) must hold each provider back (the
// fake upstream's writes block, and it never gets to send the whole reply) and keep its own memory
// for them bounded by the cap on what waits for a client. The reply is several times what the two
// loopback hops (provider -> relay, relay -> client) can hold in the kernel's buffers, measured here
// by scripts/socket-buffers.mjs, so that a relay reading eagerly would have to keep the rest itself.

jest.setTimeout(120_000);

const CLIENTS = 10;
const CAP = 1024 * 1024;
const REPLY = { events: 30_000, size: 1000 }; // about 30 MB of text, more on the wire

let redis: RedisServer;
let upstream: FakeUpstream;
let relay: RelayApp;
const opened: ClientRequest[] = [];

interface Memory {
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

/** The relay process's memory, its heap collected first. */
function memoryOf(app: RelayApp): Promise<Memory> {
  return new Promise((resolve) => {
    app.child.once('message', (message) => resolve(message as Memory));
    app.child.send('memory');
  });
}

/** A client that reads about 1 KB a second: 100 bytes every 100 ms, from a paused response. */
function slowClient(url: string): { request: ClientRequest; read: () => number; status: Promise<number> } {
  let read = 0;
  let timer: NodeJS.Timeout | undefined;
  const target = new URL('/chat', url);
  const req = request(target, { method: 'POST', headers: { 'content-type': 'application/json' } });
  const status = new Promise<number>((resolve) => {
    req.on('response', (response: IncomingMessage) => {
      resolve(response.statusCode ?? 0);
      response.pause();
      timer = setInterval(() => {
        const piece = response.read(100) as Buffer | null;
        if (piece !== null) read += piece.length;
      }, 100);
      response.on('close', () => clearInterval(timer));
    });
  });
  req.on('error', () => clearInterval(timer));
  req.on('close', () => clearInterval(timer));
  req.end(JSON.stringify({ messages: fakeMessages(REPLY) }));
  opened.push(req);
  return { request: req, read: () => read, status };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

beforeAll(async () => {
  // Started side by side, never lost: a failed start stops the other (see startTogether).
  [redis, upstream] = await startTogether<[RedisServer, FakeUpstream]>([
    [() => startRedis(), (server) => server.stop()],
    [() => startFakeUpstream(), (fake) => fake.close()],
  ]);
  relay = await startRelayApp({ UPSTREAM_URL: upstream.url, REDIS_URL: redis.url, RELAY_MAX_BUFFERED_BYTES: String(CAP) }, [
    '--expose-gc',
    '-r',
    join(root, 'spec', 'support', 'memoryProbe.cjs'),
  ]);
}, 60_000);
afterAll(async () => {
  for (const client of opened) client.destroy();
  await relay?.kill('SIGKILL');
  await Promise.all([upstream?.close(), redis?.stop()]);
});

describe('ten slow clients of a relay, each asking for a reply of about 30 MB', () => {
  it('block their upstreams (none sends its whole reply) while the relay holds less than the cap for each', async () => {
    const held = JSON.parse(execFileSync(process.execPath, [join(root, 'scripts', 'socket-buffers.mjs')], { encoding: 'utf8' })) as {
      heldBytes: number;
    };
    const replyBytes = REPLY.events * REPLY.size;
    // Meaningful only if the reply is well beyond what both hops' kernel buffers can hold.
    expect(replyBytes).toBeGreaterThan(3 * 2 * held.heldBytes);

    // Warm up (the first request loads code), then the baseline.
    const warm = slowClient(relay.url);
    await warm.status;
    warm.request.destroy();
    await wait(500);
    const before = await memoryOf(relay);

    const clients = Array.from({ length: CLIENTS }, () => slowClient(relay.url));
    expect(await Promise.all(clients.map((client) => client.status))).toEqual(Array(CLIENTS).fill(200));
    const requests = (): typeof upstream.requests => upstream.requests.slice(1);

    // Blocked: every upstream waits for 'drain' and has offered nothing more for a whole second.
    let offered = requests().map((r) => r.offered);
    for (let settled = 0, tries = 0; settled < 4; tries++) {
      if (tries > 240)
        throw new Error(`the upstreams never all blocked: ${JSON.stringify(requests().map((r) => [r.offered, r.waitingForDrain]))}`);
      await wait(250);
      const now = requests().map((r) => r.offered);
      const still = now.length === CLIENTS && requests().every((r) => r.waitingForDrain) && now.every((n, i) => n === offered[i]);
      settled = still ? settled + 1 : 0;
      offered = now;
    }
    const after = await memoryOf(relay);

    const perClient = {
      heap: (after.heapUsed - before.heapUsed) / CLIENTS,
      rss: (after.rss - before.rss) / CLIENTS,
      external: (after.external + after.arrayBuffers - before.external - before.arrayBuffers) / CLIENTS,
    };
    const upstreamSent = requests().map((r) => r.offered - r.buffered());
    console.log(
      [
        `loopback: one connection holds ${mib(held.heldBytes)} when its reader stops (kernel send + receive buffers)`,
        `reply: ${mib(replyBytes)} of text; each upstream sent ${mib(Math.min(...upstreamSent))} to ${mib(Math.max(...upstreamSent))}` +
          ` before its writes blocked (write() false ${requests()
            .map((r) => r.blockedWrites)
            .join(', ')} times)`,
        `relay process: heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}` +
          ` (of ${mib(before.heapTotal)} -> ${mib(after.heapTotal)}), rss ${mib(before.rss)} -> ${mib(after.rss)}`,
        `per client: heap ${mib(perClient.heap)}, rss ${mib(perClient.rss)}, buffers ${mib(perClient.external)} (cap ${mib(CAP)})`,
        `clients read ${clients.map((c) => c.read()).join(', ')} bytes each`,
      ].join('\n'),
    );

    for (const request of requests()) {
      expect(request.waitingForDrain).toBe(true); // the backpressure reached the upstream
      expect(request.finished).toBe(false);
      expect(request.offered).toBeLessThan(replyBytes / 2); // it never sent the whole reply, nor half
    }
    // What the relay keeps for each client is bounded by its settings: the sink's cap (what waits for
    // the client, and the last write Node's socket still holds) and what waits for the store; the heap
    // (after a collection) and the buffers outside it stay within twice the cap per client.
    expect(perClient.heap + perClient.external).toBeLessThan(2 * CAP);
    // Its resident set grows by more (V8 and the allocator keep the room the first burst took), but it
    // is bounded: while the clients go on reading slowly, it no longer grows.
    await wait(2000);
    const later = await memoryOf(relay);
    console.log(`two seconds later: rss ${mib(later.rss)}, heap used ${mib(later.heapUsed)}`);
    expect((later.rss - after.rss) / CLIENTS).toBeLessThan(CAP / 4);
    expect(requests().every((r) => r.waitingForDrain && !r.finished)).toBe(true);
  });
});
