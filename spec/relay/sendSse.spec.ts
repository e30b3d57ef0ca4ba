import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Observable, Subject, finalize, from, interval, map, take } from 'rxjs';
import { Demand } from '../../src/io/Demand';
import { SseParser, SseFrame } from '../../src/frames/SseParser';
import { StreamEntry } from '../../src/relay/streamEntries';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { SlowClientError } from '../../src/relay/SlowClientError';
import { ChatEvent } from '../../src/types/events';
import { SendSseOptions, SentReport, sendSse } from '../../src/relay/sendSse';
import { toStreamEntries } from '../../src/relay/toStreamEntries';
import { collect, Outcome } from '../support/collect';

// The sink over real HTTP on 127.0.0.1: a client that reads, one that is slow, one that reads
// nothing, one that leaves; what it writes is read back by the library's own SSE parser.

jest.setTimeout(30_000);

let server: Server;
let url: string;
/** What the next request is answered with. */
let handler: (response: ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = createServer((_req, res) => handler(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

/** Serves `entries$` with `options` to the next request; answers the sink's outcome. */
function serveNext(entries$: Observable<StreamEntry>, options: SendSseOptions = {}): Promise<Outcome<SentReport>> {
  return new Promise((resolve) => {
    handler = (response) => resolve(collect(sendSse(entries$, response, options)));
  });
}

/** A client: its response, paused until `read()` is called. */
function connect(): Promise<{ response: IncomingMessage; read(): Promise<string>; close(): void }> {
  return new Promise((resolve) => {
    const req = request(url, (response) => {
      response.pause();
      let text = '';
      resolve({
        response,
        read: () =>
          new Promise((done) => {
            response.setEncoding('utf8');
            response.on('data', (piece: string) => (text += piece));
            response.on('end', () => done(text));
            response.on('close', () => done(text));
            response.resume();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

function parse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = new SseParser((frame) => frames.push(frame));
  parser.push(text);
  return frames;
}

const content = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('sendSse over HTTP', () => {
  it('sends every event with its id, as toMessageEvents names them, and reports the end', async () => {
    const events: ChatEvent[] = [{ type: 'start', id: 'r1', model: 'm' }, content('Hel'), content('lo'), { type: 'done' }];
    const outcome = serveNext(from(events).pipe(toStreamEntries()));
    const client = await connect();
    expect(client.response.headers['content-type']).toBe('text/event-stream');
    const frames = parse(await client.read());
    expect(frames.map((frame) => [frame.id, frame.event, JSON.parse(frame.data) as unknown])).toEqual(
      events.map((event, i) => [String(i + 1), event.type, event]),
    );
    expect(await outcome).toEqual({ values: [{ ended: 'complete', lastEventId: '4', merged: 0 }] });
  });

  it('while the client does not read, merges the text deltas that wait; nothing is lost, the last id kept', async () => {
    const source = new Subject<ChatEvent>();
    const big = 'x'.repeat(64 * 1024);
    const outcome = serveNext(source.pipe(toStreamEntries()), { maxBufferedBytes: 64 * 1024 * 1024 });
    const client = await connect();
    // Enough to fill the connection's buffers (a few MB on loopback), then deltas that must wait.
    for (let i = 0; i < 200; i++) source.next(content(big));
    for (let i = 0; i < 1000; i++) source.next(content(`<${i}>`));
    source.next({ type: 'done' });
    source.complete();
    const frames = parse(await client.read());
    const text = frames.flatMap((frame) => (frame.event === 'content' ? [(JSON.parse(frame.data) as { text: string }).text] : [])).join('');
    expect(text).toBe(big.repeat(200) + Array.from({ length: 1000 }, (_, i) => `<${i}>`).join(''));
    expect(frames.length).toBeLessThan(1201);
    const ids = frames.map((frame) => Number(frame.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids[ids.length - 1]).toBe(1201);
    const { values } = await outcome;
    expect(values[0]!.merged).toBe(1201 - frames.length);
    expect(values[0]!.merged).toBeGreaterThan(0);
  });

  it('pauses the demand while the client is not draining, and resumes it when it drains', async () => {
    const demand = new Demand();
    const changes: boolean[] = [];
    demand.watch((paused) => changes.push(paused));
    const source = new Subject<ChatEvent>();
    const outcome = serveNext(source.pipe(toStreamEntries()), { demand, maxBufferedBytes: 64 * 1024 * 1024 });
    const client = await connect();
    const big = 'y'.repeat(256 * 1024);
    // Up to 40 MiB, below the cap: loopback buffers grow with the connection (once, on Node 24, 10 MiB
    // were not enough to fill them); the loop stops at the first pause.
    for (let i = 0; i < 160 && !demand.paused; i++) {
      source.next(content(big));
      await wait(5);
    }
    expect(demand.paused).toBe(true);
    source.complete();
    await client.read();
    await outcome;
    expect(changes[0]).toBe(true);
    expect(demand.paused).toBe(false);
  });

  it('drops a client over the cap: SlowClientError (over-cap), its connection closed, its source unsubscribed', async () => {
    let unsubscribed = false;
    // Events that never merge (two choices in turn), faster than any client takes them.
    const source = interval(1).pipe(
      take(100_000),
      map((i): ChatEvent => ({ type: 'content', choice: i % 2, text: 'z'.repeat(4096) })),
      finalize(() => (unsubscribed = true)),
    );
    const outcome = serveNext(source.pipe(toStreamEntries()), { maxBufferedBytes: 256 * 1024 });
    const client = await connect();
    const closed = new Promise<void>((resolve) => client.response.on('close', resolve));
    const { values, error } = await outcome;
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(SlowClientError);
    expect((error as SlowClientError).reason).toBe('over-cap');
    expect((error as SlowClientError).bufferedBytes).toBeGreaterThan(256 * 1024);
    expect(unsubscribed).toBe(true);
    client.response.resume();
    await closed;
  });

  it('drops a client that takes nothing for longer than the stall timeout: SlowClientError (stalled)', async () => {
    const source = new Subject<ChatEvent>();
    const outcome = serveNext(source.pipe(toStreamEntries()), { stallTimeout: 300, maxBufferedBytes: 64 * 1024 * 1024 });
    const client = await connect();
    for (let i = 0; i < 200; i++) source.next(content('s'.repeat(64 * 1024)));
    const { error } = await outcome;
    expect(error).toBeInstanceOf(SlowClientError);
    expect((error as SlowClientError).reason).toBe('stalled');
    expect(source.observed).toBe(false);
    client.close();
  });

  it('writes heartbeat comments while idle, which a reader never takes for events', async () => {
    const source = new Subject<ChatEvent>();
    const outcome = serveNext(source.pipe(toStreamEntries()), { heartbeatInterval: 100 });
    const client = await connect();
    const reading = client.read();
    await wait(450);
    source.next({ type: 'done' });
    source.complete();
    const text = await reading;
    expect(text.match(/^: heartbeat$/gm)!.length).toBeGreaterThanOrEqual(2);
    expect(parse(text).map((frame) => frame.event)).toEqual(['done']);
    await outcome;
  });

  it('a client that leaves: the report says client-closed, the source is unsubscribed, no error', async () => {
    const source = new Subject<ChatEvent>();
    const outcome = serveNext(source.pipe(toStreamEntries()));
    const client = await connect();
    source.next(content('a'));
    await wait(50);
    client.close();
    const { values, error } = await outcome;
    expect(error).toBeUndefined();
    expect(values).toEqual([{ ended: 'client-closed', lastEventId: '1', merged: 0 }]);
    expect(source.observed).toBe(false);
  });

  it("a source's error is the stream's last event, and then fails the result with it", async () => {
    const failure = new StreamClosedEarlyError('the store went away', { reason: 'store' });
    const entries$ = new Observable<StreamEntry>((subscriber) => {
      subscriber.next({ id: 1, kind: 'event', type: 'content', data: JSON.stringify(content('a')) });
      subscriber.error(failure);
    });
    const outcome = serveNext(entries$);
    const client = await connect();
    const frames = parse(await client.read());
    expect(frames.map((frame) => [frame.id, frame.event])).toEqual([
      ['1', 'content'],
      ['1', 'error'],
    ]);
    expect(JSON.parse(frames[1]!.data)).toMatchObject({
      name: 'StreamClosedEarlyError',
      reason: 'store',
      message: 'the stream store failed before the reply ended',
    });
    expect((await outcome).error).toBe(failure);
  });
});
