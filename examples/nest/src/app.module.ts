import { DynamicModule, Module } from '@nestjs/common';
import { ChatController, UPSTREAM_URL } from './chat.controller';

/** The example app: one SSE endpoint, `GET /chat`, in front of an upstream LLM server. */
@Module({})
export class AppModule {
  /**
   * The app with its upstream's base URL.
   *
   * @param upstreamUrl For example `http://127.0.0.1:8080`; `/chat?recording=openai/text.sse` then
   *   streams `http://127.0.0.1:8080/openai/text.sse`.
   */
  static forUpstream(upstreamUrl: string): DynamicModule {
    return {
      module: AppModule,
      controllers: [ChatController],
      providers: [{ provide: UPSTREAM_URL, useValue: upstreamUrl }],
    };
  }
}
