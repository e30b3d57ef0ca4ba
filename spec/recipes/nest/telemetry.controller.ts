import { Controller, Inject, Query, Sse, type MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import {
  assembleChunks,
  decodeUtf8,
  fromResponse,
  groupToolCallsByIndex,
  sseFrames,
  toMessageEvents,
  withGenAiTelemetry,
  type GenAiTelemetry,
} from 'rxjs-llm-stream';

/** The model's server, and the model the gateway asks for. */
export const UPSTREAM = 'https://llm.example.com/v1/chat/completions';
export const MODEL = 'gpt-5';

/** Nest's token for the app's `GenAiTelemetry` (made once, by `startTelemetry`). */
export const GEN_AI_TELEMETRY = Symbol('GEN_AI_TELEMETRY');

@Controller('chat')
export class TelemetryChatController {
  constructor(@Inject(GEN_AI_TELEMETRY) private readonly telemetry: GenAiTelemetry) {}

  /**
   * `GET /chat?q=...`: the model's reply as server-sent events, each reply an inference span and
   * points of the GenAI client metrics (duration, time to first chunk, time per chunk, tokens).
   */
  @Sse()
  reply(@Query('q') question: string): Observable<MessageEvent> {
    const body = JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: question }] });
    return fromFetch(UPSTREAM, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      selector: (response) => fromResponse(response),
    }).pipe(
      decodeUtf8(),
      sseFrames(),
      assembleChunks({ dialect: 'openai-chat' }),
      withGenAiTelemetry(this.telemetry, { provider: 'openai', model: MODEL, serverAddress: new URL(UPSTREAM).hostname, serverPort: 443 }),
      groupToolCallsByIndex(),
      toMessageEvents(),
    );
  }
}
