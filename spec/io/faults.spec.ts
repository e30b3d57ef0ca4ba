import { execFile } from 'child_process';
import { readFileSync } from 'fs';
import { IncomingMessage, get } from 'http';
import { join } from 'path';
import { PassThrough } from 'stream';
import { promisify } from 'util';
import { Observable, Subscription, pipe, takeUntil, timer } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { TestScheduler } from 'rxjs/testing';
import { ReplayServer, ReplayedRequest, startReplayServer } from '../../src/cli/replayServer';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError, ProviderError, StreamClosedEarlyError, StreamIdleError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { fromReadableStream } from '../../src/io/fromReadableStream';
import { fromResponse } from '../../src/io/fromResponse';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';
import { sseFrames } from '../../src/frames/sseFrames';
import { root } from '../support/build';
import { collect } from '../support/collect';

// Real transports failing the way real networks fail, on a real server on 127.0.0.1: every fault
// must end as a typed error whose `cause` is the platform's own error and whose `partial` holds the
// completion so far; a user's own unsubscribe must stay silent.

jest.setTimeout(20_000);

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

// openai/text.sse, read here without the library: the offset just after each event's blank line,
// and the answer text the first events carry.
const recording = '/openai/text.sse';
const recordingText = readFileSync(join(root, 'marbles', recording), 'utf8');
const blocks = recordingText.split('\n\n').filter((block) => block !== '');
const eventEnds = blocks.map((_, i) => Buffer.byteLength(blocks.slice(0, i + 1).join('\n\n') + '\n\n'));
const textOfFirst = (events: number): string =>
  blocks
    .slice(0, events)
    .map(
      (block) =>
        (JSON.parse(block.slice('data: '.length)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
    )
    .join('');

// Four whole events in one write, then 100 bytes of the fifth, then the connection fails.
const fourAndAPart = (fault: 'reset' | 'drop'): string => `chunk=${eventEnds[3]}&delay=40&${fault}=${eventEnds[3]! + 100}`;
// Two whole events, then silence with the connection open.
const twoThenSilence = `chunk=${eventEnds[1]}&stall=${eventEnds[1]}`;

/** The README's pipeline after a source. */
const completion = pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion());

const httpGet = (url: string): Promise<IncomingMessage> => new Promise((resolve, reject) => get(url, resolve).on('error', reject));

/** The three ways to read a body in Node that the library takes, each from a URL. */
const paths: ReadonlyArray<readonly [string, (url: string, options?: { idleTimeout: number }) => Promise<Observable<Uint8Array>>]> = [
  ['fromResponse over fetch', async (url, options) => fromResponse(await fetch(url), options)],
  [
    'fromFetch with fromResponse as selector',
    async (url, options) => fromFetch(url, { selector: (response) => fromResponse(response, options) }),
  ],
  ['fromReadableStream over an http.IncomingMessage', async (url, options) => fromReadableStream(await httpGet(url), options)],
];

/** The platform's own error for a connection that failed mid-body, as each path reports it. */
const platformError: Record<string, { name: string; message: string }> = {
  'fromResponse over fetch': { name: 'TypeError', message: 'terminated' },
  'fromFetch with fromResponse as selector': { name: 'TypeError', message: 'terminated' },
  'fromReadableStream over an http.IncomingMessage': { name: 'Error', message: 'aborted' },
};

/** The request the server saw last for `path`. */
function requestFor(path: string): ReplayedRequest {
  const found = [...server.requests].reverse().find((request) => request.path === path);
  if (found === undefined) throw new Error(`no request for ${path}`);
  return found;
}

describe.each(paths)('%s', (name, open) => {
  it.each(['reset', 'drop'] as const)(
    'a connection %s after four events and part of a fifth: StreamClosedEarlyError,' +
      ' the platform error as cause, the four events as partial',
    async (fault) => {
      const { values, error } = await collect((await open(`${server.url}${recording}?${fourAndAPart(fault)}`)).pipe(completion));
      expect(values).toEqual([]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toMatch(new RegExp(`^the connection failed after ${eventEnds[3]! + 100} bytes in 2 chunks: `));
      // Node's errors come from another realm than the test's: compared by name and message.
      expect((error as Error).cause).toMatchObject(platformError[name]!);
      const partial = (error as StreamClosedEarlyError).partial;
      expect(isCompletionSnapshot(partial)).toBe(true);
      expect(isCompletionSnapshot(partial) && partial.content).toBe(textOfFirst(4));
      expect(isCompletionSnapshot(partial) && partial.finished).toBe(false);
    },
  );

  it(
    'a server that sends two events and then nothing: StreamIdleError ' +
      'after idleTimeout, with the two as partial, and the connection closed',
    async () => {
      const startedAt = performance.now();
      const { error } = await collect((await open(`${server.url}${recording}?${twoThenSilence}`, { idleTimeout: 300 })).pipe(completion));
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(290);
      expect(error).toBeInstanceOf(StreamIdleError);
      expect((error as Error).message).toBe(`the body was silent for 300 ms after ${eventEnds[1]} bytes in 1 chunk`);
      const partial = (error as StreamIdleError).partial;
      expect(isCompletionSnapshot(partial) && partial.content).toBe(textOfFirst(2));
      await requestFor(recording).closed; // the source let the connection go: the server saw it close
      expect(requestFor(recording).finished).toBe(false);
    },
  );

  it("the user's own unsubscribe mid-stream is silent: no error, no completion, and the connection closes", async () => {
    const source = (await open(`${server.url}${recording}?${twoThenSilence}`)).pipe(decodeUtf8(), sseFrames(), assembleChunks());
    const seen: string[] = [];
    const subscription: Subscription = await new Promise((resolve) => {
      const started: Subscription = source.subscribe({
        next: (event) => {
          seen.push(event.type);
          if (seen.length === 1) queueMicrotask(() => resolve(started));
        },
        error: (error: unknown) => seen.push(`error ${String(error)}`),
        complete: () => seen.push('complete'),
      });
    });
    subscription.unsubscribe();
    await requestFor(recording).closed;
    await new Promise((resolve) => setTimeout(resolve, 100)); // a late error would arrive by now
    expect(seen.every((type) => !type.startsWith('error') && type !== 'complete')).toBe(true);
  });
});

describe('an error answer on paths other than fetch', () => {
  it(
    'fromReadableStream over an http.IncomingMessage with a 429 ' + 'JSON body: ProviderError with status, message, type and code',
    async () => {
      const { error } = await collect(fromReadableStream(await httpGet(`${server.url}${recording}?status=429`)).pipe(completion));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider answered HTTP 429: replayed error 429',
        status: 429,
        type: 'replay_error',
        code: 429,
        body: { error: { message: 'replayed error 429', type: 'replay_error', code: 429 } },
      });
    },
  );

  it(
    'fromReadableStream over an http.IncomingMessage of an HTML page with ' +
      'status 200: ProtocolError naming the type, the connection released',
    async () => {
      const { error } = await collect(
        fromReadableStream(await httpGet(`${server.url}/real/openai-text.sse?type=text/html&chunk=64&stall=640`)).pipe(completion),
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(
        'expected a streamed body (text/event-stream, application/x-ndjson, application/ndjson, application/jsonl, ' +
          'application/vnd.amazon.eventstream), got text/html',
      );
      await requestFor('/real/openai-text.sse').closed; // not left open behind the error
    },
  );

  it('the same IncomingMessage checks can be relaxed with contentTypes', async () => {
    const { values } = await collect(
      fromReadableStream(await httpGet(`${server.url}${recording}?type=text/plain`), { contentTypes: ['text/plain'] }).pipe(completion),
    );
    expect(values[0]?.content).toBe(textOfFirst(blocks.length - 1));
  });
});

describe('the default idle timeout, in virtual time', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('a web stream that never sends a byte fails after ten minutes, not before', () => {
    scheduler.run(({ expectObservable }) => {
      const silent = new ReadableStream<Uint8Array>();
      const idle = new StreamIdleError('the body was silent for 600000 ms before any byte arrived');
      expectObservable(fromReadableStream(silent)).toBe('10m #', undefined, idle);
    });
  });

  it('a Node stream that never sends a byte fails after ten minutes too, and is destroyed', () => {
    const silent = new PassThrough();
    scheduler.run(({ expectObservable }) => {
      const idle = new StreamIdleError('the body was silent for 600000 ms before any byte arrived');
      expectObservable(fromReadableStream(silent)).toBe('10m #', undefined, idle);
    });
    expect(silent.destroyed).toBe(true);
  });

  it('a Node stream is let go however its reading ends: no listener of ours is left on it', async () => {
    const listeners = (stream: PassThrough): number[] => ['data', 'end', 'error', 'close'].map((event) => stream.listenerCount(event));
    const ended = new PassThrough();
    const read = collect(fromReadableStream(ended));
    expect(listeners(ended)).toEqual([1, 1, 1, 1]);
    ended.end(new TextEncoder().encode('data: {}\n\n'));
    expect((await read).error).toBeUndefined();
    expect(listeners(ended)).toEqual([0, 0, 0, 0]);

    const dropped = new PassThrough();
    fromReadableStream(dropped).subscribe().unsubscribe();
    expect(listeners(dropped)).toEqual([0, 0, 0, 0]);
    expect(dropped.destroyed).toBe(true);
  });

  it('idleTimeout: false waits for ever', () => {
    scheduler.run(({ expectObservable }) => {
      const silent = fromReadableStream(new ReadableStream<Uint8Array>(), { idleTimeout: false });
      expectObservable(silent.pipe(takeUntil(timer(24 * 60 * 60 * 1000)))).toBe('1440m |');
    });
  });

  it('refuses an idleTimeout that is not a positive number or false', () => {
    expect(() => fromReadableStream(new ReadableStream<Uint8Array>(), { idleTimeout: 0 })).toThrow(
      'fromReadableStream: idleTimeout must be a positive number of milliseconds or false, got 0',
    );
    expect(() => fromResponse(new Response('x'), { idleTimeout: -5 })).toThrow(
      'fromResponse: idleTimeout must be a positive number of milliseconds or false, got -5',
    );
  });
});

