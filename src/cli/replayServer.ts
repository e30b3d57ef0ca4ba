import { readFile } from 'node:fs/promises';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { marblesFolder } from './paths.js';

/** What the server saw of one request, for tests that check the server side. */
export interface ReplayedRequest {
  readonly method: string;
  readonly path: string;
  /** The query string, without its `?` (`''` when there was none). */
  readonly query: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** Bytes of the recording written so far. */
  bytesSent: number;
  /** When the connection closed (`performance.now()`), or undefined while it is open. */
  closedAt: number | undefined;
  /** True when the whole response was sent; false when the client went away first. */
  finished: boolean;
  /** Resolves when the connection has closed. */
  readonly closed: Promise<void>;
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * The requests so far, in arrival order: every one, up to the last 10,000 and 16 Mi characters of bodies
   * (the oldest go first), so that a server left running (the demo upstream of an example) does not
   * grow without end.
   */
  readonly requests: readonly ReplayedRequest[];
  close(): Promise<void>;
}

/** Options of `startReplayServer`. */
export interface ReplayServerOptions {
  /** The folder recordings are served from (default: this package's `marbles/`). */
  readonly root?: string;
  /** Called with a failure of the server itself while it serves a request (default: one line on stderr). */
  readonly onError?: (error: unknown) => void;
}

const CONTENT_TYPES: Record<string, string> = {
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/x-ndjson',
};

/**
 * A local HTTP server, on 127.0.0.1 and a free port, that streams any recording under `marbles/` as a
 * provider would: `GET` or `POST /<path>` (for example `/openai/text.sse`) with query parameters
 *
 * - `chunk=N`: write N bytes at a time (default 64), `delay=MS` between writes (default 0);
 * - `truncate=N`: send only the first N bytes, then end the response cleanly (a cut-off reply that
 *   looks complete to HTTP);
 * - `stall=N`: send the first N bytes, then send nothing more and keep the connection open;
 * - `drop=N`: send the first N bytes, then close the connection without ending the response (the
 *   body's chunked encoding never gets its last chunk: what a crashed upstream leaves);
 * - `reset=N`: send the first N bytes, then reset the connection (a TCP RST, as a proxy or a load
 *   balancer that kills the socket sends);
 * - `dropOnce=N`: like `drop`, but only for the first request of this path and query (on this
 *   server), so that a client which reconnects gets the whole stream the second time;
 * - `ids=1` (SSE recordings only): number the events `id: 1`, `id: 2`, ... as a resumable server
 *   does, and honour a `Last-Event-ID` request header by sending only the events after that id
 *   (blocks without data, such as keep-alive comments, are sent unnumbered where they stand);
 * - `retry=MS` (SSE recordings only): begin the body with a `retry: MS` block, the server's
 *   reconnection time;
 * - `status=CODE`: answer with that status and a JSON error body instead;
 * - `type=...`: override the content type.
 *
 * Byte counts (`truncate`, `stall`, `drop`, `reset`, `dropOnce`) count the body as sent, `id` and `retry` lines
 * included. A request it cannot act on (a number that is not a whole number, a status outside
 * 200-599, a content type with a line end, a malformed percent-encoding, a request target that is no
 * URL) gets a 400 with a short plain-text message, a body over 1 MiB a 413; the server goes on serving.
 * It records each request, when its connection closed and whether the response finished, so that a
 * test can prove from the server side that a client cancelled. Used by the specs and the demo.
 *
 * @example
 * ```ts
 * const server = await startReplayServer();
 * const response = await fetch(`${server.url}/openai/text.sse?chunk=7&delay=5`);
 * await server.close();
 * ```
 */
