// One instance of the relay's HTTP contract (the routes of examples/relay: POST /chat,
// GET /chat/:id/stream, POST /chat/:id/stop) in a process of its own, over the built package, with
// its store on the Redis client a user may have: the contract's specs run it once per engine and
// client (spec/support/relayContract.ts). Plain JavaScript on node:http, so that it starts fast.
// It differs from the example in what does not depend on the engine: no session, no NestJS.
//
// Environment: RELAY_CLIENT (ioredis, redis, redis4, ioredis-cluster, redis-cluster,
// redis4-cluster), REDIS_URL (one server) or REDIS_CLUSTER_URLS (comma-separated seeds),
// REDIS_PREFIX, UPSTREAM_URL, STORE_HEARTBEAT_INTERVAL, STORE_HEARTBEAT_TIMEOUT,
// RELAY_MAX_BUFFERED_BYTES, RELAY_STALL_TIMEOUT. Prints `relay listening on <url>` once it listens.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS script: the clients are loaded by the kind asked for */
const { createServer } = require('node:http');
const { fromFetch } = require('rxjs/fetch');
const { assembleChunks, decodeUtf8, fromResponse, sseFrames } = require('rxjs-llm-stream');
const { RedisStreamStore, SlowClientError, StreamRelay } = require('rxjs-llm-stream/relay');

const env = process.env;
const number = (name, fallback) => (env[name] ? Number(env[name]) : fallback);

/** The cluster's seed URLs, and their credentials for the clients that take them apart. */
function seeds() {
  const urls = (env.REDIS_CLUSTER_URLS || '').split(',').map((url) => url.trim());
  const first = new URL(urls[0]);
  const auth = {
    username: first.username ? decodeURIComponent(first.username) : undefined,
    password: first.password ? decodeURIComponent(first.password) : undefined,
  };
  return { urls, auth, tls: first.protocol === 'rediss:' };
}

/** The store's two clients (commands, and blocking reads), connected. */
async function connectClients(kind) {
  const logged = (client) => {
    // A client's error event without a listener would end the process: these are the server's log.
    client.on('error', (error) => console.warn(`redis (${kind}): ${error.message}`));
    return client;
  };
  switch (kind) {
    case 'ioredis': {
      const { default: Redis } = require('ioredis');
      const client = logged(new Redis(env.REDIS_URL));
      return [client, logged(client.duplicate())];
    }
    case 'ioredis-cluster': {
      const { Cluster } = require('ioredis');
      const { urls, auth, tls } = seeds();
      const nodes = urls.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || 6379) }));
      const client = logged(new Cluster(nodes, { redisOptions: { ...auth, ...(tls ? { tls: {} } : {}) } }));
      return [client, logged(client.duplicate())];
    }
    case 'redis':
    case 'redis4': {
      const { createClient } = require(kind === 'redis' ? 'redis' : 'redis4');
      const client = logged(createClient({ url: env.REDIS_URL }));
      await client.connect();
      const blocking = logged(client.duplicate());
      await blocking.connect();
      return [client, blocking];
    }
    case 'redis-cluster':
    case 'redis4-cluster': {
      const { createCluster } = require(kind === 'redis-cluster' ? 'redis' : 'redis4');
      const { urls } = seeds();
      const client = logged(createCluster({ rootNodes: urls.map((url) => ({ url })) }));
      await client.connect();
      const blocking = logged(client.duplicate());
      await blocking.connect();
      return [client, blocking];
    }
    default:
      throw new Error(`RELAY_CLIENT must name a Redis client, not ${JSON.stringify(kind)}`);
  }
}

/** The request's body, as JSON. */
function bodyOf(request) {
  return new Promise((resolve, reject) => {
    let raw = '';
    request.on('data', (piece) => (raw += piece.toString('utf8')));
    request.on('end', () => {
      try {
        resolve(JSON.parse(raw));
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

async function main() {
  const [client, blockingClient] = await connectClients(env.RELAY_CLIENT);
  const store = new RedisStreamStore({
    client,
    blockingClient,
    prefix: env.REDIS_PREFIX || undefined,
    heartbeatInterval: number('STORE_HEARTBEAT_INTERVAL', 1000),
    heartbeatTimeout: number('STORE_HEARTBEAT_TIMEOUT', 3000),
  });
  const relay = new StreamRelay({
    store,
    maxBufferedBytes: number('RELAY_MAX_BUFFERED_BYTES', 1024 * 1024),
    stallTimeout: number('RELAY_STALL_TIMEOUT', 30_000),
    onError: (error, streamId, { during }) => console.warn(`stream ${streamId} (${during}): ${error.message}`),
  });
  // The contract's slow-client spec waits for this line.
  const warn = (error) =>
    console.warn(error instanceof SlowClientError ? `relay: dropped a slow client (${error.reason})` : `relay: ${error.message}`);
  const formatOf = (url) => (url.searchParams.get('format') === 'ui-message-stream' ? 'ui-message-stream' : 'chat-events');

  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://relay');
    const [, chat, streamId, action] = url.pathname.split('/');
    try {
      if (chat !== 'chat') {
        response.writeHead(404).end();
      } else if (request.method === 'POST' && streamId === undefined) {
        const { messages } = await bodyOf(request);
        const reply = (demand) =>
          fromFetch(env.UPSTREAM_URL, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
            body: JSON.stringify({ model: 'fake', messages, stream: true }),
            selector: (upstream) => fromResponse(upstream, { demand }),
          }).pipe(decodeUtf8(), sseFrames(), assembleChunks());
        relay.start(reply, response, { format: formatOf(url) }).subscribe({ error: warn });
      } else if (request.method === 'GET' && action === 'stream') {
        const lastEventId = request.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined;
        relay.serve(streamId, response, { format: formatOf(url), lastEventId }).subscribe({ error: warn });
      } else if (request.method === 'POST' && action === 'stop') {
        response.writeHead((await relay.stop(streamId)) ? 202 : 404).end();
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      warn(error);
      if (!response.headersSent) response.writeHead(400);
      response.end();
    }
  });
  server.listen(0, '127.0.0.1', () => console.log(`relay listening on http://127.0.0.1:${server.address().port} (${env.RELAY_CLIENT})`));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