describe("Angular's HttpClient (withFetch), through the README's recipe, in a child process", () => {
  const run = promisify(execFile);
  /** What the Angular client script reports for `url`. */
  const angular = async (
    url: string,
    idleMs?: number,
  ): Promise<{ error?: Record<string, unknown>; content: string | null; snapshots: number }> => {
    const args = [join(root, 'spec', 'support', 'angularClient.mjs'), url, ...(idleMs === undefined ? [] : [String(idleMs)])];
    const { stdout } = await run(process.execPath, args, { cwd: root });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  };

  it('a whole reply streams into the completion', async () => {
    const outcome = await angular(`${server.url}${recording}?chunk=50`);
    expect(outcome).toMatchObject({ content: textOfFirst(blocks.length - 1), finishReason: 'stop' });
    expect(outcome.snapshots).toBeGreaterThan(1);
  });

  it(
    'a reset after four events and part of a fifth: StreamClosedEarlyError,' +
      " Angular's status-0 HttpErrorResponse as cause, the four as partial",
    async () => {
      const outcome = await angular(`${server.url}${recording}?${fourAndAPart('reset')}`);
      expect(outcome.error).toMatchObject({
        name: 'StreamClosedEarlyError',
        partialContent: textOfFirst(4),
        cause: { name: 'HttpErrorResponse', status: 0, error: 'terminated' },
      });
      expect(outcome.error!['message']).toMatch(/^the transcript's source failed after \d+ characters: terminated/);
    },
  );

  it(
    'a server that sends two events and then nothing: StreamIdleError ' + 'from idleTimeout() on the text, with the two as partial',
    async () => {
      // The timer sits on the text, so it runs from the subscription, before the request is even
      // sent: long enough that a loaded machine still has the two events in by then.
      const outcome = await angular(`${server.url}${recording}?${twoThenSilence}`, 1500);
      expect(outcome.error).toMatchObject({ name: 'StreamIdleError', partialContent: textOfFirst(2) });
      expect(outcome.error!['message']).toMatch(/^the stream was idle for 1500 ms after \d+ values?$/);
    },
  );

  it('an error status: ProviderError with the status and the provider message', async () => {
    const outcome = await angular(`${server.url}${recording}?status=429`);
    expect(outcome.error).toMatchObject({
      name: 'ProviderError',
      message: 'the provider answered HTTP 429: replayed error 429',
      status: 429,
      cause: { name: 'HttpErrorResponse', status: 429 },
    });
  });
});
