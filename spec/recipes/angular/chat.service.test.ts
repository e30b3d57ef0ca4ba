import { TestBed } from '@angular/core/testing';
import { HttpEventType, provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { bodyText, downloadProgress, providerStream, type ProviderStream, type TestReply } from 'rxjs-llm-stream/testing';
import { ChatService, type ReplyView } from './chat.service.js';

const reply: TestReply = { choices: [{ text: 'Sunny in Oslo today, 21 °C, with a light breeze from the west.' }] };

describe('ChatService', () => {
  let service: ChatService;
  let http: HttpTestingController;
  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    service = TestBed.inject(ChatService);
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => http.verify());

  /** Answers the request as the server sends the stream: a progress event per chunk, then the response. */
  function answer(stream: ProviderStream): void {
    const request = http.expectOne('/api/chat');
    for (const progress of downloadProgress(stream)) request.event({ type: HttpEventType.DownloadProgress, ...progress });
    request.flush(bodyText(stream));
  }

  it('shows the reply growing, then done', () => {
    const views: ReplyView[] = [];
    service.ask('Weather in Oslo?').subscribe((view) => views.push(view));
    answer(providerStream(reply, 'openai-chat'));
    const texts = views.map((view) => view.text);
    expect(texts.every((text, i) => i === 0 || text.startsWith(texts[i - 1]!))).toBe(true);
    expect(new Set(texts).size).toBeGreaterThan(2);
    expect(views.at(-1)).toEqual({ text: reply.choices[0]!.text, state: 'done' });
  });

  it('shows a reply cut off mid-stream with the text that arrived, marked as cut off', () => {
    const views: ReplyView[] = [];
    service.ask('Weather in Oslo?').subscribe((view) => views.push(view));
    const stream = providerStream(reply, 'openai-chat', { fault: 'cut-mid-line' });
    answer(stream);
    expect(stream.fault!.partial.content).not.toBe('');
    expect(views.at(-1)).toEqual({ text: stream.fault!.partial.content, state: 'cut off' });
  });
});
