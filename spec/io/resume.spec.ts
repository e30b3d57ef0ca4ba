import { readFileSync } from 'fs';
import { join } from 'path';
import { Observable, tap } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { Completion } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { fromResponse } from '../../src/io/fromResponse';
import { ReplayServer, ReplayedRequest, startReplayServer } from '../../src/cli/replayServer';
import { resumeFrames } from '../../src/io/resumeFrames';
import { sseFrames } from '../../src/frames/sseFrames';
import { collect } from '../support/collect';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const expectedCompletion = (path: string): Completion =>
  (
    JSON.parse(readFileSync(join(__dirname, '..', '..', 'marbles', path.replace(/\.sse$/, '.expected.json')), 'utf8')) as {
      completion: Completion;
    }
  ).completion;

/** The connection of the README recipe: the last event id travels in a `Last-Event-ID` header. */
const connectTo =
  (url: string) =>
  (lastEventId: string | undefined): Observable<SseFrame> =>
    fromFetch(url, {
      headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
      selector: (response) => fromResponse(response),
    }).pipe(decodeUtf8(), sseFrames());

/** The requests the server saw for `path` with exactly `query`. */
const requestsFor = (path: string, query: string): ReplayedRequest[] =>
  server.requests.filter((request) => request.path === path && request.query === query);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the replay server with ids=1', () => {
  // typed-events.sse: a keep-alive comment block (LF), nine events with CRLF line ends (text, two
  // call starts, three deltas, an end, a delta, an end), and a last `event: done` block with LF.
  const body = async (query: string, headers: Record<string, string> = {}): Promise<string> =>
    (await fetch(`${server.url}/dialects/typed-events.sse?${query}`, { headers })).text();

  it('numbers each event that has data, leaves comment blocks unnumbered, and starts with the retry block', async () => {
    const text = await body('ids=1&retry=250');
    expect(
      text.startsWith(
        'retry: 250\n\n: keep-alive\n\nid: 1\ndata: {"type": "text", "delta": "Café ☕ "}\r\n\r\nid: 2\ndata: {"type": "tool_call_start"',
      ),
    ).toBe(true);
    expect(text.endsWith('\r\n\r\nid: 10\nevent: done\ndata: [DONE]\n\n')).toBe(true);
    expect(text.match(/^id: /gm)).toHaveLength(10);
  });

  it('sends only the events after Last-Event-ID', async () => {
    expect(await body('ids=1', { 'last-event-id': '8' })).toBe(
      'id: 9\ndata: {"type": "tool_call_end", "index": 1}\r\n\r\nid: 10\nevent: done\ndata: [DONE]\n\n',
    );
    expect(await body('ids=1', { 'last-event-id': '10' })).toBe('');
  });

  it('without ids=1, sends the recording as it is and ignores Last-Event-ID', async () => {
    const recording = readFileSync(join(__dirname, '..', '..', 'marbles', 'dialects', 'typed-events.sse'), 'utf8');
    expect(await body('chunk=64', { 'last-event-id': '9' })).toBe(recording);
  });
});

