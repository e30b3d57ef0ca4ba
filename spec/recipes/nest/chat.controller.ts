import { Controller, Query, Sse, type MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks, decodeUtf8, fromResponse, groupToolCallsByIndex, sseFrames, toMessageEvents } from 'rxjs-llm-stream';

/** The model's server: OpenAI's Chat Completions API, or any server that speaks it. */
export const UPSTREAM = 'https://llm.example.com/v1/chat/completions';

@Controller('chat')
export class ChatController {
  /**
   * `GET /chat?q=...`: the model's reply to `q` as server-sent events, one per ChatEvent; a failure
   * upstream as one last `error` event. A client that goes away aborts the upstream request.
   */
  @Sse()
  reply(@Query('q') question: string): Observable<MessageEvent> {
    const body = JSON.stringify({ model: 'test-model', stream: true, messages: [{ role: 'user', content: question }] });
    return fromFetch(UPSTREAM, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      selector: (response) => fromResponse(response),
    }).pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), toMessageEvents());
  }
}
