import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { providerStream, type TestReply } from 'rxjs-llm-stream/testing';
import { ToolChatController, UPSTREAM_URL } from './toolLoop.controller.js';

/** The model, on 127.0.0.1: calls get_weather for Oslo; once it has the result, answers with it. */
function answer(messages: ReadonlyArray<{ role: string; content?: string }>): TestReply {
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { choices: [{ text: `In Oslo: ${JSON.parse(last.content!).temperature} degrees.` }] };
  return { choices: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }] };
}

describe('ToolChatController, read by the AI SDK', () => {
  let model: Server;
  let app: INestApplication;
  let appUrl: string;
  beforeAll(async () => {
    model = createServer((request, response) => {
      let body = '';
      request.on('data', (piece: Buffer) => (body += piece.toString('utf8')));
      request.on('end', () => {
        const stream = providerStream(answer(JSON.parse(body).messages), 'openai-chat');
        response.writeHead(200, { 'content-type': stream.contentType });
        for (const chunk of stream.chunks) response.write(chunk);
        response.end();
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1/chat/completions`;
    const moduleRef = await Test.createTestingModule({
      controllers: [ToolChatController],
      providers: [{ provide: UPSTREAM_URL, useValue: modelUrl }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    appUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => model.close(resolve));
  });

  it('serves the two steps of the loop as one message that readUIMessageStream rebuilds, tool output included', async () => {
    const response = await fetch(`${appUrl}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] }] }),
    });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).pipeThrough(
      new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: Error }, UIMessageChunk>({
        transform(part, controller) {
          if (!part.success) throw part.error; // as useChat's transport: a chunk the schema refuses fails
          controller.enqueue(part.value);
        },
      }),
    );
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream: chunks })) message = snapshot;
    expect(message?.parts).toEqual([
      { type: 'step-start' },
      expect.objectContaining({
        type: 'tool-get_weather',
        state: 'output-available',
        input: { city: 'Oslo' },
        output: { city: 'Oslo', temperature: 4 },
      }),
      { type: 'step-start' },
      { type: 'text', text: 'In Oslo: 4 degrees.', state: 'done' },
    ]);
  });
});
