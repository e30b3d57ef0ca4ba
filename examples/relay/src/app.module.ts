import { DynamicModule, Module } from '@nestjs/common';
import type { StreamRelay } from 'rxjs-llm-stream/relay';
import { ChatController, RELAY, UPSTREAM_URL } from './chat.controller';

/** The relay app: `/chat` in front of an OpenAI-compatible upstream, over one `StreamRelay`. */
@Module({})
export class AppModule {
  /**
   * The app over `relay`, in front of `upstreamUrl`.
   *
   * @param relay This instance's relay (its store shared with the other instances, or in memory).
   * @param upstreamUrl The upstream's chat completions URL (`http://127.0.0.1:8080/v1/chat/completions`).
   */
  static create(relay: StreamRelay, upstreamUrl: string): DynamicModule {
    return {
      module: AppModule,
      controllers: [ChatController],
      providers: [
        { provide: RELAY, useValue: relay },
        { provide: UPSTREAM_URL, useValue: upstreamUrl },
      ],
    };
  }
}
