import { from, Observable } from 'rxjs';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import Redis from 'ioredis';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { RedisStreamStore } from '../../src/relay/RedisStreamStore';
import { StreamRelay } from '../../src/relay/StreamRelay';
import { StreamStore } from '../../src/relay/StreamStore';
import { ChatEvent } from '../../src/types/events';
import { collect } from '../support/collect';
import { RedisServer, startRedis } from '../support/redisServer';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';

// A UI message stream resume near the end of a long reply reads from near where the client is, not
// the whole stream from its first entry: counted as the entries the store hands the relay, through a
// store that wraps the in-memory one. Each resume joined to what the client had is the uninterrupted
// stream.

jest.setTimeout(60_000);

/** A long reply: reasoning, text, a tool call streamed in fragments, more text. About 5000 events. */
function longReply(): Observable<ChatEvent> {
  const events: ChatEvent[] = [{ type: 'start', id: 'r1', model: 'm' }];
  for (let i = 0; i < 300; i++) events.push({ type: 'reasoning', choice: 0, text: `r${i} ` });
  for (let i = 0; i < 2000; i++) events.push({ type: 'content', choice: 0, text: `a${i} ` });
  events.push({ type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'search', arguments: '{"q":"' });
  for (let i = 0; i < 20; i++) events.push({ type: 'tool-call-delta', choice: 0, index: 0, arguments: `w${i} ` });
  events.push({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '"}' });
  for (let i = 0; i < 2680; i++) events.push({ type: 'content', choice: 0, text: `b${i} ` });
  events.push({ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }, { type: 'done' });
  return from(events).pipe(groupToolCallsByIndex());
}

/** A store, counting the entries of stream `counted` it hands out. */
function countingStore(inner: StreamStore, counted: () => string): StreamStore & { entriesRead: number } {
  const store = {
    entriesRead: 0,
    timing: inner.timing,
    create: (id: string) => inner.create(id),
    append: (id: string, entries: Parameters<StreamStore['append']>[1]) => inner.append(id, entries),
    beat: (id: string) => inner.beat(id),
    requestStop: (id: string) => inner.requestStop(id),
    state: (id: string) => inner.state(id),
    read: async (id: string, after: number, options: Parameters<StreamStore['read']>[2]) => {
      const entries = await inner.read(id, after, options);
      if (id === counted()) store.entriesRead += entries.length;
      return entries;
    },
  };
  return store;
}

/** A delta chunk's part and text: consecutive ones of a part are one text however a sink merged them. */
function deltaOf(chunk: Record<string, unknown>): { part: string; text: string } | undefined {
  if (chunk['type'] === 'text-delta' || chunk['type'] === 'reasoning-delta')
    return { part: `${String(chunk['id'])}`, text: String(chunk['delta']) };
  if (chunk['type'] === 'tool-input-delta') return { part: `${String(chunk['toolCallId'])}`, text: String(chunk['inputTextDelta']) };
  return undefined;
}

/** The chunks a client gets, with the deltas of a part that follow each other joined into one. */
function normalized(frames: ReadonlyArray<{ data: string }>): unknown[] {
  const out: Array<Record<string, unknown>> = [];
  for (const { data } of frames) {
    const chunk = data === '[DONE]' ? { done: true } : (JSON.parse(data) as Record<string, unknown>);
    const delta = deltaOf(chunk);
    const last = out.at(-1);
    const lastDelta = last === undefined ? undefined : deltaOf(last);
    if (delta !== undefined && lastDelta !== undefined && lastDelta.part === delta.part && last!['type'] === chunk['type']) {
      const field = chunk['type'] === 'tool-input-delta' ? 'inputTextDelta' : 'delta';
      last![field] = lastDelta.text + delta.text;
    } else out.push({ ...chunk });
  }
  return out;
}

/** The index of the last frame written for `entry`. */
function lastIndexOf(frames: ReadonlyArray<{ id: string }>, entry: number): number {
  let found = -1;
  frames.forEach((frame, i) => {
    if (frame.id.startsWith(`${entry}:`)) found = i;
  });
  return found;
}

let harness: RelayHarness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

let redis: RedisServer | undefined;
let redisClient: Redis | undefined;
let redisBlocking: Redis | undefined;
afterAll(async () => {
  await Promise.all([redisClient?.quit(), redisBlocking?.quit()]);
  await redis?.stop();
});

describe.each([
  ['the in-memory store', async (): Promise<StreamStore> => new MemoryStreamStore()],
  [
    'a RedisStreamStore (over ioredis)',
    async (): Promise<StreamStore> => {
      redis = await startRedis();
      redisClient = new Redis(redis.url);
      redisBlocking = redisClient.duplicate();
      return new RedisStreamStore({ client: redisClient, blockingClient: redisBlocking });
    },
  ],
])('a ui-message-stream resume of a long reply, over %s', (_name, makeStore) => {
  it('reads from near the position, and joins to the uninterrupted stream, wherever the client stopped', async () => {
    const store = countingStore(await makeStore(), () => 'long-1');
    const relay = new StreamRelay({ store });
    harness.handle((request, response) => {
      const streamId = /^\/chat\/([^/]+)/.exec(request.url ?? '')?.[1];
      const lastEventId = request.headers['last-event-id'];
      void collect(
        streamId === undefined
          ? relay.start(longReply, response, { streamId: 'long-1', format: 'ui-message-stream' })
          : relay.serve(streamId, response, { format: 'ui-message-stream', lastEventId }),
      );
    });
    const first = framesOf((await readWhole(`${harness.url}/`)).text);
    // The uninterrupted stream, from the store (a reader's frames; the first client's may be merged otherwise).
    const whole = framesOf((await readWhole(`${harness.url}/chat/long-1`)).text);
    expect(normalized(whole)).toEqual(normalized(first));
    const lastEntry = (await store.state('long-1')).lastId;
    expect(lastEntry).toBeGreaterThan(5000);
    expect(whole.at(-1)!.data).toBe('[DONE]');

    // Near the end, in the middle, inside the tool call, at entry boundaries, in the first entries.
    const cut = (id: string): number => whole.findIndex((frame) => frame.id === id);
    const positions = [whole.length - 20, whole.length - 2, Math.floor(whole.length / 2), 10, 3];
    positions.push(whole.findIndex((frame) => frame.data.includes('"w10 "')));
    for (const entry of [256, 257, 512, 2305, 4096]) positions.push(cut(`${entry}:0`), lastIndexOf(whole, entry));
    const reads: Array<{ entry: number; read: number }> = [];
    for (const at of positions) {
      expect(at).toBeGreaterThanOrEqual(0);
      const had = whole.slice(0, at + 1);
      const lastEventId = had.at(-1)!.id;
      store.entriesRead = 0;
      const rest = framesOf((await readWhole(`${harness.url}/chat/long-1`, { headers: { 'last-event-id': lastEventId } })).text);
      expect({ lastEventId, joined: normalized([...had, ...rest]) }).toEqual({ lastEventId, joined: normalized(whole) });
      const entry = Number(lastEventId.split(':')[0]);
      reads.push({ entry, read: store.entriesRead });
      // What is read: at most one stretch between checkpoints before the position, and what follows it.
      const behind = store.entriesRead - (lastEntry - entry);
      expect({ lastEventId, behind: behind >= 0 && behind <= 258 }).toEqual({ lastEventId, behind: true });
    }
    console.log(`${_name}: entries read by ui-message-stream resumes of a ${lastEntry}-entry stream: ${JSON.stringify(reads)}`);
  });
});
