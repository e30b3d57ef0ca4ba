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
  /** Every request so far, in arrival order. */
  readonly requests: readonly ReplayedRequest[];
  close(): Promise<void>;
}

/** Options of `startReplayServer`. */
export interface ReplayServerOptions {
  /** The folder recordings are served from (default: this package's `marbles/`). */
  readonly root?: string;
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
 * included. It records each request, when its connection closed and whether the response finished, so that
 * a test can prove from the server side that a client cancelled. Used by the specs and the demo.
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
  const requests: ReplayedRequest[] = [];
  // Path and query of every request that `dropOnce` has already cut: the next one goes through.
  const droppedOnce = new Set<string>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (piece: string) => (body += piece));
    request.on('end', () => {
      void serve(root, request, response, body, requests, droppedOnce);
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

async function serve(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
  requests: ReplayedRequest[],
  droppedOnce: Set<string>,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  let markClosed!: () => void;
  const record: ReplayedRequest = {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: url.search.slice(1),
    headers: request.headers,
    body,
    bytesSent: 0,
    closedAt: undefined,
    finished: false,
    closed: new Promise<void>((resolve) => (markClosed = resolve)),
  };
  requests.push(record);
  response.on('close', () => {
    record.closedAt = performance.now();
    record.finished = response.writableFinished;
    markClosed();
  });

  const number = (name: string): number | undefined => {
    const value = url.searchParams.get(name);
    return value === null ? undefined : Number(value);
  };
  const status = number('status');
  if (status !== undefined && status !== 200) {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `replayed error ${status}`, type: 'replay_error', code: status } }));
    return;
  }
  // Serve only files under the root: a path with `..` must not reach anything else.
  const file = normalize(join(root, decodeURIComponent(url.pathname)));
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
    'content-type': url.searchParams.get('type') ?? CONTENT_TYPES[extension] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();

  // `ids` and `retry` are SSE fields: an NDJSON body is sent as recorded.
  const retry = extension === 'sse' ? number('retry') : undefined;
  const lastEventId = request.headers['last-event-id'];
  const resumeAfter = typeof lastEventId === 'string' && /^[0-9]+$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : 0;
  const bytes =
    url.searchParams.get('ids') === '1' && extension === 'sse'
      ? withEventIds(recording, resumeAfter, retry)
      : retry === undefined
        ? recording
        : concatBytes([ascii(`retry: ${retry}\n\n`), recording]);

  const chunk = Math.max(1, number('chunk') ?? 64);
  const delay = number('delay') ?? 0;
  const truncate = number('truncate');
  const stall = number('stall');
  let drop = number('drop');
  const reset = number('reset');
  const dropOnce = number('dropOnce');
  if (dropOnce !== undefined && drop === undefined && !droppedOnce.has(url.pathname + url.search)) {
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
