import { Readable } from 'node:stream';
import { Observable, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ProtocolError, ProviderError, StreamClosedEarlyError, StreamIdleError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { fromReadableStream } from '../../src/io/fromReadableStream';
import { fromResponse } from '../../src/io/fromResponse';
import { sseFrames } from '../../src/frames/sseFrames';
import { bodyStream } from '../../src/testing/bodyStream';
import { fakeFetch } from '../../src/testing/fakeFetch';
import { fakeReadable } from '../../src/testing/fakeReadable';
import { fakeResponse } from '../../src/testing/fakeResponse';
import { collect } from '../support/collect';

// The fakes at the edges, read by the library's own sources: fromResponse, fromFetch (rxjs/fetch,
// over the global fetch) and fromReadableStream. Each reports what its consumer did with the body.

/** An openai-chat reply in four events: "Hello, world", then the end signal. */
const hello = bodyStream([
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n',
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":", "},"finish_reason":null}]}\n\n',
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"world"},"finish_reason":"stop"}]}\n\n',
  'data: [DONE]\n\n',
]);
const stalled = { ...hello, chunks: hello.chunks.slice(0, 2), stalls: true };
const errorPage = bodyStream('{"error":{"message":"Too many requests","type":"rate_limit_exceeded"}}', {
  status: 429,
  contentType: 'application/json',
});

const contentOf = (bytes$: Observable<Uint8Array>) =>
  lastValueFrom(bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion())).then((completion) => completion.content);

describe('fakeResponse, read by fromResponse', () => {
  it('is a real Response with the stream status and content type, and its body is the chunks', async () => {
    const response = fakeResponse(hello);
    expect(response).toBeInstanceOf(Response);
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 200, type: 'text/event-stream' });
    const chunks = await lastValueFrom(fromResponse(response).pipe(toArray()));
    expect(chunks).toEqual(hello.chunks);
  });

  it('read to its end: bodyState read, cancelled false', async () => {
    const response = fakeResponse(hello);
    expect(response.bodyState).toBe('open');
    expect(await contentOf(fromResponse(response))).toBe('Hello, world');
    expect(response.bodyState).toBe('read');
    await expect(response.cancelled).resolves.toBe(false);
  });

  it('unsubscribed after the first frame: the body is cancelled', async () => {
    const response = fakeResponse(hello);
    const frame = await firstValueFrom(fromResponse(response).pipe(decodeUtf8(), sseFrames()));
    expect(frame.data).toContain('"Hello"');
    await expect(response.cancelled).resolves.toBe(true);
    expect(response.bodyState).toBe('cancelled');
  });

  it('serves each response afresh, from copies of the chunks', async () => {
    const first = await lastValueFrom(fromResponse(fakeResponse(hello)).pipe(toArray()));
    first.forEach((chunk) => chunk.fill(0));
    expect(await contentOf(fromResponse(fakeResponse(hello)))).toBe('Hello, world');
  });

  it('a stall keeps the body open and silent: fromResponse gives a StreamIdleError, then cancels it', async () => {
    const response = fakeResponse(stalled);
    const { values, error } = await collect(fromResponse(response, { idleTimeout: 20 }));
    expect(values).toEqual(stalled.chunks);
    expect(error).toBeInstanceOf(StreamIdleError);
    await expect(response.cancelled).resolves.toBe(true);
  });

  it('with an error after the chunks: a StreamClosedEarlyError whose cause is that error', async () => {
    const reset = new TypeError('terminated');
    const response = fakeResponse({ ...hello, chunks: hello.chunks.slice(0, 2) }, { error: reset });
    const { values, error } = await collect(fromResponse(response));
    expect(values).toHaveLength(2);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect(error).toMatchObject({
      reason: 'transport',
      cause: reset,
      message: expect.stringMatching(/after \d+ bytes in 2 chunks: terminated$/),
    });
    expect(response.bodyState).toBe('failed');
    await expect(response.cancelled).resolves.toBe(false);
  });

  it('an error status: fromResponse reads the body and fails with the ProviderError it carries', async () => {
    const { error } = await collect(fromResponse(fakeResponse(errorPage)));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_exceeded', message: expect.stringContaining('Too many requests') });
  });

  it('a body that is not a stream: fromResponse refuses it and releases it unread (cancelled true)', async () => {
    const response = fakeResponse(bodyStream('<html>Bad gateway</html>', { contentType: 'text/html' }));
    const { error } = await collect(fromResponse(response));
    expect(error).toBeInstanceOf(ProtocolError);
    await expect(response.cancelled).resolves.toBe(true);
  });

  it('an aborted signal fails the body with its reason, as a real fetch body does', async () => {
    const controller = new AbortController();
    const response = fakeResponse(stalled, { signal: controller.signal });
    const values: Uint8Array[] = [];
    const error = await new Promise((resolve) =>
      fromResponse(response, { idleTimeout: false }).subscribe({
        next(chunk) {
          // Aborted once both chunks are in: the stall holds the body open after them.
          if (values.push(chunk) === stalled.chunks.length) controller.abort();
        },
        error: resolve,
      }),
    );
    expect(values).toEqual(stalled.chunks);
    expect(error).toMatchObject({
      name: 'StreamClosedEarlyError',
      reason: 'transport',
      cause: expect.objectContaining({ name: 'AbortError' }),
    });
    expect(response.bodyState).toBe('aborted');
    await expect(response.cancelled).resolves.toBe(true);
  });

  it('sends the other headers a stream names beside its content type', () => {
    const response = fakeResponse({ ...hello, headers: { 'X-Vercel-AI-UI-Message-Stream': 'v1' } });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
  });
});

