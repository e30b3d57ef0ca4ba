import { SseFrame } from '../../src/frames/SseParser';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { Completion, CompletionSnapshot } from '../../src/types/events';
import { eventText, FakeUpstream, startFakeUpstream, UpstreamRequest } from '../support/fakeUpstream';
import { RedisServer, startRedis } from '../support/redisServer';
import { RelayApp, startRelayApp } from '../support/relayApp';
import { startTogether } from '../support/startTogether';
import { SseReading, allFrames, completionOf, eventsOf, firstFrame, firstFrames, postChat, resume, stopChat } from '../support/relayClient';

// examples/relay end to end, over HTTP: instances in processes of their own, one real Redis, one
// fake upstream that counts its requests. Heartbeats are fast here (renewed every 200 ms, dead
// after 600 ms) so that a dead producer is noticed within about a second.

jest.setTimeout(60_000);

const HEARTBEAT = { STORE_HEARTBEAT_INTERVAL: '200', STORE_HEARTBEAT_TIMEOUT: '600' };

let redis: RedisServer;
let upstream: FakeUpstream;
let a: RelayApp;
let b: RelayApp;
let single: RelayApp;
const apps: RelayApp[] = [];

beforeAll(async () => {
  // Started side by side, never lost: a failed start stops the others (see startTogether).
  [redis, upstream] = await startTogether<[RedisServer, FakeUpstream]>([
    [() => startRedis(), (server) => server.stop()],
    [() => startFakeUpstream(), (fake) => fake.close()],
  ]);
  const shared = { ...HEARTBEAT, UPSTREAM_URL: upstream.url, REDIS_URL: redis.url };
  const kill = (app: RelayApp): Promise<void> => app.kill();
  [a, b, single] = await startTogether<[RelayApp, RelayApp, RelayApp]>([
    [() => startRelayApp(shared), kill],
    [() => startRelayApp(shared), kill],
    [() => startRelayApp({ ...HEARTBEAT, UPSTREAM_URL: upstream.url }), kill],
  ]);
  apps.push(a, b, single);
}, 90_000);
afterAll(async () => {
  await Promise.all(apps.map((app) => app.kill()));
  await Promise.all([upstream?.close(), redis?.stop()]);
});

/** The upstream requests made since `before` requests had been. */
const requestsSince = (before: number): UpstreamRequest[] => upstream.requests.slice(before);

/** Ids must run 1, 2, 3, ... with none missing and none twice. */
const ids = (frames: readonly SseFrame[]): number[] => frames.map((frame) => Number(frame.id));

/** A response's status and how many events it carried. */
async function statusOf(reading: SseReading): Promise<{ status: number; frames: number }> {
  const frames = await allFrames(reading);
  return { status: (await reading.head).status, frames: frames.length };
}

