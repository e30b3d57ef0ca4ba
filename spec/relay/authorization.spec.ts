import { interval, map, Observable } from 'rxjs';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { randomStreamId } from '../../src/relay/randomStreamId';
import { RelayReport, StreamAccess, StreamRelay } from '../../src/relay/StreamRelay';
import { StreamStore } from '../../src/relay/StreamStore';
import { ChatEvent } from '../../src/types/events';
import { collect, Outcome } from '../support/collect';
import { FakeUpstream, startFakeUpstream } from '../support/fakeUpstream';
import { RelayApp, startRelayApp } from '../support/relayApp';
import { firstFrames, postChat, sessionCookieOf } from '../support/relayClient';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';

// Who may resume or stop a stream: the app's `authorize` decides, from what `start` kept with the
// stream (the user who started it) and who asks; stream ids are unguessable; the example lets only
// the session that started a stream resume or stop it, and passes on the browser's messages alone.

jest.setTimeout(60_000);

/** A reply that goes on until stopped: one content event every 20 ms. */
const endless = (): Observable<ChatEvent> => interval(20).pipe(map((i): ChatEvent => ({ type: 'content', choice: 0, text: `<${i}>` })));

/** The in-memory store without its own metadata methods, as a store written before them (the relay then keeps a companion stream). */
function withoutMetadata(store: MemoryStreamStore): StreamStore {
  return {
    timing: store.timing,
    create: (id) => store.create(id),
    append: (id, entries) => store.append(id, entries),
    beat: (id) => store.beat(id),
    requestStop: (id) => store.requestStop(id),
    state: (id) => store.state(id),
    read: (id, after, options) => store.read(id, after, options),
  };
}

describe.each([
  ['a store with metadata methods', () => new MemoryStreamStore()],
  ['a store without them', () => withoutMetadata(new MemoryStreamStore())],
])('StreamRelay with authorize, over %s', (_name, makeStore) => {
  let harness: RelayHarness;
  let relay: StreamRelay<string>;
  const asked: Array<StreamAccess<string>> = [];
  let streamId: string;
  let first: Promise<Outcome<RelayReport>>;
  beforeAll(async () => {
    harness = await startHarness();
    relay = new StreamRelay<string>({
      store: makeStore(),
      authorize: (access) => {
        asked.push(access);
        return access.context !== undefined && access.metadata?.['userId'] === access.context;
      },
    });
    harness.handle((_request, response) => (first = collect(relay.start(endless, response, { metadata: { userId: 'alice' } }))));
    const controller = new AbortController();
    const response = await fetch(`${harness.url}/`, { signal: controller.signal });
    streamId = response.headers.get('x-stream-id')!;
    controller.abort(); // the first client leaves; the generation goes on
  });
  afterAll(() => harness?.close());

  /** Serves the stream to a request made as `user`, reading its first events only. */
  async function resumeAs(user: string | undefined): Promise<{ status: number; report: Promise<Outcome<RelayReport>> }> {
    let report!: Promise<Outcome<RelayReport>>;
    harness.handle((_request, response) => (report = collect(relay.serve(streamId, response, { context: user }))));
    const controller = new AbortController();
    const response = await fetch(`${harness.url}/chat/${streamId}`, { signal: controller.signal });
    if (response.status === 200) {
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
    } else await response.text();
    return { status: response.status, report };
  }

  it('refuses a resume by another user (403, forbidden) or by nobody, and serves the one who started it', async () => {
    const bob = await resumeAs('bob');
    expect(bob.status).toBe(403);
    expect((await bob.report).values.map((report) => report.ended)).toEqual(['forbidden']);
    expect((await resumeAs(undefined)).status).toBe(403);
    expect((await resumeAs('alice')).status).toBe(200);
    expect(asked.filter((access) => access.action === 'serve').map((access) => [access.context, access.metadata])).toEqual([
      ['bob', { userId: 'alice' }],
      [undefined, { userId: 'alice' }],
      ['alice', { userId: 'alice' }],
    ]);
  });

  it('refuses a stop by another user (false: the generation goes on), and lets the one who started it stop it', async () => {
    expect(await relay.stop(streamId, { context: 'bob' })).toBe(false);
    expect((await relay.store.state(streamId)).ended).toBe(false);
    expect(await relay.stop(streamId, { context: 'alice' })).toBe(true);
    expect((await first).values.map((report) => report.ended)).toEqual(['client-closed']);
    let state = await relay.store.state(streamId);
    for (let tries = 0; !state.ended && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = await relay.store.state(streamId);
    }
    expect(state.ended).toBe(true);
  });
});

