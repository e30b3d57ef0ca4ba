import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { RelayReport, StreamRelay } from '../../src/relay/StreamRelay';
import { collect, Outcome } from '../support/collect';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';
import { contentEntry, endEntry } from '../support/storeEntries';

// A resume reads the store in batches (256 entries at once): a batch of events that together are
// more than the client's cap, read by a client that keeps up, is sent as the socket takes it. The
// reading pauses between two entries of a batch as it does between batches, so the cap counts what
// waits beyond the socket, never a whole batch handed over at once.

jest.setTimeout(30_000);

const CAP = 64 * 1024;
const EVENTS = 300;
/** About 1 KB of text per event: 300 of them are about 5 times the cap, a batch about 4 times. */
const textOf = (i: number): string => `<${i}>${'x'.repeat(1000)}`;

let harness: RelayHarness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

describe('a resume whose first batch is larger than the cap', () => {
  it('reaches a client that reads: every event once, no drop', async () => {
    const store = new MemoryStreamStore();
    await store.create('long');
    await store.append('long', [...Array.from({ length: EVENTS }, (_, i) => contentEntry(i + 1, textOf(i))), endEntry(EVENTS + 1)]);
    const relay = new StreamRelay({ store, maxBufferedBytes: CAP });
    const reports: Array<Promise<Outcome<RelayReport>>> = [];
    harness.handle((_request, response) => reports.push(collect(relay.serve('long', response))));
    const { status, text } = await readWhole(`${harness.url}/`);
    expect(status).toBe(200);
    const contents = framesOf(text).filter((frame) => frame.event === 'content');
    expect(contents.map((frame) => (JSON.parse(frame.data) as { text: string }).text)).toEqual(
      Array.from({ length: EVENTS }, (_, i) => textOf(i)),
    );
    const [outcome] = await Promise.all(reports);
    expect(outcome!.error).toBeUndefined();
    expect(outcome!.values.map((report) => report.ended)).toEqual(['complete']);
  });
});