/** Resolves when `promise` does, or rejects after `ms` saying what did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

describe.each([
  ['two instances over one Redis: read from A, resume on B', () => [a, b] as const],
  ['one instance over the in-memory store: read, resume on it', () => [single, single] as const],
])('%s', (_name, instances) => {
  it('the events after Last-Event-ID joined to the first equal one uninterrupted read, each once, one upstream request', async () => {
    const [first, second] = instances();
    const before = upstream.requests.length;
    const reply = { events: 120, size: 30, delayMs: 5 };
    const started = postChat(first.url, reply);
    const half = await firstFrames(started, 40);
    const { streamId } = await started.head;
    expect(typeof streamId).toBe('string');
    const lastEventId = half[half.length - 1]!.id;
    expect(lastEventId).toBe('40');

    const rest = await allFrames(resume(second.url, streamId!, lastEventId));
    const whole = await allFrames(resume(second.url, streamId!));
    const joined = [...half, ...rest];
    expect(ids(joined)).toEqual(whole.map((_, i) => i + 1));
    expect(joined).toEqual(whole);
    const events = eventsOf(whole);
    expect(events[0]!.type).toBe('start');
    expect(events[events.length - 1]!.type).toBe('done');
    const text = events.flatMap((event) => (event.type === 'content' ? [event.text] : [])).join('');
    expect(text).toBe(Array.from({ length: reply.events }, (_, i) => eventText(i, reply.size)).join(''));
    // The first client left after 40 events; the generation went on without it, once.
    expect(requestsSince(before)).toHaveLength(1);
    expect(requestsSince(before)[0]!.finished).toBe(true);
  });

  it('answers 204 for an unknown stream, and for an ended one whose events the client has', async () => {
    const [first, second] = instances();
    const whole = await allFrames(postChat(first.url, { events: 3 }));
    expect(whole.length).toBeGreaterThan(3);
    const again = postChat(first.url, { events: 3 });
    await allFrames(again);
    const { streamId } = await again.head;
    expect(await statusOf(resume(second.url, 'no-such-stream'))).toEqual({ status: 204, frames: 0 });
    // The client may read the last event before the producer's end entry reaches Redis: B then answers
    // 200 and ends with nothing more to send. Either way, not one event is sent twice.
    const caughtUp = await statusOf(resume(second.url, streamId!, whole[whole.length - 1]!.id));
    expect([
      { status: 204, frames: 0 },
      { status: 200, frames: 0 },
    ]).toContainEqual(caughtUp);
    expect(await statusOf(resume(second.url, streamId!, '2'))).toEqual({ status: 200, frames: whole.length - 2 });
  });

  it('a stop from the other instance cancels the upstream request; the client sees the stream end as stopped', async () => {
    const [first, second] = instances();
    const before = upstream.requests.length;
    const started = postChat(first.url, { events: 100_000, delayMs: 5 });
    const outcome = completionOf(started);
    const { streamId } = await started.head;
    await firstFrame(resume(second.url, streamId!)); // it is producing
    expect(await stopChat(second.url, streamId!)).toBe(202);
    const [request] = requestsSince(before);
    await within(request!.closed, 10_000, 'the upstream connection closed');
    expect(request!.finished).toBe(false);
    const { error } = await within(outcome, 10_000, 'the first client saw the end');
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as StreamClosedEarlyError).reason).toBe('stopped');
    // Once its end is stored (the client may see it a moment before), a second stop finds no live stream.
    const stopAgain = (): Promise<number> => stopChat(second.url, streamId!);
    let status = await stopAgain();
    for (let tries = 0; status !== 404 && tries < 50; tries++)
      status = await new Promise((resolve) => setTimeout(resolve, 100)).then(stopAgain);
    expect(status).toBe(404);
  });

  it('serves the AI SDK UI message stream too: a resume after `n:k` joins to one uninterrupted read', async () => {
    const [first, second] = instances();
    const started = postChat(first.url, { events: 30, delayMs: 5 }, '?format=ui-message-stream');
    const half = await firstFrames(started, 12);
    const { streamId } = await started.head;
    const lastEventId = half[half.length - 1]!.id;
    expect(lastEventId).toMatch(/^\d+:\d+$/);
    const rest = await allFrames(resume(second.url, streamId!, lastEventId, '?format=ui-message-stream'));
    const whole = await allFrames(resume(second.url, streamId!, undefined, '?format=ui-message-stream'));
    expect([...half, ...rest]).toEqual(whole);
    expect(whole[whole.length - 1]!.data).toBe('[DONE]');
  });
});

describe('a producer killed mid-reply', () => {
  it('a reader on another instance ends in StreamClosedEarlyError (producer-lost) within the heartbeat bound, with its text', async () => {
    const producer = await startRelayApp({ ...HEARTBEAT, UPSTREAM_URL: upstream.url, REDIS_URL: redis.url });
    apps.push(producer);
    const started = postChat(producer.url, { events: 100_000, size: 20, delayMs: 5 });
    // The first client stays attached until the crash; the kill waits until it has had some of the reply
    // (so that some is in the store), not for a fixed time: a loaded machine may take longer to begin.
    let framesSeen = 0;
    let replyFlowing: () => void = () => undefined;
    const flowing = new Promise<void>((resolve) => (replyFlowing = resolve));
    void started.frames$.subscribe({ next: () => void (++framesSeen === 20 && replyFlowing()), error: () => undefined });
    const { streamId } = await started.head;
    const reader = resume(b.url, streamId!);
    const outcome = completionOf(reader);
    await Promise.all([within(flowing, 15_000, 'the first client had 20 frames'), new Promise((resolve) => setTimeout(resolve, 500))]);
    await producer.kill('SIGKILL');
    const killedAt = performance.now();
    // The bound: the heartbeat's timeout (600 ms) plus one check interval (200 ms), with room for a loaded machine.
    const { values, error } = await within(outcome, 15_000, 'the reader ended');
    const noticedAfter = performance.now() - killedAt;
    console.log(`a killed producer was noticed by the reader on the other instance ${Math.round(noticedAfter)} ms after the kill`);
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as StreamClosedEarlyError).reason).toBe('producer-lost');
    const partial = (error as StreamClosedEarlyError).partial as CompletionSnapshot & { content: string };
    expect(partial.content.length).toBeGreaterThan(0);
    // What had arrived is the start of the reply, whole events of it.
    const full = Array.from({ length: 2000 }, (_, i) => eventText(i, 20)).join('');
    expect(full.startsWith(partial.content)).toBe(true);
    expect(partial.content.length % 20).toBe(0);
  });
});

describe('Redis restarted mid-stream', () => {
  it('the producing client and a reader on the other instance both end with a typed error, never hang', async () => {
    const started = postChat(a.url, { events: 100_000, delayMs: 5 });
    const first = completionOf(started);
    const { streamId } = await started.head;
    const reader = resume(b.url, streamId!);
    const second = completionOf(reader);
    await firstFrame(resume(b.url, streamId!));
    await redis.restart();
    const outcomes = await within(Promise.all([first, second]), 20_000, 'both clients ended');
    for (const { error } of outcomes) {
      expect(String(error)).toMatch(/^StreamClosedEarlyError/);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as StreamClosedEarlyError).reason).toBe('store');
    }
    // Nothing of a completion passed for a whole one.
    expect(outcomes.every(({ values }) => (values as Completion[]).length === 0)).toBe(true);
  });
});
