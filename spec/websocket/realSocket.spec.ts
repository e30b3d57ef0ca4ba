import { Observable, catchError, lastValueFrom, map, mergeMap, of, take, toArray } from 'rxjs';
import { webSocket } from 'rxjs/webSocket';
import { responsesSocketReplies } from '../../src/websocket/responsesSocketReplies';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';
import { Completion } from '../../src/types/completion';
import { ClientWebSocket, WsServer, WsServerSocket, startWsServer, stopWsServer } from '../support/wsPackage';
import { completed, created, messageAdded, text, textDelta, wsError } from './responsesEvents';

// A real WebSocket server (the `ws` package) on a free port of 127.0.0.1, and the client through
// Node's own WebSocket (Node 22+; `ws`'s client on Node 20), wrapped by RxJS's `webSocket`, as an
// Angular app reads the Responses API.

/** Sends one message as fragments (continuation frames), cut at `cuts` (byte offsets), each in a write of its own. */
async function sendInPieces(socket: WsServerSocket, message: string, cuts: number[]): Promise<void> {
  const bytes = Buffer.from(message, 'utf8');
  const bounds = [0, ...cuts.filter((cut) => cut > 0 && cut < bytes.length), bytes.length];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const fin = i + 2 === bounds.length;
    await new Promise<void>((resolve, reject) =>
      socket.send(bytes.subarray(bounds[i], bounds[i + 1]), { binary: false, fin }, (error) => (error ? reject(error) : resolve())),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Cuts inside the first character of more than one byte (after its first byte), and at a third of the message. */
function cutsOf(message: string): number[] {
  const bytes = Buffer.from(message, 'utf8');
  const multiByte = bytes.findIndex((byte) => byte >= 0x80);
  return [Math.floor(bytes.length / 3), ...(multiByte >= 0 ? [multiByte + 1] : [])].sort((a, b) => a - b);
}

/** The `response.create`s a connection received, in order. */
function onCreates(socket: WsServerSocket, count: number, then: (creates: { stream_id?: string }[]) => Promise<void>): void {
  const creates: { stream_id?: string }[] = [];
  socket.on('message', (data) => {
    creates.push(JSON.parse(Buffer.from(data).toString('utf8')) as { stream_id?: string });
    if (creates.length === count) void then(creates);
  });
}

/** What each path of the test server does once it has its requests. */
const SCRIPTS: Record<string, (socket: WsServerSocket) => void> = {
  // Two responses on two lanes, their events interleaved, every message sent in pieces.
  '/interleaved': (socket) =>
    onCreates(socket, 2, async () => {
      const events = [
        text(created('resp_A', 0, 'a')),
        text(created('resp_B', 0, 'b')),
        text(messageAdded('msg_A', 1, 'a')),
        text(messageAdded('msg_B', 1, 'b')),
        text(textDelta('msg_A', 'Grüße ', 2, 'a')),
        text(textDelta('msg_B', 'Hello 👋', 2, 'b')),
        text(textDelta('msg_A', 'aus Köln', 3, 'a')),
        text(completed('resp_B', 3, 'b')),
        text(completed('resp_A', 4, 'a')),
      ];
      for (const event of events) await sendInPieces(socket, event, cutsOf(event));
    }),
  // A reply cut by a clean close (code 1000): the server went away mid-reply.
  '/closed': (socket) =>
    onCreates(socket, 1, async () => {
      for (const event of [text(created('resp_A')), text(messageAdded('msg_A', 1)), text(textDelta('msg_A', 'Hal', 2))]) {
        await sendInPieces(socket, event, cutsOf(event));
      }
      socket.close(1000, 'bye');
    }),
  // A reply cut by a dropped connection (no close frame: code 1006).
  '/dropped': (socket) =>
    onCreates(socket, 1, async () => {
      for (const event of [text(created('resp_A')), text(messageAdded('msg_A', 1)), text(textDelta('msg_A', 'Hal', 2))]) {
        await sendInPieces(socket, event, cutsOf(event));
      }
      socket.terminate();
    }),
  // A refused request: an error event, no response.
  '/refused': (socket) =>
    onCreates(socket, 1, () => sendInPieces(socket, text(wsError('model_not_found', 'The model `gpt-x` does not exist')), [])),
};

type Outcome =
  { readonly completion: Completion } | { readonly error: string; readonly reason: string | undefined; readonly partial: string | null };

/** Opens a socket to `path`, sends the requests, and reads `count` replies to their ends. */
function readReplies(
  url: string,
  path: string,
  requests: object[],
  count: number,
): Promise<{ streamId: string | undefined; outcome: Outcome }[]> {
  const socket = webSocket<unknown>({
    url: `${url}${path}`,
    WebSocketCtor: ClientWebSocket,
    deserializer: (event) => event.data as unknown,
  });
  const replies$: Observable<{ streamId: string | undefined; outcome: Outcome }> = socket.pipe(
    responsesSocketReplies(),
    mergeMap((item) =>
      item.kind !== 'reply'
        ? []
        : item.frames.pipe(
            assembleChunks({ dialect: 'openai-responses' }),
            groupToolCallsByIndex(),
            finalizeCompletion(),
            map((completion): Outcome => ({ completion })),
            catchError((error: Error & { reason?: string; partial?: unknown }) =>
              of({ error: error.name, reason: error.reason, partial: isCompletionSnapshot(error.partial) ? error.partial.content : null }),
            ),
            map((outcome) => ({ streamId: item.streamId, outcome })),
          ),
    ),
    take(count),
  );
  const done = lastValueFrom(replies$.pipe(toArray()));
  for (const request of requests) socket.next(request);
  return done;
}

describe('responsesSocketReplies over a real WebSocket', () => {
  let server: WsServer;
  let url: string;
  beforeAll(async () => {
    ({ server, url } = await startWsServer((socket, path) => SCRIPTS[path]?.(socket)));
  });
  afterAll(() => stopWsServer(server));

  it('reads two responses interleaved on one socket, every message in pieces, each into its own completion', async () => {
    const requests = [
      { type: 'response.create', model: 'gpt-5.4', input: 'Greet me in German', stream_id: 'a' },
      { type: 'response.create', model: 'gpt-5.4', input: 'Greet me in English', stream_id: 'b' },
    ];
    const replies = await readReplies(url, '/interleaved', requests, 2);
    const byLane = Object.fromEntries(replies.map(({ streamId, outcome }) => [streamId, outcome]));
    expect(byLane['a']).toEqual({ completion: expect.objectContaining({ id: 'resp_A', content: 'Grüße aus Köln', finishReason: 'stop' }) });
    expect(byLane['b']).toEqual({ completion: expect.objectContaining({ id: 'resp_B', content: 'Hello 👋', finishReason: 'stop' }) });
    expect(replies.map(({ outcome }) => ('completion' in outcome ? outcome.completion.usage : null))).toEqual([
      { promptTokens: 12, completionTokens: 5, totalTokens: 17, cachedPromptTokens: 0, reasoningTokens: 0 },
      { promptTokens: 12, completionTokens: 5, totalTokens: 17, cachedPromptTokens: 0, reasoningTokens: 0 },
    ]);
  });

  it('makes a reply the server closed mid-way (code 1000) a StreamClosedEarlyError with its partial', async () => {
    const replies = await readReplies(url, '/closed', [{ type: 'response.create', model: 'gpt-5.4', input: 'Hi' }], 1);
    expect(replies).toEqual([
      { streamId: undefined, outcome: { error: 'StreamClosedEarlyError', reason: 'no-end-signal', partial: 'Hal' } },
    ]);
  });

  it('makes a reply whose connection dropped (code 1006) a StreamClosedEarlyError, transport, with its partial', async () => {
    const replies = await readReplies(url, '/dropped', [{ type: 'response.create', model: 'gpt-5.4', input: 'Hi' }], 1);
    expect(replies).toEqual([{ streamId: undefined, outcome: { error: 'StreamClosedEarlyError', reason: 'transport', partial: 'Hal' } }]);
  });

  it('answers a refused request with a ProviderError', async () => {
    const replies = await readReplies(url, '/refused', [{ type: 'response.create', model: 'gpt-x', input: 'Hi' }], 1);
    expect(replies).toEqual([{ streamId: undefined, outcome: { error: 'ProviderError', reason: 'in-stream', partial: null } }]);
  });
});
