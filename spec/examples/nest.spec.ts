import 'reflect-metadata';
import { readFileSync } from 'fs';
import { AddressInfo } from 'net';
import { join } from 'path';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Observable, Subscription, from, lastValueFrom, toArray } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { AppModule } from '../../examples/nest/src/app.module';
import { startReplayServer, ReplayServer, ReplayedRequest } from '../../src/cli/replayServer';
import { SseFrame } from '../../src/frames/SseParser';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';
import { ChatEvent, Completion, CompletionSnapshot } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { fromResponse } from '../../src/io/fromResponse';
import { sseFrames } from '../../src/frames/sseFrames';
import { collect } from '../support/collect';

let server: ReplayServer;
let app: INestApplication;
let appUrl: string;

/** Starts the example app in front of `upstreamUrl`, on a free port; returns it and its URL. */
async function startApp(upstreamUrl: string): Promise<{ app: INestApplication; url: string }> {
  // forceCloseConnections: `close()` destroys open SSE connections instead of waiting for them.
  const started = await NestFactory.create(AppModule.forUpstream(upstreamUrl), { logger: false, forceCloseConnections: true });
  await started.listen(0, '127.0.0.1');
  const { port } = started.getHttpServer().address() as AddressInfo;
  return { app: started, url: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  server = await startReplayServer();
  ({ app, url: appUrl } = await startApp(server.url));
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});

/** The app's answer to `/chat?<query>`, read with this library: the response and every SSE frame. */
async function chat(query: string, baseUrl = appUrl): Promise<{ response: Response; frames: SseFrame[] }> {
  const response = await fetch(`${baseUrl}/chat?${query}`);
  const frames = await lastValueFrom(fromResponse(response).pipe(decodeUtf8(), sseFrames(), toArray()));
  return { response, frames };
}

/** The ChatEvents the frames carry (every frame but a final `error` one). */
const chatEventsOf = (frames: readonly SseFrame[]): ChatEvent[] =>
  frames.filter((frame) => frame.event !== 'error').map((frame) => JSON.parse(frame.data) as ChatEvent);

function expectedFor(recording: string): { completion: Completion } {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'marbles', recording.replace(/\.sse$/, '.expected.json')), 'utf8'));
}

/** The request the replay server saw last for `path`. */
function upstreamRequestFor(path: string): ReplayedRequest {
  const found = [...server.requests].reverse().find((request) => request.path === path);
  if (found === undefined) throw new Error(`the upstream saw no request for ${path}`);
  return found;
}

