import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { IncomingMessage, ServerResponse, createServer, request as forward } from 'node:http';
import { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';

/** Options of `startStaticServer`. */
export interface StaticServerOptions {
  /** The repository root; only the folders in `SERVED` below it are reachable. */
  readonly root: string;
  /** The replay server's `http://127.0.0.1:<port>`; `/marbles/<path>` is forwarded to `<path>` there. */
  readonly replayUrl: string;
  /**
   * A stand-in provider's `http://127.0.0.1:<port>`: `/api/llm/<path>` is forwarded to `<path>` there
   * (the proxy of the app's own that keeps the model's key off the page, in the Angular tool loop).
   */
  readonly providerUrl?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /**
   * More folders to serve, each under its own URL prefix (`{ '/angular/': '/tmp/build/browser' }`):
   * a built app that lives outside the repository. A prefix is `/name/`.
   */
  readonly mounts?: Readonly<Record<string, string>>;
}

/** A running static server. */
export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/** What the browser example needs, and nothing else of the repository. */
const RXJS = 'node_modules/rxjs/';
const SERVED = ['examples/', 'dist/', RXJS, 'node_modules/tslib/'];
const REPLAY_PREFIX = '/marbles/';
const PROVIDER_PREFIX = '/api/llm/';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  // Browsers refuse to run a module script served with a type that is not JavaScript.
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * A local server on 127.0.0.1 for the browser example: static files from `examples/`, `dist/` and
 * the ESM builds of `rxjs` and `tslib`, and `/marbles/...` forwarded to the replay server, so that
 * the page fetches its recording from its own origin (no CORS). The forwarded body is piped through
 * chunk by chunk, so the replay server's pacing reaches the browser.
 */
export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const root = resolve(options.root);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith(REPLAY_PREFIX)) {
      proxy(request, response, `${options.replayUrl}${url.pathname.slice(REPLAY_PREFIX.length - 1)}${url.search}`);
    } else if (url.pathname.startsWith(PROVIDER_PREFIX) && options.providerUrl !== undefined) {
      proxy(request, response, `${options.providerUrl}${url.pathname.slice(PROVIDER_PREFIX.length - 1)}${url.search}`);
    } else if (url.pathname === '/') {
      response.writeHead(302, { location: '/examples/browser/' }).end();
    } else {
      const mount = Object.entries(options.mounts ?? {}).find(([prefix]) => url.pathname.startsWith(prefix));
      if (mount === undefined) void serveFile(root, SERVED, url.pathname, url, request, response);
      else void serveFile(resolve(mount[1]), [''], url.pathname.slice(mount[0].length - 1), url, request, response);
    }
  });
  await new Promise<void>((ready) => server.listen(options.port ?? 0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

function proxy(request: IncomingMessage, response: ServerResponse, target: string): void {
  const { host: _host, ...headers } = request.headers;
  const upstream = forward(target, { method: request.method ?? 'GET', headers }, (reply) => {
    response.writeHead(reply.statusCode ?? 502, reply.headers);
    response.flushHeaders();
    reply.pipe(response);
    // A reset upstream (`drop=N`) must reach the browser as a reset, not as a clean end.
    reply.on('close', () => {
      if (!reply.complete) response.destroy();
    });
  });
  upstream.on('error', () => (response.headersSent ? response.destroy() : response.writeHead(502).end()));
  // The browser went away (a cancelled fetch): cancel the upstream request too.
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}

/** Serves `path` from `root` if it lies in one of `served` (folders of `root`; `''` for all of it). */
async function serveFile(
  root: string,
  served: readonly string[],
  path: string,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  let file: string;
  try {
    file = normalize(join(root, decodeURIComponent(path)));
  } catch {
    response.writeHead(400).end();
    return;
  }
  // `normalize` has resolved any `..`, so a prefix check is enough to stay inside the served folders.
  const inside = (folder: string): boolean => {
    const base = join(root, folder);
    return file === base || file.startsWith(base.endsWith(sep) ? base : base + sep);
  };
  if (!served.some(inside)) {
    response.writeHead(404).end();
    return;
  }
  // rxjs 7's ESM builds import each other without extensions (`from './internal/Observable'`), which
  // a browser requests as is; resolve them the way bundlers and dev servers do. Every such import
  // names a `.js` file, and the URL keeps its folder, so the file's own relative imports still work.
  if (file.startsWith(join(root, RXJS)) && extname(file) === '') file += '.js';
  try {
    if ((await stat(file)).isDirectory()) {
      if (!url.pathname.endsWith('/')) {
        response.writeHead(301, { location: `${url.pathname}/${url.search}` }).end();
        return;
      }
      file = join(file, 'index.html');
    }
    const { size } = await stat(file);
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': size,
      // A rebuilt dist/ must not be shadowed by a cached module.
      'cache-control': 'no-store',
    });
  } catch {
    response.writeHead(404).end();
    return;
  }
  if (request.method === 'HEAD') response.end();
  else
    createReadStream(file)
      .on('error', () => response.destroy())
      .pipe(response);
}

// By hand, after `npm run build`, with the replay server from the CommonJS build (ANGULAR_APP: the
// Angular example's built `browser/` folder, served under /angular/; see examples/angular/README.md):
//   npx ts-node -T -O '{"module":"commonjs","rootDir":"."}' spec/support/staticServer.ts
if (require.main === module) {
  // The built file, by `require`: it ships no types, and ts-node cannot load the sources' `.js` imports.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startReplayServer } = require('../../dist/cjs/cli/replayServer.js') as typeof import('../../src/cli/replayServer');
  void (async () => {
    const replay = await startReplayServer();
    const angular = process.env['ANGULAR_APP'];
    const site = await startStaticServer({
      root: join(__dirname, '..', '..'),
      replayUrl: replay.url,
      port: Number(process.env['PORT'] ?? 0),
      mounts: angular === undefined ? {} : { '/angular/': angular },
    });
    const query = '?recording=/dialects/llamacpp-chat.sse&chunk=7&delay=20';
    process.stdout.write(`open ${site.url}/examples/browser/${query}\n`);
    if (angular !== undefined) process.stdout.write(`open ${site.url}/angular/${query}\n`);
  })();
}