describe('resumeFrames over real HTTP (the replay server with ids)', () => {
  // Each recording is cut mid-way, inside an event, on its first request only. The numbers were
  // read off the body as served with `retry=5&ids=1` (a 10-byte `retry: 5` block, then `id: <n>`
  // before each event): byte 2000 of tool-calls-interleaved lies inside event 6 (bytes 1918-2287),
  // so the client has whole events 1 to 5; byte 1900 of anthropic-messages inside event 12
  // (1791-1920); byte 5700 of openai-responses inside event 16 (5578-5880).
  // The resumed body is the `retry` block (10 bytes) and the events from the next one on: for
  // tool-calls-interleaved, 10 + (3800 - 1918) = 1892 bytes of the 3800 the whole body has.
  it.each([
    ['/openai/tool-calls-interleaved.sse', 2000, '5', 1892],
    ['/dialects/anthropic-messages.sse', 1900, '11', 10 + (3724 - 1791)],
    ['/dialects/openai-responses.sse', 5700, '15', 10 + (11452 - 5578)],
  ])('%s dropped at byte %d is resumed from id %s and gives the expected Completion', async (path, dropAt, lastId, resumedLength) => {
    const query = `ids=1&retry=5&dropOnce=${dropAt}`;
    // delayMs of a minute: the test can only finish in time if the server's `retry: 5` is used.
    const outcome = await collect(
      resumeFrames(connectTo(`${server.url}${path}?${query}`), { delayMs: 60_000 }).pipe(assembleChunks(), finalizeCompletion()),
    );
    expect(outcome).toEqual({ values: [expectedCompletion(path)] });
    const [first, second, ...more] = requestsFor(path, query);
    expect(more).toEqual([]);
    expect(first?.headers['last-event-id']).toBeUndefined();
    expect(first?.bytesSent).toBe(dropAt);
    expect(first?.finished).toBe(false);
    expect(second?.headers['last-event-id']).toBe(lastId);
    expect(second?.bytesSent).toBe(resumedLength); // only what was missing was sent again
    expect(second?.finished).toBe(true);
  });

  it('a client that does not send the id (the server replays from the start) still sees each frame once', async () => {
    const path = '/openai/tool-calls-interleaved.sse';
    const query = 'ids=1&retry=5&dropOnce=2000&replay';
    const url = `${server.url}${path}?${query}`;
    const frames: SseFrame[] = [];
    const outcome = await collect(
      resumeFrames(() => connectTo(url)(undefined), { delayMs: 60_000 }).pipe(
        tap((frame) => frames.push(frame)),
        assembleChunks(),
        finalizeCompletion(),
      ),
    );
    expect(outcome).toEqual({ values: [expectedCompletion(path)] });
    expect(frames.map((f) => f.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    const requests = requestsFor(path, query);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.headers['last-event-id']).toBeUndefined();
  });

  it('a connection that drops every 800 bytes still delivers the whole reply, one reconnection per drop', async () => {
    // text.sse as served: events of 320 to 510 bytes, so each connection brings one or two new
    // events before its cut, and every reconnection makes progress (the count of attempts restarts).
    // Whole events per connection, read off the body: 1-2, 3-4, 5-6, 7-8, 9 (event 10 is 509
    // bytes), then 10-11, which is under 800 bytes and arrives whole.
    const path = '/openai/text.sse';
    const query = 'ids=1&retry=1&drop=800';
    const outcome = await collect(
      resumeFrames(connectTo(`${server.url}${path}?${query}`), { delayMs: 60_000 }).pipe(assembleChunks(), finalizeCompletion()),
    );
    expect(outcome).toEqual({ values: [expectedCompletion(path)] });
    expect(requestsFor(path, query).map((request) => request.headers['last-event-id'])).toEqual([undefined, '2', '4', '6', '8', '9']);
  });

  it('gives up after maxAttempts reconnections that bring nothing new, with the transport error', async () => {
    // Event 1 (343 bytes) fits under 360; on every reconnection event 2 (425 bytes) never does.
    const path = '/openai/tool-calls-interleaved.sse';
    const query = 'ids=1&retry=1&drop=360';
    const outcome = await collect(resumeFrames(connectTo(`${server.url}${path}?${query}`), { delayMs: 60_000, maxAttempts: 2 }));
    expect(outcome.values.map((f) => f.id)).toEqual(['1']);
    expect(outcome.error).toBeDefined();
    // The first failure, typed, with the reset as fetch reported it as its cause.
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((outcome.error as StreamClosedEarlyError).cause).toHaveProperty('message', 'terminated');
    expect(requestsFor(path, query).map((request) => request.headers['last-event-id'])).toEqual([undefined, '1', '1']);
  });

  it('never reconnects to a server that sets no ids: one request, and the error reaches the subscriber', async () => {
    const path = '/openai/tool-calls-interleaved.sse';
    const query = 'dropOnce=2000&no-ids';
    const outcome = await collect(resumeFrames(connectTo(`${server.url}${path}?${query}`), { delayMs: 10 }));
    // The frames that arrived, then the cut, typed, with the platform's error as its cause.
    expect(outcome.values.length).toBeGreaterThan(0);
    expect(outcome.values.every((f) => f.id === '')).toBe(true);
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((outcome.error as StreamClosedEarlyError).cause).toHaveProperty('message', 'terminated');
    await sleep(100); // ten times the reconnection delay: a second request would have come by now
    expect(requestsFor(path, query)).toHaveLength(1);
  });

  it('the same server without resumeFrames: the cut stream fails, and the second request of a dropOnce URL is whole', async () => {
    // The control for the tests above: dropOnce cuts the first request only.
    const path = '/openai/text.sse';
    const query = 'ids=1&dropOnce=1000&control';
    const first = await collect(connectTo(`${server.url}${path}?${query}`)(undefined).pipe(assembleChunks(), finalizeCompletion()));
    expect(first.error).toBeDefined();
    const second = await collect(connectTo(`${server.url}${path}?${query}`)(undefined).pipe(assembleChunks(), finalizeCompletion()));
    expect(second).toEqual({ values: [expectedCompletion(path)] });
  });
});
