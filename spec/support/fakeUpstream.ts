import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

// An OpenAI-compatible chat completions endpoint on 127.0.0.1 that streams a made-up reply and
// counts what it could write: the bytes it gave `write()`, how often `write()` answered false, and
// whether it is waiting for 'drain' now. The request body says what to stream (`reply` below).

/** What a request asks the fake to stream, in its body's `reply` field. */
export interface FakeReply {
  /** How many content events. */
  readonly events: number;
  /** Characters of text per event (default 20). */
  readonly size?: number;
  /** Milliseconds between events (default 0: as fast as the connection takes them). */
  readonly delayMs?: number;
}

/**
 * The messages that ask the fake for `reply`, for an app that passes on the browser's messages only:
 * the fake reads its reply from the last message's content when the body has no `reply` field.
 */
export function fakeMessages(reply: FakeReply): Array<{ role: 'user'; content: string }> {
  return [{ role: 'user', content: JSON.stringify({ reply }) }];
}

/** The reply a body asks for: its `reply` field, or the one in its last message (`fakeMessages`). */
function replyOf(body: { reply?: FakeReply; messages?: Array<{ content?: unknown }> }): FakeReply | undefined {
  if (body.reply !== undefined) return body.reply;
  const content = body.messages?.[body.messages.length - 1]?.content;
  return typeof content === 'string' ? (JSON.parse(content) as { reply?: FakeReply }).reply : undefined;
}

/** One request the fake served. */
export interface UpstreamRequest {
  readonly body: { reply: FakeReply } & Record<string, unknown>;
  /** The request's headers, as the fake received them. */
  readonly headers: IncomingMessage['headers'];
  /** Bytes given to `write()`. */
  offered: number;
  /** Bytes still in the response's own buffer (not yet handed to the kernel) when last looked at. */
  readonly buffered: () => number;
  /** Times `write()` answered false. */
  blockedWrites: number;
  /** Waiting for 'drain' now. */
  waitingForDrain: boolean;
  /** The whole reply was written. */
  finished: boolean;
  /** Resolves when the connection closed (at the end, or cut by the client). */
  readonly closed: Promise<void>;
  isClosed: boolean;
  /** The full text the reply carries, for comparison. */
  readonly text: string;
}

export interface FakeUpstream {
  readonly url: string;
  readonly requests: UpstreamRequest[];
  close(): Promise<void>;
}

/** The text of event `i` of a reply: distinct per event, so that a lost or doubled event shows. */
export function eventText(i: number, size: number): string {
  const head = `<${i}>`;
  return head + 'abcdefghijklmnopqrstuvwxyz0123456789 '.repeat(Math.ceil(size / 37)).slice(0, Math.max(0, size - head.length));
}

function chunk(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** Streams the reply a request asks for, as OpenAI's chat completions chunks, at the pace the connection allows. */
function serve(request: UpstreamRequest, response: ServerResponse): void {
  const { events, size = 20, delayMs = 0 } = request.body.reply;
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake' };
  const parts: string[] = [chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
  let i = 0;
  const write = (text: string): boolean => {
    request.offered += Buffer.byteLength(text);
    const ok = response.write(text);
    if (!ok) request.blockedWrites++;
    return ok;
  };
  const next = (): void => {
    if (request.isClosed) return;
    while (i < events) {
      const text =
        parts.shift() ?? chunk({ ...base, choices: [{ index: 0, delta: { content: eventText(i++, size) }, finish_reason: null }] });
      const ok = write(text);
      if (!ok) {
        request.waitingForDrain = true;
        response.once('drain', () => {
          request.waitingForDrain = false;
          next();
        });
        return;
      }
      if (delayMs > 0) {
        setTimeout(next, delayMs);
        return;
      }
    }
    write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    write('data: [DONE]\n\n');
    request.finished = true;
    response.end();
  };
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  next();
}

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: UpstreamRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (piece: Buffer) => (raw += piece.toString('utf8')));
    req.on('end', () => {
      let body: { reply: FakeReply } & Record<string, unknown>;
      try {
        const parsed = JSON.parse(raw) as { reply?: FakeReply; messages?: Array<{ content?: unknown }> } & Record<string, unknown>;
        const reply = replyOf(parsed);
        if (reply === undefined) throw new Error('no reply');
        body = { ...parsed, reply };
      } catch {
        res.writeHead(400).end('the body must be JSON with a reply');
        return;
      }
      const { events, size = 20 } = body.reply;
      let markClosed: () => void = () => undefined;
      const request: UpstreamRequest = {
        body,
        headers: req.headers,
        offered: 0,
        buffered: () => res.writableLength,
        blockedWrites: 0,
        waitingForDrain: false,
        finished: false,
        closed: new Promise((resolve) => (markClosed = resolve)),
        isClosed: false,
        text: Array.from({ length: events }, (_, i) => eventText(i, size)).join(''),
      };
      res.on('close', () => {
        request.isClosed = true;
        markClosed();
      });
      requests.push(request);
      serve(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
