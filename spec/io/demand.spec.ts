import { IncomingMessage, request as httpRequest } from 'node:http';
import { Observable, Subscription } from 'rxjs';
import { Demand } from '../../src/io/Demand';
import { StreamIdleError } from '../../src/errors/errors';
import { fromReadableStream } from '../../src/io/fromReadableStream';
import { fromResponse } from '../../src/io/fromResponse';
import { FakeUpstream, UpstreamRequest, startFakeUpstream } from '../support/fakeUpstream';

// Demand that reaches the provider: with a paused `demand`, fromResponse (fetch's web stream) and
// fromReadableStream (Node's IncomingMessage) read nothing more, the platform stops reading the
// socket, and a real server on 127.0.0.1 sees its writes block. Without a demand, the same body is
// read to its end at once (the control that shows the first can fail).

jest.setTimeout(30_000);

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const REPLY = { events: 20_000, size: 1000 }; // about 20 MB: several times what loopback buffers hold
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the request's writes are blocked and it offered nothing more for 500 ms. */
async function blocked(request: UpstreamRequest): Promise<void> {
  let offered = -1;
  for (let quiet = 0, tries = 0; quiet < 5; tries++) {
    if (tries > 200) throw new Error(`the upstream never blocked: it offered ${request.offered} bytes`);
    await wait(100);
    quiet = request.waitingForDrain && request.offered === offered ? quiet + 1 : 0;
    offered = request.offered;
  }
}

const body = JSON.stringify({ reply: REPLY });

/** The body of a POST to the fake, as each source reads it. */
const sources: ReadonlyArray<readonly [string, (options: { demand?: Demand; idleTimeout?: number }) => Promise<Observable<Uint8Array>>]> = [
  ['fromResponse (fetch)', async (options) => fromResponse(await fetch(upstream.url, { method: 'POST', body }), options)],
  [
    'fromReadableStream (http.IncomingMessage)',
    (options) =>
      new Promise((resolve) => {
        const request = httpRequest(upstream.url, { method: 'POST' }, (response: IncomingMessage) =>
          resolve(fromReadableStream(response, options)),
        );
        request.end(body);
      }),
  ],
];

describe.each(sources)('%s', (_name, open) => {
  it('with its demand paused reads nothing more: the server blocks short of half its reply; resumed, every byte arrives', async () => {
    const demand = new Demand();
    const before = upstream.requests.length;
    const bytes$ = await open({ demand });
    let read = 0;
    let subscription: Subscription | undefined;
    const done = new Promise<void>((resolve, reject) => {
      subscription = bytes$.subscribe({
        next: (bytes) => {
          if (read === 0) demand.pause();
          read += bytes.length;
        },
        error: reject,
        complete: resolve,
      });
    });
    const request = upstream.requests[before]!;
    await blocked(request);
    const readWhilePaused = read;
    expect(request.finished).toBe(false);
    expect(request.offered).toBeLessThan(REPLY.events * REPLY.size * 0.5);
    await wait(300);
    expect(read).toBe(readWhilePaused); // nothing was delivered while paused
    demand.resume();
    await done;
    expect(request.finished).toBe(true);
    expect(read).toBe(request.offered);
    subscription?.unsubscribe();
  });

  it('without a demand reads the whole body at once (the control)', async () => {
    const before = upstream.requests.length;
    const bytes$ = await open({});
    let read = 0;
    await new Promise<void>((resolve, reject) =>
      bytes$.subscribe({ next: (bytes) => (read += bytes.length), error: reject, complete: resolve }),
    );
    expect(upstream.requests[before]!.finished).toBe(true);
    expect(read).toBe(upstream.requests[before]!.offered);
  });

  it('does not take its own pause for silence: paused longer than idleTimeout, it still completes', async () => {
    const demand = new Demand();
    // Paused for 2.5 times the idle timeout; after the resume the server has the whole timeout to go on
    // (800 ms: a loaded machine can take a few hundred to refill a socket its write had blocked on).
    const bytes$ = await open({ demand, idleTimeout: 800 });
    let read = 0;
    const outcome = new Promise<unknown>((resolve) => {
      bytes$.subscribe({
        next: (bytes) => {
          if (read === 0) {
            demand.pause();
            setTimeout(() => demand.resume(), 2000);
          }
          read += bytes.length;
        },
        error: resolve,
        complete: () => resolve('complete'),
      });
    });
    const result = await outcome;
    expect(result).not.toBeInstanceOf(StreamIdleError);
    expect(result).toBe('complete');
  });
});
