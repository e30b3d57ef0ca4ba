import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createClient } from 'redis';
import { MemoryStreamStore, RedisStreamStore, StreamRelay, type StreamStore } from 'rxjs-llm-stream/relay';
import { AppModule } from './app.module';

/** A number from the environment, or the default. */
function numberFrom(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
}

/**
 * Starts one instance. `UPSTREAM_URL`: the OpenAI-compatible chat completions endpoint (required).
 * `REDIS_URL`: the Redis every instance shares; without it, the in-memory store (one instance).
 * `PORT`: default 3000 (`0` picks a free one). `UPSTREAM_API_KEY` (sent to the upstream as
 * `Authorization: Bearer`), `UPSTREAM_MODEL` (default gpt-4o-mini), `UPSTREAM_MAX_TOKENS` (default 1024):
 * the server's choices, never the browser's. The relay's knobs (`RELAY_MAX_BUFFERED_BYTES`,
 * `RELAY_STALL_TIMEOUT`, `RELAY_HEARTBEAT_INTERVAL`, `STORE_HEARTBEAT_INTERVAL`, `STORE_HEARTBEAT_TIMEOUT`)
 * have the library's defaults.
 */
async function bootstrap(): Promise<void> {
  const upstreamUrl = process.env['UPSTREAM_URL'];
  if (upstreamUrl === undefined || upstreamUrl === '') throw new Error('UPSTREAM_URL must name the upstream chat completions endpoint');
  const timing = {
    heartbeatInterval: numberFrom('STORE_HEARTBEAT_INTERVAL', 1000),
    heartbeatTimeout: numberFrom('STORE_HEARTBEAT_TIMEOUT', 3000),
  };
  let store: StreamStore;
  const redisUrl = process.env['REDIS_URL'];
  if (redisUrl === undefined || redisUrl === '') {
    store = new MemoryStreamStore(timing);
  } else {
    const client = await createClient({ url: redisUrl })
      .on('error', (error: Error) => console.warn(`redis: ${error.message}`))
      .connect();
    const blockingClient = await client
      .duplicate()
      .on('error', (error: Error) => console.warn(`redis: ${error.message}`))
      .connect();
    store = new RedisStreamStore({ client, blockingClient, ...timing });
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
  console.error(error);
  process.exitCode = 1;
});
