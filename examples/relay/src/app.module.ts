import { DynamicModule, Module } from '@nestjs/common';
import type { StreamRelay } from 'rxjs-llm-stream/relay';
import { ChatController, RELAY, UPSTREAM, type Upstream } from './chat.controller';

/** The relay app: `/chat` in front of an OpenAI-compatible upstream, over one `StreamRelay`. */
@Module({})
export class AppModule {
  /**
   * The app over `relay`, in front of `upstreamUrl`.
   *
   * @param relay This instance's relay (its store shared with the other instances, or in memory).
   * @param upstream The upstream's chat completions URL, key, model and token limit: the server's, never the browser's.
   */
  static create(relay: StreamRelay<string>, upstream: Upstream): DynamicModule {
    return {
      module: AppModule,
      controllers: [ChatController],
      providers: [
        { provide: RELAY, useValue: relay },
        { provide: UPSTREAM, useValue: upstream },
      ],
    };
  }
}
