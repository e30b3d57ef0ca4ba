import { from, Observable } from 'rxjs';
import { ClientBacklog } from '../../src/relay/ClientBacklog';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { sendSse, SentReport } from '../../src/relay/sendSse';
import { RelayReport, StreamRelay } from '../../src/relay/StreamRelay';
import { toStreamEntries } from '../../src/relay/toStreamEntries';
import { ChatEvent } from '../../src/types/events';
import { collect, Outcome } from '../support/collect';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';

// One event larger than a client's cap (a tool call whose arguments are 700 KB, against a cap of
// 256 KB): it is written whole when the socket has room, on the first read and on every resume; the
// cap bounds what waits behind it.

jest.setTimeout(30_000);

const CAP = 256 * 1024;
const HUGE = 'a'.repeat(700 * 1024);
const reply: ChatEvent[] = [
  { type: 'start', id: 'r1', model: 'm' },
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'write_file', arguments: `{"text":"${HUGE}` },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"}' },
  { type: 'done' },
];

let harness: RelayHarness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

/** The arguments the frames carry, joined. */
const argumentsOf = (text: string): string =>
  framesOf(text)
    .filter((frame) => frame.event === 'tool-call-delta')
    .map((frame) => (JSON.parse(frame.data) as { arguments: string }).arguments)
    .join('');

describe('an event larger than maxBufferedBytes', () => {
  it('ClientBacklog does not count the next frame against the cap, only what waits behind it', () => {
    const backlog = new ClientBacklog();
    backlog.push({ event: 'tool-call-delta', id: '1', data: HUGE });
    expect(backlog.bytes).toBeGreaterThan(CAP);
    expect(backlog.bytesBeyondNext).toBe(0);
    backlog.push({ event: 'content', id: '2', data: 'b'.repeat(1000) });
    expect(backlog.bytesBeyondNext).toBeGreaterThan(1000);
    expect(backlog.bytesBeyondNext).toBeLessThan(1100);
  });

  it('sendSse writes it whole to a client that reads, and reports the end', async () => {
    let sent!: Promise<Outcome<SentReport>>;
    harness.handle((_request, response) => {
      sent = collect(sendSse(from(reply).pipe(toStreamEntries()), response, { maxBufferedBytes: CAP }));
    });
    const { text } = await readWhole(`${harness.url}/`);
    expect(argumentsOf(text)).toBe(`{"text":"${HUGE}"}`);
    expect(await sent).toEqual({ values: [{ ended: 'complete', lastEventId: String(reply.length), merged: 0 }] });
  });

  it('StreamRelay sends it to the first client, and again to every client that resumes', async () => {
    const relay = new StreamRelay({ store: new MemoryStreamStore(), maxBufferedBytes: CAP });
    const reports: Array<Promise<Outcome<RelayReport>>> = [];
    harness.handle((request, response) => {
      const streamId = /^\/chat\/([^/]+)/.exec(request.url ?? '')?.[1];
      const source = (): Observable<ChatEvent> => from(reply);
      reports.push(
        collect(
          streamId === undefined
            ? relay.start(source, response, { streamId: 'large-1' })
            : relay.serve(streamId, response, { lastEventId: String(request.headers['last-event-id'] ?? '') }),
        ),
      );
    });
    const first = await readWhole(`${harness.url}/`);
    expect(argumentsOf(first.text)).toBe(`{"text":"${HUGE}"}`);
    const resumed = await readWhole(`${harness.url}/chat/large-1`);
    expect(resumed.text).toBe(first.text);
    const afterStart = await readWhole(`${harness.url}/chat/large-1`, { headers: { 'last-event-id': '1' } });
    expect(argumentsOf(afterStart.text)).toBe(`{"text":"${HUGE}"}`);
    const outcomes = await Promise.all(reports);
    expect(outcomes.map((outcome) => [outcome.error, outcome.values.map((report) => report.ended)])).toEqual([
      [undefined, ['complete']],
      [undefined, ['complete']],
      [undefined, ['complete']],
    ]);
  });
});
