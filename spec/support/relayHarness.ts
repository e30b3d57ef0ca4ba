import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { SseFrame, SseParser } from '../../src/frames/SseParser';

// A bare HTTP server on a free port of 127.0.0.1 whose next request goes to whatever handler the
// spec sets, for specs that drive the relay's library calls (`StreamRelay`, `sendSse`) over real
// sockets without the example app; and a client that reads a whole response.

export interface RelayHarness {
  readonly url: string;
  /** Who answers the requests from now on. */
  handle(handler: (request: IncomingMessage, response: ServerResponse) => void): void;
  close(): Promise<void>;
}

/** Starts the server; `close()` it in `afterAll`, whatever failed. */
export async function startHarness(): Promise<RelayHarness> {
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => {
    response.writeHead(500).end('no handler set');
  };
  const server: Server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handle: (next) => (handler = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A whole response: its status, headers and body. */
export interface ReadResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * Reads `url` to its end; rejects when no whole answer came within `limitMs` (a request left open
 * fails the spec instead of hanging it).
 */
export async function readWhole(url: string, init: RequestInit = {}, limitMs = 10_000): Promise<ReadResponse> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The SSE frames of a text, read by the library's own parser. */
export function framesOf(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = new SseParser((frame) => frames.push(frame));
  parser.push(text);
  return frames;
}
