import { execFileSync } from 'node:child_process';
import { IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { CompletionSnapshot } from '../../src/types/events';
import { root } from './build';
import { ClusterTarget, RUN_PREFIX, ServerTarget } from './engineUnderTest';
import { eventText, FakeUpstream, fakeMessages, startFakeUpstream, UpstreamRequest } from './fakeUpstream';
import { RelayApp, startRelayInstance } from './relayApp';
import { allFrames, completionOf, eventsOf, firstFrame, firstFrames, postChat, resume, stopChat } from './relayClient';
import { startTogether } from './startTogether';

// The relay's HTTP contract, compact, per engine and client: two instances in processes of their own
// (spec/support/relayInstance.cjs) over one server or cluster, a fake upstream that counts its
// requests, and a client that reads with this library as a browser's would. Start and stream, resume
// on the other instance with Last-Event-ID, stop from the other instance, a client that stops reading,
// a producer killed mid-reply. The whole behaviour, on plain Redis over the example app, is
// spec/relay/relay.spec.ts and slowClients.spec.ts.

/** A Redis client a relay instance can be given (RELAY_CLIENT of relayInstance.cjs). */
export type RelayClientKind = 'ioredis' | 'redis' | 'redis4' | 'ioredis-cluster' | 'redis-cluster' | 'redis4-cluster';

/** Heartbeats renewed every 200 ms, dead after 600 ms: a dead producer is noticed within about a second. */
const HEARTBEAT = { STORE_HEARTBEAT_INTERVAL: '200', STORE_HEARTBEAT_TIMEOUT: '600' };
/** A client that takes nothing for a second is dropped; 64 KiB may wait for it beyond what its socket took. */
const CAP = 64 * 1024;
const SINK = { RELAY_STALL_TIMEOUT: '1000', RELAY_MAX_BUFFERED_BYTES: String(CAP) };

/** Resolves when `promise` does, or rejects after `ms` saying what did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The upstream request made after `before` had been, once it came. */
async function requestAfter(upstream: FakeUpstream, before: number): Promise<UpstreamRequest> {
  for (let tries = 0; upstream.requests.length <= before; tries++) {
    if (tries > 200) throw new Error('the relay made no upstream request within 10 s');
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return upstream.requests[before]!;
}

/** Resolves once `app` printed `text` after the first `from` characters of its output. */
async function untilLogged(app: RelayApp, text: string, from: number): Promise<void> {
  while (!app.output().slice(from).includes(text)) await new Promise((wake) => setTimeout(wake, 50));
}

/** The text of a reply of `events` events of `size` characters, as the fake upstream streams it. */
const replyText = (events: number, size: number): string => Array.from({ length: events }, (_, i) => eventText(i, size)).join('');

/** The content text of the events of a response. */
const textOf = (events: ReturnType<typeof eventsOf>): string =>
  events.flatMap((event) => (event.type === 'content' ? [event.text] : [])).join('');

/**
 * A client that starts a reply and then reads nothing (its response paused: a paused socket does not
 * even see its connection cut) until `readRest()`, which reads what is left to the response's end and
 * tells whether the response came whole.
 */
function nonReadingClient(baseUrl: string, reply: { events: number; size: number }) {
  const req = request(new URL('/chat', baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' } });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (message: IncomingMessage) => {
      message.pause();
      resolve(message);
    });
    req.on('error', reject);
  });
  req.end(JSON.stringify({ messages: fakeMessages(reply) }));
  return {
    head: response.then((message) => ({ status: message.statusCode ?? 0, streamId: String(message.headers['x-stream-id']) })),
    readRest: async (): Promise<{ text: string; complete: boolean }> => {
      const message = await response;
      let text = '';
      return new Promise((resolve) => {
        message.on('data', (piece: Buffer) => (text += piece.toString('utf8')));
        message.on('close', () => resolve({ text, complete: message.complete }));
        message.on('error', () => undefined); // 'aborted': the cut is what `complete` tells
        message.resume();
      });
    },
    destroy: () => req.destroy(),
  };
}

/**
 * Declares the relay's HTTP contract on the server or cluster `target` gives, once per client of
 * `clients` (a name for the spec, and the client kind).
 *
 * @example
 * ```ts
 * const valkey = sharedTarget(valkeyUnderTest);
 * describeRelayContract(valkey, [['ioredis', 'ioredis'], ['redis v5', 'redis']]);
 * ```
 */
