import 'reflect-metadata';
import type { INestApplication, MessageEvent } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { firstValueFrom, from, lastValueFrom, map, toArray } from 'rxjs';
import { assembleChunks, decodeUtf8, finalizeCompletion, fromResponse, sseFrames } from 'rxjs-llm-stream';
import { expectCompletion, fakeFetch, providerStream, type TestReply } from 'rxjs-llm-stream/testing';
import { ChatController, UPSTREAM } from './chat.controller.js';

const reply: TestReply = {
  choices: [{ text: 'Let me look that up.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }],
};

/** What a client of the endpoint makes of its events: it reads them with the chat-events dialect. */
const clientCompletion = (events: readonly MessageEvent[]) =>
  lastValueFrom(
    from(events).pipe(
      map((event) => ({ event: event.type ?? 'message', data: String(event.data), id: String(event.id) })),
      assembleChunks({ dialect: 'chat-events' }),
      finalizeCompletion(),
    ),
  );

describe('ChatController', () => {
  let controller: ChatController;
  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ChatController] }).compile();
    controller = moduleRef.get(ChatController);
  });
  afterEach(() => jest.restoreAllMocks());

  it('streams the reply as events that a client folds back into the same reply', async () => {
    const upstream = fakeFetch(providerStream(reply, 'openai-chat'));
    jest.spyOn(globalThis, 'fetch').mockImplementation(upstream);
    const events = await lastValueFrom(controller.reply('Weather in Oslo?').pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    expectCompletion(await clientCompletion(events), reply);
    expect(await upstream.calls[0]!.request.json()).toMatchObject({
      stream: true,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
  });

  it('ends with an error event when the upstream reply is cut off: the client gets the error, with what arrived', async () => {
    const stream = providerStream(reply, 'openai-chat', { fault: 'cut-in-arguments' });
    jest.spyOn(globalThis, 'fetch').mockImplementation(fakeFetch(stream));
    const events = await lastValueFrom(controller.reply('Weather in Oslo?').pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    await expect(clientCompletion(events)).rejects.toMatchObject({
      name: 'StreamClosedEarlyError',
      partial: { content: stream.fault!.partial.content },
    });
  });

  it('cancels the upstream request when the client goes away', async () => {
    const upstream = fakeFetch(providerStream(reply, 'openai-chat', { fault: 'stall' }));
    jest.spyOn(globalThis, 'fetch').mockImplementation(upstream);
    await firstValueFrom(controller.reply('Weather in Oslo?')); // the first event, then unsubscribe
    await expect(upstream.cancelled).resolves.toBe(true);
  });

  describe('served by Nest', () => {
    let app: INestApplication;
    beforeEach(async () => {
      const moduleRef = await Test.createTestingModule({ controllers: [ChatController] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
    });
    afterEach(() => app.close());

    it('answers text/event-stream that a client reads back into the same reply', async () => {
      const upstream = fakeFetch(providerStream(reply, 'openai-chat'));
      const { fetch } = globalThis; // the test's own requests go to the app
      jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => (String(input) === UPSTREAM ? upstream : fetch)(input, init));
      const response = await fetch(`${await app.getUrl()}/chat?q=${encodeURIComponent('Weather in Oslo?')}`);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const completion = await lastValueFrom(
        fromResponse(response).pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'chat-events' }), finalizeCompletion()),
      );
      expectCompletion(completion, reply);
    });
  });
});
