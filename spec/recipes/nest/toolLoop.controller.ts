import { Body, Controller, Inject, Post, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { fromFetch } from 'rxjs/fetch';
import { z } from 'zod';
import {
  encodeUiMessageSse,
  fromResponse,
  openaiChatLoop,
  toolLoop,
  toolLoopUiMessageStream,
  uiMessageStreamHeaders,
} from 'rxjs-llm-stream';

/** The injection token of the model server's URL (OpenAI's Chat Completions API, or one that speaks it). */
export const UPSTREAM_URL = 'UPSTREAM_URL';

/** A message as `useChat` posts it: its text parts are what this backend reads. */
interface UiMessage {
  readonly role: 'user' | 'assistant' | 'system';
  readonly parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
}

@Controller('api')
export class ToolChatController {
  constructor(@Inject(UPSTREAM_URL) private readonly upstream: string) {}

  /**
   * `POST /api/chat`: the tool loop's steps as the AI SDK's UI message stream, which `useChat` renders
   * (a step per request to the model, each call with its input and output). A client that goes away
   * cancels the request in flight and every running tool.
   */
  @Post('chat')
  chat(@Body() body: { readonly messages: readonly UiMessage[] }, @Res() response: ServerResponse): void {
    const conversation = body.messages.map((message) => ({
      role: message.role,
      content: message.parts.map((part) => part.text ?? '').join(''),
    }));
    response.writeHead(200, uiMessageStreamHeaders);
    const subscription = toolLoop({
      format: openaiChatLoop,
      request: (messages) =>
        fromFetch(this.upstream, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'test-model', stream: true, messages }),
          selector: (upstream) => fromResponse(upstream),
        }),
      conversation,
      tools: {
        get_weather: {
          schema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, temperature: city === 'Oslo' ? 4 : 17 }),
        },
      },
      maxSteps: 4,
    })
      .pipe(toolLoopUiMessageStream(), encodeUiMessageSse())
      .subscribe({ next: (text) => response.write(text), complete: () => response.end() });
    response.on('close', () => subscription.unsubscribe());
  }
}