export async function startReplayServer(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const root = options.root ?? marblesFolder();
  const onError = options.onError ?? ((error: unknown) => void process.stderr.write(`replay server: ${String(error)}\n`));
  const requests: ReplayedRequest[] = [];
  // Path and query of every request that `dropOnce` has already cut: the next one goes through.
  const droppedOnce = new Set<string>();
  const server: Server = createServer((request, response) => {
    let body = '';
    let received = 0;
    let tooLarge = false;
    request.setEncoding('utf8');
    request.on('data', (piece: string) => {
      if (tooLarge) return;
      body += piece;
      received += Buffer.byteLength(piece);
      if (received > MAX_BODY_BYTES) {
        tooLarge = true;
        body = '';
        // Answered at once, and the connection closed after, so that the rest is not read.
        response.setHeader('connection', 'close');
        refuse(response, 413, `request body over ${MAX_BODY_BYTES} bytes`);
      }
    });
    request.on('end', () => {
      if (tooLarge) return;
      serve(root, request, response, body, requests, droppedOnce).catch((error: unknown) => {
        // Every input is checked before it is used, so this is a bug of the server: it is reported,
        // the client still gets an answer (or, once the body has begun, a closed connection), and
        // the server goes on serving the others.
        onError(error);
        if (!response.headersSent) refuse(response, 500, 'the replay server failed on this request');
        else response.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How many requests the server keeps for the tests to read, and how many characters of their bodies. */
const MAX_KEPT_REQUESTS = 10_000;
const MAX_KEPT_BODY_CHARACTERS = 16 * 1024 * 1024;

/** Adds `record` to `requests`, then lets the oldest go until both caps hold (the newest stays). */
function keep(requests: ReplayedRequest[], record: ReplayedRequest): void {
  requests.push(record);
  let bodyCharacters = requests.reduce((sum, kept) => sum + kept.body.length, 0);
  while (requests.length > 1 && (requests.length > MAX_KEPT_REQUESTS || bodyCharacters > MAX_KEPT_BODY_CHARACTERS)) {
    bodyCharacters -= requests.shift()!.body.length;
  }
}

/** The largest request body the server reads (the bodies of chat requests are far smaller). */
const MAX_BODY_BYTES = 1024 * 1024;

/** Answers with `status` and a short plain-text message. */
function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
  response.end(`${message}\n`);
}

/** The query parameters that take a whole number of bytes or milliseconds. */
const COUNT_PARAMETERS = ['chunk', 'delay', 'truncate', 'stall', 'drop', 'reset', 'dropOnce', 'retry'] as const;

type CountParameter = (typeof COUNT_PARAMETERS)[number];

/** What the query asks for, checked: every value is one the server can act on. */
interface ReplayParameters {
  readonly counts: Readonly<Partial<Record<CountParameter, number>>>;
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly ids: boolean;
}

/** A header value Node writes: tabs and visible Latin-1 characters, no line ends or controls. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Reads the query, or says (in a few words, without echoing the value) which parameter is wrong. */
function parametersOf(query: URLSearchParams): ReplayParameters | string {
  const counts: Partial<Record<CountParameter, number>> = {};
  for (const name of COUNT_PARAMETERS) {
    const value = query.get(name);
    if (value === null) continue;
    // Digits only: `Number` would take '', 'abc' (NaN), '1e400' (Infinity), '-1' and '0x10'.
    if (!/^[0-9]{1,15}$/.test(value)) return `${name} must be a whole number of at most 15 digits`;
    counts[name] = Number(value);
  }
  const statusText = query.get('status');
  let status: number | undefined;
  if (statusText !== null) {
    // A 1xx is not a final answer: a client would wait for the one after it forever.
    if (!/^[2-5][0-9][0-9]$/.test(statusText)) return 'status must be an HTTP status from 200 to 599';
    status = Number(statusText);
  }
  const type = query.get('type') ?? undefined;
  // A line end would split the header (or inject another); Node refuses any such value with a throw.
  if (type !== undefined && (type === '' || type.length > 200 || !HEADER_VALUE.test(type))) {
    return 'type must be a content type of at most 200 characters, without line ends or control characters';
  }
  return { counts, status, type, ids: query.get('ids') === '1' };
}

async function serve(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
  requests: ReplayedRequest[],
  droppedOnce: Set<string>,
): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(request.url ?? '/', 'http://localhost');
  } catch {
    // A request target such as `//[` is no URL at all.
  }
  let markClosed!: () => void;
  const record: ReplayedRequest = {
    method: request.method ?? 'GET',
    path: url?.pathname ?? request.url ?? '',
    query: url?.search.slice(1) ?? '',
    headers: request.headers,
    body,
    bytesSent: 0,
    closedAt: undefined,
    finished: false,
    closed: new Promise<void>((resolve) => (markClosed = resolve)),
  };
  keep(requests, record);
  response.on('close', () => {
    record.closedAt = performance.now();
    record.finished = response.writableFinished;
    markClosed();
  });
  if (url === undefined) {
    refuse(response, 400, 'the request target is not a URL');
    return;
  }
  const parameters = parametersOf(url.searchParams);
  if (typeof parameters === 'string') {
    refuse(response, 400, parameters);
    return;
  }
  const { status } = parameters;
  if (status !== undefined && status !== 200) {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `replayed error ${status}`, type: 'replay_error', code: status } }));
    return;
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    refuse(response, 400, 'the path has a malformed percent-encoding');
    return;
  }
  // Serve only files under the root: a path with `..` must not reach anything else.
  const file = normalize(join(root, path));
  if (!file.startsWith(normalize(root) + sep)) {
    response.writeHead(403).end();
    return;
  }
  let recording: Uint8Array;
  try {
    recording = await readFile(file);
  } catch {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `no recording at ${url.pathname}` } }));
    return;
  }
  const extension = file.slice(file.lastIndexOf('.') + 1);
  response.writeHead(200, {
    'content-type': parameters.type ?? CONTENT_TYPES[extension] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();

  const number = (name: CountParameter): number | undefined => parameters.counts[name];
  // `ids` and `retry` are SSE fields: an NDJSON body is sent as recorded.
  const retry = extension === 'sse' ? number('retry') : undefined;
  const lastEventId = request.headers['last-event-id'];
  const resumeAfter = typeof lastEventId === 'string' && /^[0-9]+$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : 0;
  const bytes =
    parameters.ids && extension === 'sse'
      ? withEventIds(recording, resumeAfter, retry)
      : retry === undefined
        ? recording
        : concatBytes([ascii(`retry: ${retry}\n\n`), recording]);

  const chunk = Math.max(1, number('chunk') ?? 64);
  // Node's timers take at most 2^31 - 1 ms, and take a longer delay for 1 ms.
  const delay = Math.min(number('delay') ?? 0, MAX_DELAY_MS);
  const truncate = number('truncate');
  const stall = number('stall');
  let drop = number('drop');
  const reset = number('reset');
  const dropOnce = number('dropOnce');
  if (dropOnce !== undefined && drop === undefined && !droppedOnce.has(url.pathname + url.search)) {
    // Capped, oldest first out: a long-running server (the demo upstream of an example) must not grow without end.
    if (droppedOnce.size >= MAX_DROPPED_ONCE) droppedOnce.delete(droppedOnce.values().next().value as string);
    droppedOnce.add(url.pathname + url.search);
    drop = dropOnce;
  }
  const limit = Math.min(bytes.length, truncate ?? Infinity, stall ?? Infinity, drop ?? Infinity, reset ?? Infinity);
  let lastWrite: Promise<void> = Promise.resolve();
  for (let start = 0; start < limit && !response.destroyed; start += chunk) {
    const piece = bytes.subarray(start, Math.min(start + chunk, limit));
    lastWrite = new Promise<void>((resolve) => response.write(piece, () => resolve()));
    record.bytesSent += piece.length;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
  if (response.destroyed) return;
  if (stall !== undefined && stall < bytes.length) return; // keep the connection open, send nothing
  if (drop !== undefined && drop < bytes.length) {
    // Destroyed at once, the socket would discard what is still buffered, and the client would get
    // fewer bytes than `bytesSent` says: close only once the last piece has left.
    await lastWrite;
    response.destroy();
    return;
  }
  if (reset !== undefined && reset < bytes.length) {
    await lastWrite;
    // A client that receives the RST before it has read what came before may lose those bytes in its
    // kernel: give it a moment to read them, as a real client reading a slow stream would have had.
    await new Promise((resolve) => setTimeout(resolve, RESET_PAUSE_MS));
    if (!response.destroyed) response.socket?.resetAndDestroy();
    return;
  }
  response.end();
}

/** How many paths and queries `dropOnce` remembers. */
const MAX_DROPPED_ONCE = 10_000;

/** The longest `delay` the server waits between writes (Node's timers take no more). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** How long `reset` waits between its last write and the reset. */
const RESET_PAUSE_MS = 50;

const LF = 0x0a;
const CR = 0x0d;

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** True when the line `bytes[start, end)` is a `data` field (`data:...` or a bare `data`). */
function isDataLine(bytes: Uint8Array, start: number, end: number): boolean {
  const name = [0x64, 0x61, 0x74, 0x61]; // "data"
  if (end - start < 4 || name.some((byte, i) => bytes[start + i] !== byte)) return false;
  return end - start === 4 || bytes[start + 4] === 0x3a;
}

/**
 * The recording as a resumable server sends it: each block with a data line (an event the client
 * will dispatch) gets `id: <n>` before it, numbered from 1, and only the blocks after event
 * `after` are kept. The bytes of every block are left as recorded (CRLF stays CRLF: an LF-ended
 * `id` line is valid in any stream, since SSE allows mixed line ends).
 */
function withEventIds(recording: Uint8Array, after: number, retry: number | undefined): Uint8Array {
  const parts: Uint8Array[] = [];
  let start = 0;
  // A byte-order mark belongs before everything, or the `id` line would push it into the stream.
  if (recording[0] === 0xef && recording[1] === 0xbb && recording[2] === 0xbf) {
    parts.push(recording.subarray(0, 3));
    start = 3;
  }
  if (retry !== undefined) parts.push(ascii(`retry: ${retry}\n\n`));
  let events = 0;
  let blockStart = start;
  let hasData = false;
  const endBlock = (end: number): void => {
    if (end === blockStart) return;
    if (hasData) {
      events++;
      if (events > after) parts.push(ascii(`id: ${events}\n`), recording.subarray(blockStart, end));
    } else if (events >= after) {
      parts.push(recording.subarray(blockStart, end));
    }
    blockStart = end;
    hasData = false;
  };
  let lineStart = start;
  for (let i = start; i < recording.length; i++) {
    const byte = recording[i];
    if (byte !== LF && byte !== CR) continue;
    const lineEnd = i;
    if (byte === CR && recording[i + 1] === LF) i++;
    if (isDataLine(recording, lineStart, lineEnd)) hasData = true;
    const blank = lineEnd === lineStart;
    lineStart = i + 1;
    if (blank) endBlock(lineStart);
  }
  // The last block may lack its blank line, or its line end (a truncated recording).
  if (lineStart < recording.length && isDataLine(recording, lineStart, recording.length)) hasData = true;
  endBlock(recording.length);
  return concatBytes(parts);
}
