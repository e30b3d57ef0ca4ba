import { createRequire } from 'module';

/**
 * The `ws` package (a devDependency), typed by hand with the little the specs use: its types
 * (`@types/ws`) are not installed. The shapes are those of ws 8's README.
 */
export interface WsServerSocket {
  send(data: string | Uint8Array, options?: { binary?: boolean; fin?: boolean }, done?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  /** Drops the connection at once, with no close frame: the client sees code 1006. */
  terminate(): void;
  on(event: 'message', listener: (data: Uint8Array, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number) => void): this;
  readonly readyState: number;
}

export interface WsServer {
  address(): { port: number } | string | null;
  close(done?: (error?: Error) => void): void;
  on(
    event: 'connection',
    listener: (socket: WsServerSocket, request: { url?: string; headers: Record<string, string | string[] | undefined> }) => void,
  ): this;
  on(event: 'listening', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  readonly clients: Set<WsServerSocket>;
}

/** The W3C-style client `ws` exports, what RxJS's `webSocket` takes as `WebSocketCtor`. */
export type WsClientConstructor = new (url: string) => WebSocket;

interface WsPackage {
  readonly WebSocketServer: new (options: { host: string; port: number }) => WsServer;
  readonly WebSocket: WsClientConstructor;
}

export const ws = createRequire(__filename)('ws') as WsPackage;

/**
 * The client a spec reads through: Node's own `WebSocket` (global from Node 22), else `ws`'s, which
 * has the same interface (Node 20 has none without a flag).
 */
export const ClientWebSocket: WsClientConstructor = (globalThis as { WebSocket?: WsClientConstructor }).WebSocket ?? ws.WebSocket;

/** A `ws` server on a free port of 127.0.0.1, listening. */
export async function startWsServer(
  onConnection: (socket: WsServerSocket, path: string, headers: Record<string, string | string[] | undefined>) => void,
): Promise<{ server: WsServer; url: string }> {
  const server = new ws.WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    server.on('listening', resolve);
    server.on('error', reject);
  });
  server.on('connection', (socket, request) => onConnection(socket, request.url ?? '/', request.headers));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the ws server has no port');
  return { server, url: `ws://127.0.0.1:${address.port}` };
}

/** Closes the server and drops every connection it still has. */
export async function stopWsServer(server: WsServer): Promise<void> {
  for (const socket of server.clients) socket.terminate();
  await new Promise<void>((resolve, reject) => server.close((error) => (error === undefined ? resolve() : reject(error))));
}