/** Resolves with the time the upstream saw the connection close, or rejects after `ms`. */
function closedWithin(request: ReplayedRequest, ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    request.closed.then(() => request.closedAt!),
    new Promise<number>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the upstream connection was still open after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Subscribes, waits for the first value, and returns it with the subscription. */
function subscribeUntilFirst<T>(source: Observable<T>): Promise<{ first: T; subscription: Subscription }> {
  return new Promise((resolve, reject) => {
    let resolved = false;
    const subscription: Subscription = source.subscribe({
      next: (value) => {
        if (resolved) return;
        resolved = true;
        // Deferred: inside `next`, `subscription` may not be assigned yet.
        queueMicrotask(() => resolve({ first: value, subscription }));
      },
      error: reject,
      complete: () => reject(new Error('completed before its first value')),
    });
  });
}

describe('the NestJS example: an @Sse() endpoint in front of an upstream LLM server', () => {
  it.each(['openai/tool-calls-interleaved.sse', 'dialects/anthropic-messages.sse', 'openai/reasoning.sse'])(
    '%s: the events the app re-emits fold into the completion the recording holds',
    async (recording) => {
      const { response, frames } = await chat(`recording=${recording}&chunk=7`);
      expect(response.status).toBe(200);
      const events = chatEventsOf(frames);
      expect(frames.length).toBeGreaterThan(2);
      expect(events).toHaveLength(frames.length); // no error frame
      // Each frame is named after the ChatEvent it carries and numbered 1, 2, 3, ...
      frames.forEach((frame, i) => {
        expect(frame.event).toBe(events[i]!.type);
        expect(frame.id).toBe(String(i + 1));
      });
      expect(events[0]!.type).toBe('start');
      expect(events[events.length - 1]!.type).toBe('done');
      const completion = await lastValueFrom(from(events).pipe(finalizeCompletion()));
      expect(completion).toEqual(expectedFor(recording).completion);
    },
  );

  it("answers with Nest's SSE headers", async () => {
    const { response } = await chat('recording=openai/text.sse');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('private, no-cache, no-store, must-revalidate, max-age=0, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
  });

  it('a client that disconnects mid-stream makes the app close its upstream connection at once', async () => {
    const path = '/real/openai-text.sse';
    // The upstream sends its first 1000 bytes (a few events), then holds the connection open.
    const client$ = fromFetch(`${appUrl}/chat?recording=${path.slice(1)}&chunk=64&stall=1000`, {
      selector: (response) => fromResponse(response),
    }).pipe(decodeUtf8(), sseFrames());
    const { first, subscription } = await subscribeUntilFirst(client$);
    expect(first.event).toBe('start');
    const upstream = upstreamRequestFor(path);
    expect(upstream.closedAt).toBeUndefined(); // stalled: still open while the client listens
    const unsubscribedAt = performance.now();
    subscription.unsubscribe(); // aborts the client's request
    const closedAt = await closedWithin(upstream, 1000);
    expect(upstream.finished).toBe(false);
    expect(upstream.bytesSent).toBe(1000);
    expect(closedAt - unsubscribedAt).toBeLessThan(500);
  });

  describe('when the upstream fails, the stream ends with one `error` event after the events that arrived', () => {
    /** What a client of the app gets reading it with the library: the completion, or the rebuilt error. */
    const clientOutcome = async (query: string, baseUrl = appUrl) =>
      collect(
        fromFetch(`${baseUrl}/chat?${query}`, { selector: (response) => fromResponse(response) }).pipe(
          decodeUtf8(),
          sseFrames(),
          assembleChunks({ dialect: 'chat-events' }),
          finalizeCompletion(),
        ),
      );

    it(
      'an error status: a ProviderError event with the status, as ' + 'the only event of a 200 response, rebuilt as a ProviderError',
      async () => {
        // The provider's own text ("replayed error 500") stays on the server: the browser gets the status, type and code.
        const { response, frames } = await chat('recording=openai/text.sse&status=500');
        expect(response.status).toBe(200);
        expect(frames).toEqual([
          {
            event: 'error',
            id: '1',
            data: JSON.stringify({
              name: 'ProviderError',
              reason: 'http-status',
              message: 'the provider answered HTTP 500',
              status: 500,
              type: 'replay_error',
              code: 500,
            }),
          },
        ]);
        const { values, error } = await clientOutcome('recording=openai/text.sse&status=500');
        expect(values).toEqual([]);
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({
          message: 'the provider answered HTTP 500',
          status: 500,
          type: 'replay_error',
          code: 500,
        });
      },
    );

    it(
      'a reply cut off before its end: a StreamClosedEarlyError event,' + ' rebuilt by the client as that class with the text that arrived',
      async () => {
        const { frames } = await chat('recording=openai/text.sse&truncate=1500');
        const last = frames[frames.length - 1]!;
        expect(last.event).toBe('error');
        expect(last.id).toBe(String(frames.length)); // numbered after the events before it
        expect((JSON.parse(last.data) as { name: string }).name).toBe('StreamClosedEarlyError');
        const events = chatEventsOf(frames);
        expect(events.length).toBe(frames.length - 1);
        const text = events.map((event) => (event.type === 'content' ? event.text : '')).join('');
        expect(text).not.toBe('');
        const { error } = await clientOutcome('recording=openai/text.sse&truncate=1500');
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect(isCompletionSnapshot((error as StreamClosedEarlyError).partial)).toBe(true);
        expect(((error as StreamClosedEarlyError).partial as CompletionSnapshot).content).toBe(text);
      },
    );

    it('an upstream connection reset mid-event: the client rebuilds the StreamClosedEarlyError with what arrived', async () => {
      const { error } = await clientOutcome('recording=openai/text.sse&chunk=700&delay=30&reset=1000');
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      // What the browser reads of a failure names no internals (docs/relay.md, "What a browser sees of an error").
      expect((error as Error).message).toBe('the reply failed on its way before its end');
      expect(((error as StreamClosedEarlyError).partial as CompletionSnapshot).content).toBeTruthy();
    });

    it('an unreachable upstream: a generic event that names no host', async () => {
      // A port that was just free: nothing listens there.
      const probe = await startReplayServer();
      const deadUrl = probe.url;
      await probe.close();
      const other = await startApp(deadUrl);
      try {
        const { response, frames } = await chat('recording=openai/text.sse', other.url);
        expect(response.status).toBe(200);
        expect(frames).toEqual([
          {
            event: 'error',
            id: '1',
            data: JSON.stringify({
              name: 'StreamClosedEarlyError',
              reason: 'transport',
              message: 'the reply failed on its way before its end',
            }),
          },
        ]);
        const { error } = await clientOutcome('recording=openai/text.sse', other.url);
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
      } finally {
        await other.app.close();
      }
    });
  });

  it.each(['../package.json', 'http://example.com/x.sse', '//example.com/x.sse', 'openai/text.json', ''])(
    'refuses the recording %j with a 400 before calling the upstream',
    async (recording) => {
      const before = server.requests.length;
      const response = await fetch(`${appUrl}/chat?recording=${encodeURIComponent(recording)}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ statusCode: 400, message: 'recording must be a path like openai/text.sse' });
      expect(server.requests.length).toBe(before);
    },
  );
});