export function describeRelayContract(
  target: () => ServerTarget | ClusterTarget,
  clients: ReadonlyArray<readonly [name: string, kind: RelayClientKind]>,
): void {
  describe('the relay over HTTP', () => {
    let upstream: FakeUpstream;
    /** What one loopback connection holds when its reader stops (scripts/socket-buffers.mjs). */
    let heldBytes: number;
    const apps: RelayApp[] = [];
    beforeAll(async () => {
      upstream = await startFakeUpstream();
      heldBytes = (
        JSON.parse(execFileSync(process.execPath, [join(root, 'scripts', 'socket-buffers.mjs')], { encoding: 'utf8' })) as {
          heldBytes: number;
        }
      ).heldBytes;
    }, 30_000);
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.kill('SIGKILL')));
      await upstream?.close();
    });

    describe.each(clients.map(([name, kind], i) => [name, kind, i === 0] as const))('two instances over %s', (name, kind, first) => {
      let a: RelayApp;
      let b: RelayApp;
      /** What an instance of this client is started with. */
      const configuration = (): Record<string, string> => {
        const server = target();
        return {
          ...HEARTBEAT,
          ...SINK,
          RELAY_CLIENT: kind,
          REDIS_PREFIX: `${RUN_PREFIX}${kind}:`,
          UPSTREAM_URL: upstream.url,
          ...('urls' in server ? { REDIS_CLUSTER_URLS: server.urls.join(',') } : { REDIS_URL: server.url }),
        };
      };
      beforeAll(async () => {
        const kill = (app: RelayApp): Promise<void> => app.kill('SIGKILL');
        [a, b] = await startTogether<[RelayApp, RelayApp]>([
          [() => startRelayInstance(configuration()), kill],
          [() => startRelayInstance(configuration()), kill],
        ]);
        apps.push(a, b);
      }, 60_000);

      it(`streams a reply from A; a resume on B after Last-Event-ID joins to one whole read, one upstream call (${name})`, async () => {
        const before = upstream.requests.length;
        const reply = { events: 80, size: 30, delayMs: 5 };
        const started = postChat(a.url, reply);
        const half = await firstFrames(started, 30);
        const { status, streamId } = await started.head;
        expect(status).toBe(200);
        expect(half[half.length - 1]!.id).toBe('30');
        const rest = await allFrames(resume(b.url, streamId!, '30'));
        const whole = await allFrames(resume(b.url, streamId!));
        expect([...half, ...rest]).toEqual(whole);
        expect(whole.map((frame) => Number(frame.id))).toEqual(whole.map((_, i) => i + 1));
        const events = eventsOf(whole);
        expect(events[0]!.type).toBe('start');
        expect(events[events.length - 1]!.type).toBe('done');
        expect(textOf(events)).toBe(replyText(reply.events, reply.size));
        expect(upstream.requests.slice(before)).toHaveLength(1);
        expect(upstream.requests[before]!.finished).toBe(true);
      });

      it(`a stop from B cancels the upstream request; the first client sees the stream end as stopped (${name})`, async () => {
        const before = upstream.requests.length;
        const started = postChat(a.url, { events: 100_000, delayMs: 5 });
        const outcome = completionOf(started);
        const { streamId } = await started.head;
        await firstFrame(resume(b.url, streamId!)); // it is producing
        expect(await stopChat(b.url, streamId!)).toBe(202);
        const request = upstream.requests[before]!;
        await within(request.closed, 10_000, 'the upstream connection closed');
        expect(request.finished).toBe(false);
        const { error } = await within(outcome, 10_000, 'the first client saw the end');
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect((error as StreamClosedEarlyError).reason).toBe('stopped');
      });

      // Once per engine, through its first client: what it shows is how the store paces the producer.
      if (first)
        it(`drops a client that stops reading, goes on with the reply, and a resume on B gets all of it (${name})`, async () => {
          const before = upstream.requests.length;
          const logged = a.output().length;
          // Half as much again as the connection to the client holds when its reader stops, with the
          // cap: the relay's writes to it must block, and then it is dropped.
          const reply = { events: Math.ceil((1.5 * heldBytes + CAP) / 1000), size: 1000 };
          const client = nonReadingClient(a.url, reply);
          try {
            const { status, streamId } = await client.head;
            expect(status).toBe(200);
            // The relay says when it drops a client (SlowClientError, in the instance's log): the
            // reply then goes on without it, to the end.
            await within(untilLogged(a, 'dropped a slow client', logged), 30_000, 'A dropped the client that reads nothing');
            const request = await requestAfter(upstream, before);
            await within(request.closed, 30_000, 'the upstream reply ended');
            expect(request.finished).toBe(true);
            const cut = await within(client.readRest(), 30_000, 'the non-reading client read to its end');
            expect(cut.complete).toBe(false);
            expect(cut.text).not.toContain('event: done');
            const events = eventsOf(await allFrames(resume(b.url, streamId)));
            expect(events[events.length - 1]!.type).toBe('done');
            expect(textOf(events)).toBe(replyText(reply.events, reply.size));
            expect(upstream.requests.slice(before)).toHaveLength(1);
          } finally {
            client.destroy();
          }
        });

      // The last of a client's specs: A is the producer, and it is killed.
      it(`a producer killed mid-reply: a reader on B ends in producer-lost, with the start of the reply (${name})`, async () => {
        const producer = a;
        const started = postChat(producer.url, { events: 100_000, size: 20, delayMs: 5 });
        void started.frames$.subscribe({ error: () => undefined }); // the first client stays attached until the crash
        const { streamId } = await started.head;
        const reader = resume(b.url, streamId!);
        const outcome = completionOf(reader);
        await firstFrames(resume(b.url, streamId!), 10); // some of its text is stored
        await producer.kill('SIGKILL');
        const { values, error } = await within(outcome, 15_000, 'the reader ended');
        expect(values).toEqual([]);
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect((error as StreamClosedEarlyError).reason).toBe('producer-lost');
        const partial = (error as StreamClosedEarlyError).partial as CompletionSnapshot & { content: string };
        expect(partial.content.length).toBeGreaterThan(0);
        expect(replyText(2000, 20).startsWith(partial.content)).toBe(true);
      });
    });
  });
}
