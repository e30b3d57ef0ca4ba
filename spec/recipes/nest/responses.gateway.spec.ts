import 'reflect-metadata';
import type { MessageEvent } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { from, lastValueFrom, map, toArray } from 'rxjs';
import { assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
import { RESPONSES_SOCKET, ResponsesController, ResponsesGateway } from './responses.gateway.js';
import { WsServer, WsServerSocket, startWsServer, stopWsServer } from '../../support/wsPackage.js';
import { completed, created, messageAdded, text, textDelta } from '../../websocket/responsesEvents.js';

/** What a browser makes of the endpoint's events: it reads them with the chat-events dialect. */
const clientCompletion = (events: readonly MessageEvent[]) =>
  lastValueFrom(
    from(events).pipe(
      map((event) => ({ event: event.type ?? 'message', data: String(event.data), id: String(event.id) })),
      assembleChunks({ dialect: 'chat-events' }),
      finalizeCompletion(),
    ),
  );

/** A Responses server on 127.0.0.1: each response.create answered on its lane, word by word; "cut" is dropped mid-reply. */
function answer(socket: WsServerSocket, request: { input: string; stream_id: string }, id: string): void {
  const lane = request.stream_id;
  const words = request.input === 'cut' ? ['Half'] : ['Echo:', ` ${request.input}`];
  const events = [text(created(id, 0, lane)), text(messageAdded(`msg_${id}`, 1, lane))];
  words.forEach((word, k) => events.push(text(textDelta(`msg_${id}`, word, 2 + k, lane))));
  if (request.input !== 'cut') events.push(text(completed(id, 2 + words.length, lane)));
  let k = 0;
  const timer = setInterval(() => {
    if (k < events.length) return socket.send(events[k++]!);
    clearInterval(timer);
    if (request.input === 'cut') socket.terminate();
  }, 2);
}

describe('ResponsesGateway (NestJS, one ws socket to the Responses API)', () => {
  let server: WsServer;
  let url: string;
  const authorizations: unknown[] = [];
  let controller: ResponsesController;

  beforeAll(async () => {
    let responses = 0;
    ({ server, url } = await startWsServer((socket, _path, headers) => {
      authorizations.push(headers['authorization']);
      socket.on('message', (data) => answer(socket, JSON.parse(Buffer.from(data).toString('utf8')), `resp_${++responses}`));
    }));
  });
  afterAll(() => stopWsServer(server));

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [ResponsesController],
      providers: [ResponsesGateway, { provide: RESPONSES_SOCKET, useValue: { url, apiKey: 'sk-test' } }],
    }).compile();
    controller = moduleRef.get(ResponsesController);
    moduleRef.enableShutdownHooks();
  });

  it('answers two questions asked at once on one socket, each with its own reply, the key in the upgrade header', async () => {
    authorizations.length = 0;
    const [first, second] = await Promise.all([
      lastValueFrom(controller.reply('Oslo').pipe(toArray())),
      lastValueFrom(controller.reply('Lima').pipe(toArray())),
    ]);
    expect((await clientCompletion(first!)).content).toBe('Echo: Oslo');
    expect((await clientCompletion(second!)).content).toBe('Echo: Lima');
    expect(authorizations).toEqual(['Bearer sk-test']);
  });

  it('ends with an error event when the socket drops mid-reply: the client gets the error, with what arrived', async () => {
    const events = await lastValueFrom(controller.reply('cut').pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    await expect(clientCompletion(events)).rejects.toMatchObject({ name: 'StreamClosedEarlyError', partial: { content: 'Half' } });
  });
});
