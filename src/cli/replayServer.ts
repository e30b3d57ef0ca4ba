import { readFile } from 'node:fs/promises';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { marblesFolder } from './paths.js';

/** What the server saw of one request, for tests that check the server side. */
export interface ReplayedRequest {
  readonly method: string;
  readonly path: string;
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
 * - `drop=N`: send the first N bytes, then destroy the connection (a reset);
 * - `status=CODE`: answer with that status and a JSON error body instead;
 * - `type=...`: override the content type.
 *
 * It records each request, when its connection closed and whether the response finished, so that
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
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (piece: string) => (body += piece));
    request.on('end', () => {
      void serve(root, request, response, body, requests);
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
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  let markClosed!: () => void;
  const record: ReplayedRequest = {
    method: request.method ?? 'GET',
    path: url.pathname,
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
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
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

  const chunk = Math.max(1, number('chunk') ?? 64);
  const delay = number('delay') ?? 0;
  const truncate = number('truncate');
  const stall = number('stall');
  const drop = number('drop');
  const limit = Math.min(bytes.length, truncate ?? Infinity, stall ?? Infinity, drop ?? Infinity);
  for (let start = 0; start < limit && !response.destroyed; start += chunk) {
    const piece = bytes.subarray(start, Math.min(start + chunk, limit));
    response.write(piece);
    record.bytesSent += piece.length;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
  if (response.destroyed) return;
  if (stall !== undefined && stall < bytes.length) return; // keep the connection open, send nothing
  if (drop !== undefined && drop < bytes.length) {
    response.destroy();
    return;
  }
  response.end();
}
