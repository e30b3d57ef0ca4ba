import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { startReplayServer } from '../../../src/cli/replayServer';
import { AppModule } from './app.module';

/**
 * Runs the example by hand. `UPSTREAM_URL` is the upstream's base URL; without it, the bundled
 * replay server is started in this process and streams the recordings under `marbles/`. `PORT` is
 * the app's port (default 3000). Both listen on 127.0.0.1 only.
 */
async function bootstrap(): Promise<void> {
  let upstreamUrl = process.env['UPSTREAM_URL'];
  if (upstreamUrl === undefined || upstreamUrl === '') {
    upstreamUrl = (await startReplayServer()).url;
    console.log(`replay server on ${upstreamUrl}`);
  }
  const port = Number(process.env['PORT'] ?? 3000);
  const app = await NestFactory.create(AppModule.forUpstream(upstreamUrl));
  await app.listen(port, '127.0.0.1');
  console.log(`try: curl -N 'http://127.0.0.1:${port}/chat?recording=openai/tool-calls-interleaved.sse&delay=50&chunk=16'`);
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
