import { readdirSync, readFileSync } from 'fs';
import { get, IncomingMessage } from 'http';
import { join } from 'path';
import { Observable, Subscription, firstValueFrom, lastValueFrom, pipe } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { startReplayServer, ReplayServer, ReplayedRequest } from '../../src/cli/replayServer';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { fromReadableStream } from '../../src/io/fromReadableStream';
import { fromResponse } from '../../src/io/fromResponse';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { sseFrames } from '../../src/frames/sseFrames';
import { Completion } from '../../src/types/events';
import { collect } from '../support/collect';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const completionOf = (framing = sseFrames()) =>
  pipe(decodeUtf8(), framing, assembleChunks(), groupToolCallsByIndex(), finalizeCompletion());

/** The request the server saw last for `path`. */
function requestFor(path: string): ReplayedRequest {
  const found = [...server.requests].reverse().find((r) => r.path === path);
  if (found === undefined) throw new Error(`no request for ${path}`);
  return found;
}

/** Resolves with the time the server saw the connection close, or rejects after `ms`. */
function closedWithin(request: ReplayedRequest, ms: number): Promise<number> {
  return Promise.race([
    request.closed.then(() => request.closedAt!),
    new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`the connection was still open after ${ms} ms`)), ms)),
  ]);
}

/** Subscribes, waits for the first chunk, and returns the subscription. */
function subscribeUntilFirstChunk(source: Observable<Uint8Array>): Promise<Subscription> {
  return new Promise((resolve, reject) => {
    let resolved = false;
    const subscription: Subscription = source.subscribe({
      next: () => {
        if (!resolved) {
          resolved = true;
          // Deferred: inside `next`, the subscription variable may not be assigned yet.
          queueMicrotask(() => resolve(subscription!));
        }
      },
      error: reject,
    });
  });
}

describe('fromResponse over a real local server', () => {
  const marbles = join(__dirname, '..', '..', 'marbles');
  const recordings = ['openai', 'real', 'dialects'].flatMap((folder) =>
    readdirSync(join(marbles, folder))
      .filter((file) => /\.(sse|ndjson)$/.test(file))
      .map((file) => {
        const expected = JSON.parse(readFileSync(join(marbles, folder, file.replace(/\.(sse|ndjson)$/, '.expected.json')), 'utf8'));
        return { path: `/${folder}/${file}`, expected };
      }),
  );

  it.each(recordings.map((r) => [r.path, r]))(
    '%s gives the same outcome over HTTP as from the file (dialect detected)',
    async (path, { expected }) => {
      const response = await fetch(`${server.url}${path}?chunk=7`);
      const outcome = await collect(fromResponse(response).pipe(completionOf(path.endsWith('.ndjson') ? ndjsonFrames() : sseFrames())));
      if (expected.completion !== undefined) {
        expect(outcome).toEqual({ values: [expected.completion as Completion] });
      } else {
        expect((outcome.error as Error).name).toBe(expected.error);
        expect((outcome.error as { partial: unknown }).partial).toMatchObject(expected.partial);
      }
    },
  );

  it('is a StreamClosedEarlyError when the server ends the response early', async () => {
    const response = await fetch(`${server.url}/openai/text.sse?truncate=300`);
    const outcome = await collect(fromResponse(response).pipe(completionOf()));
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
  });

  it('turns a non-2xx status into a ProviderError with the status and the parsed body', async () => {
    const response = await fetch(`${server.url}/openai/text.sse?status=429`);
    const outcome = await collect(fromResponse(response));
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect(outcome.error).toMatchObject({
      status: 429,
      type: 'replay_error',
      code: 429,
      body: { error: { message: 'replayed error 429', type: 'replay_error', code: 429 } },
      message: 'the provider answered HTTP 429: replayed error 429',
    });
  });

  it('refuses an unexpected content type, unless allowed', async () => {
    const refused = await collect(fromResponse(await fetch(`${server.url}/openai/text.sse?type=text/html`)));
    expect(refused.error).toBeInstanceOf(ProtocolError);
    expect((refused.error as Error).message).toBe(
      'expected a streamed body (text/event-stream, application/x-ndjson, application/ndjson, application/jsonl, ' +
        'application/vnd.amazon.eventstream), got text/html',
    );
    const allowed = await collect(
      fromResponse(await fetch(`${server.url}/openai/text.sse?type=text/plain`), { contentTypes: ['text/plain'] }).pipe(completionOf()),
    );
    expect(allowed.error).toBeUndefined();
    expect(allowed.values[0]?.finishReason).toBe('stop');
  });
});