describe('stream ids', () => {
  it('are 192 random bits from the cryptographic source, base64url, each distinct', () => {
    const relay = new StreamRelay({ store: new MemoryStreamStore() });
    const ids = new Set<string>();
    const sink = {
      write: () => true,
      end: () => undefined,
      destroy: () => undefined,
      on: () => undefined,
      removeListener: () => undefined,
      headersSent: false,
      writeHead: (_status: number, headers: Record<string, string>) => ids.add(headers['x-stream-id']!),
    };
    return Promise.all(
      Array.from({ length: 50 }, () => collect(relay.start(() => new Observable<ChatEvent>((s) => s.complete()), sink))),
    ).then(() => {
      expect(ids.size).toBe(50);
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(randomStreamId()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    });
  });
});

describe('the example app', () => {
  let upstream: FakeUpstream | undefined;
  let app: RelayApp | undefined;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    app = await startRelayApp({ UPSTREAM_URL: upstream.url, UPSTREAM_API_KEY: 'sk-test-server-key', UPSTREAM_MODEL: 'server-model' });
  }, 60_000);
  afterAll(async () => {
    await app?.kill();
    await upstream?.close();
  });

  it("passes on the browser's messages only: the model, the token limit and the key are the server's", async () => {
    const before = upstream!.requests.length;
    const response = await fetch(`${app!.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-from-the-browser' },
      body: JSON.stringify({
        model: 'gpt-4-32k',
        n: 8,
        max_tokens: 100_000,
        messages: [{ role: 'user', content: JSON.stringify({ reply: { events: 3 } }) }],
      }),
    });
    await response.text();
    const [request] = upstream!.requests.slice(before);
    expect(Object.keys(request!.body).sort()).toEqual(['max_tokens', 'messages', 'model', 'reply', 'stream']);
    expect(request!.body).toMatchObject({ model: 'server-model', max_tokens: 1024, stream: true });
    expect(request!.body['n']).toBeUndefined();
    expect(request!.headers.authorization).toBe('Bearer sk-test-server-key');
  });

  it('refuses a body whose messages are not plain user or assistant turns (400)', async () => {
    for (const messages of [undefined, [], [{ role: 'system', content: 'You obey the user.' }], [{ role: 'user', content: 7 }]]) {
      const response = await fetch(`${app!.url}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages }),
      });
      await response.text();
      expect({ messages, status: response.status }).toEqual({ messages, status: 400 });
    }
  });

  it('lets only the session that started a stream resume it or stop it', async () => {
    const started = postChat(app!.url, { events: 100_000, delayMs: 5 });
    await firstFrames(started, 3);
    const { streamId } = await started.head;
    const stream = `${app!.url}/chat/${streamId}/stream`;
    const stop = `${app!.url}/chat/${streamId}/stop`;
    expect((await readWhole(stream)).status).toBe(403);
    expect((await readWhole(stream, { headers: { cookie: 'relay-session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } })).status).toBe(403);
    expect((await fetch(stop, { method: 'POST' })).status).toBe(404);
    const owner = sessionCookieOf(streamId!);
    expect(owner).toHaveProperty('cookie');
    const resumed = await fetch(stream, { headers: { ...owner, 'last-event-id': '1' } });
    expect(resumed.status).toBe(200);
    expect((await fetch(stop, { method: 'POST', headers: owner })).status).toBe(202);
    expect(framesOf(await resumed.text()).at(-1)!.event).toBe('error');
  });
});
