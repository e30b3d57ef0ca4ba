import { from } from 'rxjs';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { RelayReport, StreamRelay } from '../../src/relay/StreamRelay';
import { ChatEvent } from '../../src/types/events';
import { collect, Outcome } from '../support/collect';
import { FakeUpstream, startFakeUpstream } from '../support/fakeUpstream';
import { RelayApp, startRelayApp } from '../support/relayApp';
import { allFrames, postChat, sessionCookieOf } from '../support/relayClient';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';

// Every request is answered, quickly: a malformed Last-Event-ID (a header that is no id this relay
// wrote, a query parameter given twice, which Express 5 makes an array) is a 400, never a response
// left open. `readWhole` fails a request that got no whole answer within 10 s.

jest.setTimeout(60_000);

const reply: ChatEvent[] = [{ type: 'start', id: 'r1', model: 'm' }, { type: 'content', choice: 0, text: 'Hi' }, { type: 'done' }];

describe('StreamRelay.serve', () => {
  let harness: RelayHarness;
  const relay = new StreamRelay({ store: new MemoryStreamStore() });
  beforeAll(async () => {
    harness = await startHarness();
    harness.handle((_request, response) => void collect(relay.start(() => from(reply), response, { streamId: 'ids-1' })));
    await readWhole(`${harness.url}/`);
  });
  afterAll(() => harness?.close());

  /** Serves stream ids-1 with `lastEventId` as given, answering the report. */
  async function serveWith(lastEventId: unknown): Promise<{ status: number; text: string; outcome: Outcome<RelayReport> }> {
    let served!: Promise<Outcome<RelayReport>>;
    harness.handle((_request, response) => (served = collect(relay.serve('ids-1', response, { lastEventId }))));
    const { status, text } = await readWhole(`${harness.url}/chat/ids-1`);
    return { status, text, outcome: await served };
  }

  it.each([
    ['an array (a query parameter given twice)', ['1', '2']],
    ['a word', 'abc'],
    ['a negative number', '-1'],
    ['an object (a query parameter with brackets)', { a: '1' }],
  ])('answers 400 for %s and reports bad-request', async (_what, lastEventId) => {
    const { status, outcome } = await serveWith(lastEventId);
    expect(status).toBe(400);
    expect(outcome.error).toBeUndefined();
    expect(outcome.values.map((report) => report.ended)).toEqual(['bad-request']);
  });

  it('serves the whole stream without an id, or with an empty one, and the rest after a good one', async () => {
    for (const lastEventId of [undefined, '', ' ']) {
      const { status, text } = await serveWith(lastEventId);
      expect({ lastEventId, status, events: framesOf(text).length }).toEqual({ lastEventId, status: 200, events: reply.length });
    }
    const { status, text } = await serveWith('1');
    expect({ status, events: framesOf(text).map((frame) => frame.id) }).toEqual({ status: 200, events: ['2', '3'] });
  });
});

describe('the example app', () => {
  let upstream: FakeUpstream | undefined;
  let app: RelayApp | undefined;
  let streamId: string;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    app = await startRelayApp({ UPSTREAM_URL: upstream.url });
    const started = postChat(app.url, { events: 5 });
    await allFrames(started);
    streamId = (await started.head).streamId!;
  }, 60_000);
  afterAll(async () => {
    await app?.kill();
    await upstream?.close();
  });

  const get = (query: string, headers: Record<string, string> = {}) =>
    readWhole(`${app!.url}/chat/${streamId}/stream${query}`, { headers: { ...sessionCookieOf(streamId), ...headers } });

  it('answers 400 for ?lastEventId given twice (an array), and for a malformed header or query', async () => {
    expect((await get('?lastEventId=1&lastEventId=2')).status).toBe(400);
    expect((await get('', { 'last-event-id': 'abc' })).status).toBe(400);
    expect((await get('?lastEventId=abc')).status).toBe(400);
  });

  it('still serves a good Last-Event-ID, in the header or the query', async () => {
    const byHeader = await get('', { 'last-event-id': '2' });
    const byQuery = await get('?lastEventId=2');
    expect(byHeader.status).toBe(200);
    expect(framesOf(byHeader.text)[0]!.id).toBe('3');
    expect(byQuery.text).toBe(byHeader.text);
  });
});
