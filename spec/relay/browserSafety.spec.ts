import { concat, from, Observable, of, throwError } from 'rxjs';
import { ProviderError } from '../../src/errors/errors';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { RelayErrorContext, RelayReport, StreamRelay, StreamRelayOptions } from '../../src/relay/StreamRelay';
import { StreamStore } from '../../src/relay/StreamStore';
import { ChatEvent } from '../../src/types/events';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { toUiMessageStream } from '../../src/ui/toUiMessageStream';
import { UiMessageChunk } from '../../src/ui/uiMessageChunks';
import { collect, collectSync, Outcome } from '../support/collect';
import { framesOf, readWhole, RelayHarness, startHarness } from '../support/relayHarness';

// What a browser reads of a failure: the error's codes and a fixed message, never the provider's
// own text (an internal gateway's HTML page, an organization id, a key's tail) nor the store
// client's (host and port). The raw error goes to the server's hook; exposing it is an option.

jest.setTimeout(30_000);

/** An internal gateway's error page, as a provider's 502 may carry it. */
const GATEWAY_PAGE =
  'the provider answered HTTP 502: <html><body><h1>502 Bad Gateway</h1>' +
  '<p>upstream gw-7.internal.corp (10.20.30.40:8443) refused</p></body></html>';
const INTERNALS = ['10.20.30.40', 'gw-7.internal.corp', '<html'];

const start: ChatEvent = { type: 'start', id: 'r1', model: 'm' };
const hello: ChatEvent = { type: 'content', choice: 0, text: 'Hel' };

/** A reply that fails after two events with `error`. */
const failing = (error: unknown): Observable<ChatEvent> =>
  concat(
    from([start, hello]),
    throwError(() => error),
  );

let harness: RelayHarness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

/** The errors the relay's hook was told of. */
type Told = Array<{ error: unknown; streamId: string; context: RelayErrorContext }>;

/** A relay whose hook records what it is told, serving `POST /` (start) and `GET /chat/:id` (serve). */
function relayOn(told: Told, options: StreamRelayOptions = {}, source: () => Observable<ChatEvent>): Array<Promise<Outcome<RelayReport>>> {
  const relay = new StreamRelay({
    store: new MemoryStreamStore(),
    ...options,
    onError: (error, streamId, context) => told.push({ error, streamId, context }),
  });
  const reports: Array<Promise<Outcome<RelayReport>>> = [];
  harness.handle((request, response) => {
    const url = new URL(request.url ?? '/', 'http://relay');
    const streamId = /^\/chat\/([^/]+)/.exec(url.pathname)?.[1];
    const format = url.searchParams.get('format') === 'ui-message-stream' ? 'ui-message-stream' : 'chat-events';
    reports.push(
      collect(
        streamId === undefined
          ? relay.start(source, response, { streamId: 'safe-1', format })
          : relay.serve(streamId, response, { format }),
      ),
    );
  });
  return reports;
}

const expectNoInternals = (text: string, internals: readonly string[] = INTERNALS): void => {
  for (const internal of internals) expect({ internal, found: text.includes(internal) }).toEqual({ internal, found: false });
};