describe('fakeFetch, called by fromFetch', () => {
  afterEach(() => jest.restoreAllMocks());

  const completion$ = (url: string) =>
    fromFetch(url, { method: 'POST', body: '{"stream":true}', selector: (response) => fromResponse(response) }).pipe(
      decodeUtf8(),
      sseFrames(),
      assembleChunks(),
      finalizeCompletion(),
    );

  it('answers with the stream and records the request; read to its end, cancelled is false', async () => {
    const fetch = fakeFetch(hello);
    jest.spyOn(globalThis, 'fetch').mockImplementation(fetch);
    const completion = await lastValueFrom(completion$('https://api.example.com/v1/chat/completions'));
    expect(completion.content).toBe('Hello, world');
    await expect(fetch.cancelled).resolves.toBe(false);
    expect(fetch.calls).toHaveLength(1);
    const { request } = fetch.calls[0]!;
    expect({ method: request.method, url: request.url, body: await request.text() }).toEqual({
      method: 'POST',
      url: 'https://api.example.com/v1/chat/completions',
      body: '{"stream":true}',
    });
  });

  it('an unsubscribe mid-stream aborts the request: cancelled is true and the body gave up', async () => {
    const fetch = fakeFetch(stalled);
    jest.spyOn(globalThis, 'fetch').mockImplementation(fetch);
    const frames$ = fromFetch('https://api.example.com/chat', { selector: (response) => fromResponse(response) }).pipe(
      decodeUtf8(),
      sseFrames(),
    );
    const first = await firstValueFrom(frames$);
    expect(first.data).toContain('"Hello"');
    await expect(fetch.cancelled).resolves.toBe(true);
    expect(['cancelled', 'aborted']).toContain(fetch.calls[0]!.response!.bodyState);
  });

  it('an abort before the answer rejects the call with the signal reason, and counts as cancelled', async () => {
    let answer!: (stream: typeof hello) => void;
    const fetch = fakeFetch(() => new Promise((resolve) => (answer = resolve)));
    const controller = new AbortController();
    const call = fetch('https://api.example.com/chat', { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    answer(hello);
    await expect(fetch.cancelled).resolves.toBe(true);
    expect(fetch.calls[0]!.response).toBeUndefined();
  });

  it('a signal already aborted rejects at once', async () => {
    const fetch = fakeFetch(hello);
    await expect(fetch('https://api.example.com/chat', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(fetch.calls[0]!.cancelled).resolves.toBe(true);
  });

  it('a handler chooses the stream per request; a throw is the fetch failing (not cancelled)', async () => {
    const fetch = fakeFetch((request) => {
      if (new URL(request.url).pathname === '/down') throw new TypeError('fetch failed');
      return request.url.endsWith('/limited') ? errorPage : hello;
    });
    expect(await contentOf(fromResponse(await fetch('/chat')))).toBe('Hello, world');
    const { error } = await collect(fromResponse(await fetch('/limited')));
    expect(error).toBeInstanceOf(ProviderError);
    await expect(fetch('/down')).rejects.toThrow(new TypeError('fetch failed'));
    expect(fetch.calls.map((call) => call.request.url)).toEqual([
      'http://localhost/chat',
      'http://localhost/limited',
      'http://localhost/down',
    ]);
    await expect(fetch.calls[2]!.cancelled).resolves.toBe(false);
  });

  it('with an error option, every body fails after its chunks: fromFetch gives the StreamClosedEarlyError', async () => {
    const fetch = fakeFetch(hello, { error: new TypeError('terminated') });
    jest.spyOn(globalThis, 'fetch').mockImplementation(fetch);
    const { error } = await collect(completion$('https://api.example.com/chat'));
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as StreamClosedEarlyError).cause).toEqual(new TypeError('terminated'));
  });
});

describe('fakeReadable, read by fromReadableStream', () => {
  it('is a real Readable with statusCode and headers, as an http.IncomingMessage', async () => {
    const readable = fakeReadable(hello);
    expect(readable).toBeInstanceOf(Readable);
    expect({ statusCode: readable.statusCode, headers: readable.headers }).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream' },
    });
    expect(await contentOf(fromReadableStream(readable))).toBe('Hello, world');
    expect(readable.bodyState).toBe('read');
    await expect(readable.cancelled).resolves.toBe(false);
  });

  it('unsubscribed after the first frame: destroyed before its end, cancelled true', async () => {
    const readable = fakeReadable(hello);
    await lastValueFrom(fromReadableStream(readable).pipe(decodeUtf8(), sseFrames(), take(1)));
    await expect(readable.cancelled).resolves.toBe(true);
    expect(readable.bodyState).toBe('cancelled');
  });

  it('an error status: fromReadableStream fails with the ProviderError its body carries', async () => {
    const { error } = await collect(fromReadableStream(fakeReadable(errorPage)));
    expect(error).toMatchObject({ name: 'ProviderError', status: 429, type: 'rate_limit_exceeded' });
  });

  it('a body that is not a stream: refused, and the stream destroyed (cancelled true)', async () => {
    const readable = fakeReadable(bodyStream('<html></html>', { contentType: 'text/html' }));
    const { error } = await collect(fromReadableStream(readable));
    expect(error).toBeInstanceOf(ProtocolError);
    await expect(readable.cancelled).resolves.toBe(true);
  });

  it("with an error after the chunks: a StreamClosedEarlyError whose cause is it (Node's Error: aborted)", async () => {
    const aborted = new Error('aborted');
    const readable = fakeReadable({ ...hello, chunks: hello.chunks.slice(0, 1) }, { error: aborted });
    const { values, error } = await collect(fromReadableStream(readable));
    expect(values).toHaveLength(1);
    expect(error).toMatchObject({ name: 'StreamClosedEarlyError', reason: 'transport', cause: aborted });
    expect(readable.bodyState).toBe('failed');
  });

  it('a stall stays open: fromReadableStream gives a StreamIdleError and destroys it', async () => {
    const readable = fakeReadable(stalled);
    const { values, error } = await collect(fromReadableStream(readable, { idleTimeout: 20 }));
    expect(values).toHaveLength(2);
    expect(error).toBeInstanceOf(StreamIdleError);
    await expect(readable.cancelled).resolves.toBe(true);
  });

  it('can be read as an async iterable, as any Readable', async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of fakeReadable(hello)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(Buffer.concat(hello.chunks).toString());
  });
});
