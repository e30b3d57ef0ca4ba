import { Injectable, inject } from '@angular/core';
import { HttpClient, HttpEventType, type HttpDownloadProgressEvent, type HttpEvent } from '@angular/common/http';
import { filter, map, type Observable } from 'rxjs';
import { openaiChatLoop, toolLoop, transcriptDeltas, type ToolLoopEvent } from 'rxjs-llm-stream';

@Injectable({ providedIn: 'root' })
export class ToolChatService {
  private readonly http = inject(HttpClient);
  private readonly utf8 = new TextEncoder();

  /** The loop's events: each step's reply live, each call's result, `loop-finish` with the conversation. */
  ask(question: string): Observable<ToolLoopEvent<unknown>> {
    return toolLoop({
      format: openaiChatLoop,
      request: (messages) =>
        this.http
          .post(
            '/api/llm/chat/completions',
            { model: 'gpt-5', stream: true, messages },
            { observe: 'events', responseType: 'text', reportProgress: true },
          )
          .pipe(
            filter((e: HttpEvent<string>): e is HttpDownloadProgressEvent => e.type === HttpEventType.DownloadProgress),
            map((e) => e.partialText ?? ''),
            transcriptDeltas(),
            map((text) => this.utf8.encode(text)),
          ),
      conversation: [{ role: 'user', content: question }],
      tools: { local_time: { execute: () => new Date().toString() } },
    });
  }
}