describe('StreamRelay, chat-events format', () => {
  it("a provider's error page reaches the first client and a resumed one as codes and a fixed message; the hook gets it", async () => {
    const told: Told = [];
    const failure = new ProviderError(GATEWAY_PAGE, { status: 502, body: GATEWAY_PAGE });
    relayOn(told, {}, () => failing(failure));
    const first = await readWhole(`${harness.url}/`);
    const resumed = await readWhole(`${harness.url}/chat/safe-1`);
    for (const { text } of [first, resumed]) {
      expectNoInternals(text);
      const error = framesOf(text).find((frame) => frame.event === 'error');
      expect(JSON.parse(error!.data)).toEqual({
        name: 'ProviderError',
        reason: 'http-status',
        status: 502,
        message: 'the provider answered HTTP 502',
      });
    }
    expect(told).toEqual([{ error: failure, streamId: 'safe-1', context: { during: 'produce' } }]);
  });

  it("a store's failure while serving (a Redis client's message: host, port) reaches the client as reason store", async () => {
    const told: Told = [];
    const memory = new MemoryStreamStore();
    const refused = new Error('connect ECONNREFUSED 10.9.8.7:6379 (redis-primary.internal)');
    // The store answers the state, then its connection fails when the entries are read.
    const store: StreamStore = {
      timing: memory.timing,
      create: (id) => memory.create(id),
      append: (id, entries) => memory.append(id, entries),
      beat: (id) => memory.beat(id),
      requestStop: (id) => memory.requestStop(id),
      state: (id) => memory.state(id),
      read: () => Promise.reject(refused),
    };
    const relay = new StreamRelay({ store, onError: (error, streamId, context) => told.push({ error, streamId, context }) });
    await memory.create('safe-2');
    await memory.append('safe-2', [{ id: 1, kind: 'event', type: 'start', data: JSON.stringify(start) }]);
    let served!: Promise<Outcome<RelayReport>>;
    harness.handle((_request, response) => (served = collect(relay.serve('safe-2', response))));
    const { text } = await readWhole(`${harness.url}/chat/safe-2`);
    expectNoInternals(text, ['10.9.8.7', '6379', 'redis-primary', 'ECONNREFUSED']);
    const error = framesOf(text).find((frame) => frame.event === 'error');
    expect(JSON.parse(error!.data)).toEqual({
      name: 'StreamClosedEarlyError',
      reason: 'store',
      message: 'the stream store failed before the reply ended',
    });
    const { error: failed } = await served;
    expect((failed as Error).message).toContain('10.9.8.7:6379');
    expect(told).toHaveLength(1);
    expect(told[0]!.context).toEqual({ during: 'serve' });
    expect((told[0]!.error as Error).message).toContain('10.9.8.7:6379');
  });

  it("exposeErrors: true sends the error's own message (an explicit opt-in)", async () => {
    relayOn([], { exposeErrors: true }, () => failing(new ProviderError(GATEWAY_PAGE, { status: 502 })));
    const { text } = await readWhole(`${harness.url}/`);
    const error = framesOf(text).find((frame) => frame.event === 'error');
    expect(JSON.parse(error!.data)).toMatchObject({ name: 'ProviderError', status: 502, message: GATEWAY_PAGE });
  });
});

describe('StreamRelay, ui-message-stream format', () => {
  it("the error chunk's errorText is fixed text and codes, for the first client and a resumed one", async () => {
    const failure = new ProviderError('Rate limit reached for gpt-4o in organization org-Q7xLm2Vb9 on tokens per min', { status: 429 });
    relayOn([], {}, () => failing(failure));
    const first = await readWhole(`${harness.url}/?format=ui-message-stream`);
    const resumed = await readWhole(`${harness.url}/chat/safe-1?format=ui-message-stream`);
    for (const { text } of [first, resumed]) {
      expectNoInternals(text, ['org-Q7xLm2Vb9', 'Rate limit reached']);
      const chunks = framesOf(text)
        .filter((frame) => frame.data !== '[DONE]')
        .map((frame) => JSON.parse(frame.data) as UiMessageChunk);
      expect(chunks.at(-1)).toEqual({ type: 'error', errorText: 'the provider answered HTTP 429 (ProviderError, http-status)' });
    }
  });
});

describe('toMessageEvents (what a NestJS @Sse() handler returns)', () => {
  const keyError = (): ProviderError =>
    new ProviderError('Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform', {
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });

  it("a 401 naming the key's tail reaches the client as its codes; onError gets it whole", () => {
    const told: unknown[] = [];
    const failure = keyError();
    const { values } = collectSync(
      concat(
        of(start),
        throwError(() => failure),
      ).pipe(toMessageEvents({ onError: (error) => told.push(error) })),
    );
    const last = values.at(-1)!;
    expect(last.type).toBe('error');
    expect(last.data).not.toContain('abcd');
    expect(JSON.parse(last.data)).toEqual({
      name: 'ProviderError',
      reason: 'http-status',
      message: 'the provider answered HTTP 401',
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
    expect(told).toEqual([failure]);
  });

  it('exposeErrors: true sends the message as it was', () => {
    const { values } = collectSync(throwError(() => keyError()).pipe(toMessageEvents({ exposeErrors: true })));
    expect(JSON.parse(values[0]!.data)).toMatchObject({ message: keyError().message });
  });
});

describe("toUiMessageStream's default errorText", () => {
  it('names no organization, nor an internal host of an error that is not the library’s; onError gets both whole', () => {
    const told: unknown[] = [];
    const failures = [
      new ProviderError('Rate limit reached for gpt-4o in organization org-Q7xLm2Vb9 on tokens per min', { status: 429 }),
      new Error('connect ECONNREFUSED 10.0.0.7:443'),
    ];
    const texts = failures.map((failure) => {
      const { values } = collectSync(throwError(() => failure).pipe(toUiMessageStream({ onError: (error) => told.push(error) })));
      const last = values.at(-1)!;
      return last.type === 'error' ? last.errorText : '';
    });
    expect(texts).toEqual([
      'the provider answered HTTP 429 (ProviderError, http-status)',
      'the reply failed on its way before its end (StreamClosedEarlyError, transport)',
    ]);
    expect(told).toEqual(failures);
  });
});
