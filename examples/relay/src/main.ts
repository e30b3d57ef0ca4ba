import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createClient } from 'redis';
import { MemoryStreamStore, RedisStreamStore, StreamRelay, type StreamStore } from 'rxjs-llm-stream/relay';
import { join } from 'node:path';
import { AppModule } from './app.module';

/**
 * The replay server of this package's command-line tool (`rxjs-llm-stream demo`), from the build that
 * `npm run relay` makes: it streams the recordings under `marbles/`.
 */
function startReplayServer(): Promise<{ readonly url: string }> {
  const path = join(__dirname, '..', '..', '..', 'dist', 'cjs', 'cli', 'replayServer.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the build, not a module of the app
  const cli = require(path) as { startReplayServer(): Promise<{ readonly url: string }> };
  return cli.startReplayServer();
}

/** A failure to start that says what to do: printed alone, without a stack. */
class StartError extends Error {}

/** `url` without its user and password, for a message. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return '(REDIS_URL, which is not a URL)';
  }
}

/** A number from the environment, or the default. */
function numberFrom(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
}

/**
 * Starts one instance. `UPSTREAM_URL`: the OpenAI-compatible chat completions endpoint; without it,
 * the bundled replay server is started in this process and every reply is a recorded one (as the
 * NestJS example does). `REDIS_URL`: the Redis every instance shares, `REDIS_PREFIX` the prefix of
 * its keys (default `llm-stream:`; an ACL user limited to it is enough, see docs/relay.md); without
 * `REDIS_URL`, the in-memory store (one instance). A Redis that cannot be reached at the start ends
 * the process at once, saying so.
 * `PORT`: default 3000 (`0` picks a free one). `UPSTREAM_API_KEY` (sent to the upstream as
 * `Authorization: Bearer`), `UPSTREAM_MODEL` (default gpt-4o-mini), `UPSTREAM_MAX_TOKENS` (default 1024):
 * the server's choices, never the browser's. The relay's knobs (`RELAY_MAX_BUFFERED_BYTES`,
 * `RELAY_STALL_TIMEOUT`, `RELAY_HEARTBEAT_INTERVAL`, `STORE_HEARTBEAT_INTERVAL`, `STORE_HEARTBEAT_TIMEOUT`)
 * have the library's defaults.
 */
async function bootstrap(): Promise<void> {
  let upstreamUrl = process.env['UPSTREAM_URL'];
  if (upstreamUrl === undefined || upstreamUrl === '') {
    const replay = await startReplayServer();
    upstreamUrl = `${replay.url}/openai/text.sse?delay=40&chunk=24`;
    console.log(`UPSTREAM_URL is not set: every reply is a recorded one, from ${replay.url}`);
    console.log('(set UPSTREAM_URL and UPSTREAM_API_KEY to relay a provider)');
  }
  const timing = {
    heartbeatInterval: numberFrom('STORE_HEARTBEAT_INTERVAL', 1000),
    heartbeatTimeout: numberFrom('STORE_HEARTBEAT_TIMEOUT', 3000),
  };
  let store: StreamStore;
  const redisUrl = process.env['REDIS_URL'];
  if (redisUrl === undefined || redisUrl === '') {
    store = new MemoryStreamStore(timing);
  } else {
    // Until the first connection, a failure ends the start (never a retry loop that neither listens nor exits);
    // after it, the client reconnects as usual.
    let started = false;
    const socket = {
      connectTimeout: 5000,
      reconnectStrategy: (retries: number, cause: Error) => (started ? Math.min(100 * (retries + 1), 2000) : cause),
    };
    const connect = async (client: ReturnType<typeof createClient>) => {
      try {
        return await client.on('error', (error: Error) => started && console.warn(`redis: ${error.message}`)).connect();
      } catch (cause) {
        throw new StartError(
          `cannot reach Redis at ${withoutCredentials(redisUrl)} (${cause instanceof Error ? cause.message : String(cause)}): ` +
            'start a Redis there, or unset REDIS_URL for the in-memory store (one instance)',
        );
      }
    };
    const client = await connect(createClient({ url: redisUrl, socket }));
    const blockingClient = await connect(client.duplicate());
    started = true;
    store = new RedisStreamStore({ client, blockingClient, prefix: process.env['REDIS_PREFIX'] || undefined, ...timing });
  }
  const relay = new StreamRelay<string>({
    store,
    maxBufferedBytes: numberFrom('RELAY_MAX_BUFFERED_BYTES', 1024 * 1024),
    stallTimeout: numberFrom('RELAY_STALL_TIMEOUT', 30_000),
    heartbeatInterval: numberFrom('RELAY_HEARTBEAT_INTERVAL', 15_000),
    // The failure as it is (a provider's text, a Redis client's message), for this log only: browsers get its codes.
    onError: (error, streamId, { during }) =>
      console.warn(`stream ${streamId} (${during}): ${error instanceof Error ? error.message : String(error)}`),
    // Only the session that started a stream may resume or stop it.
    authorize: ({ metadata, context }) => context !== undefined && metadata?.['userId'] === context,
  });
  const upstream = {
    url: upstreamUrl,
    apiKey: process.env['UPSTREAM_API_KEY'] || undefined,
    model: process.env['UPSTREAM_MODEL'] || 'gpt-4o-mini',
    maxTokens: numberFrom('UPSTREAM_MAX_TOKENS', 1024),
  };
  const app = await NestFactory.create(AppModule.create(relay, upstream), { logger: ['error', 'warn'] });
  await app.listen(numberFrom('PORT', 3000), '127.0.0.1');
  console.log(`relay listening on ${await app.getUrl()} (${redisUrl ? 'Redis store' : 'in-memory store'})`);
}

bootstrap().catch((error: unknown) => {
  // A start that failed for a reason of the environment says what to do; anything else keeps its stack.
  console.error(error instanceof StartError ? error.message : error);
  process.exit(1);
});