describe('cancellation reaches the server at once', () => {
  const path = '/real/openai-text.sse';
  const stalled = `${path}?chunk=64&stall=1000`;

  it('fromResponse: unsubscribing cancels the body reader and the connection closes', async () => {
    const response = await fetch(`${server.url}${stalled}`);
    const subscription = await subscribeUntilFirstChunk(fromResponse(response));
    const request = requestFor(path);
    expect(request.closedAt).toBeUndefined(); // stalled: the server is holding the connection open
    const unsubscribedAt = performance.now();
    subscription.unsubscribe();
    const closedAt = await closedWithin(request, 1000);
    expect(request.finished).toBe(false);
    expect(closedAt - unsubscribedAt).toBeLessThan(1000);
  });

  it('fromFetch with fromResponse as selector: unsubscribing aborts the request', async () => {
    const subscription = await subscribeUntilFirstChunk(fromFetch(`${server.url}${stalled}`, { selector: (r) => fromResponse(r) }));
    const request = requestFor(path);
    const unsubscribedAt = performance.now();
    subscription.unsubscribe();
    const closedAt = await closedWithin(request, 1000);
    expect(request.finished).toBe(false);
    expect(closedAt - unsubscribedAt).toBeLessThan(1000);
  });

  it('a Node Readable (http.get): unsubscribing destroys the stream and the connection closes', async () => {
    const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}${stalled}`, resolve));
    const subscription = await subscribeUntilFirstChunk(fromReadableStream(response));
    const request = requestFor(path);
    const unsubscribedAt = performance.now();
    subscription.unsubscribe();
    const closedAt = await closedWithin(request, 1000);
    expect(request.finished).toBe(false);
    expect(response.destroyed).toBe(true);
    expect(closedAt - unsubscribedAt).toBeLessThan(1000);
  });

  it('a Node Readable that completes normally gives the whole body', async () => {
    const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}/openai/text.sse?chunk=5`, resolve));
    const completion = await lastValueFrom(fromReadableStream(response).pipe(completionOf()));
    expect(completion.finishReason).toBe('stop');
  });

  it('a Node Readable of Ollama NDJSON, as the README recipe reads it, gives the expected completion', async () => {
    const expected = JSON.parse(readFileSync(join(__dirname, '..', '..', 'marbles', 'dialects', 'ollama-native.expected.json'), 'utf8'));
    const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}/dialects/ollama-native.ndjson?chunk=9`, resolve));
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    const completion = await lastValueFrom(
      fromReadableStream(response).pipe(decodeUtf8(), ndjsonFrames(), assembleChunks(), finalizeCompletion()),
    );
    expect(completion).toEqual(expected.completion);
  });

  it('a Node Readable cut by a connection reset is an error, never a complete body', async () => {
    const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}/openai/text.sse?drop=200`, resolve));
    const outcome = await collect(fromReadableStream(response));
    // Node's own errors come from another realm than the test's, so no `instanceof` here.
    expect(outcome.error).toBeDefined();
    expect(outcome.error).toHaveProperty('message', expect.stringMatching(/aborted|closed before its end/));
  });

  it('a web ReadableStream can be read by one subscriber at a time', async () => {
    const response = await fetch(`${server.url}/openai/text.sse`);
    const body = response.body!;
    const first = fromReadableStream(body);
    const value = await firstValueFrom(first);
    expect(value.length).toBeGreaterThan(0);
  });
});
