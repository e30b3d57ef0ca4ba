import { Injectable, inject } from '@angular/core';
import { HttpClient, HttpEventType, type HttpDownloadProgressEvent, type HttpEvent } from '@angular/common/http';
import { type Observable, catchError, filter, map, of } from 'rxjs';
import { assembleChunks, isCompletionSnapshot, isLlmStreamError, scanCompletion, sseFrames, transcriptDeltas } from 'rxjs-llm-stream';

/** What the page shows of a reply. */
export interface ReplyView {
  readonly text: string;
  readonly state: 'streaming' | 'done' | 'cut off';
}

@Injectable({ providedIn: 'root' })
export class ChatService {
  private readonly http = inject(HttpClient);

  /** The reply to `question` as it grows; a reply cut off shows what arrived, marked as cut off. */
  ask(question: string): Observable<ReplyView> {
    return this.http.post('/api/chat', { question }, { observe: 'events', responseType: 'text', reportProgress: true }).pipe(
      filter((event: HttpEvent<string>): event is HttpDownloadProgressEvent => event.type === HttpEventType.DownloadProgress),
      map((event) => event.partialText ?? ''),
      transcriptDeltas(),
      sseFrames(),
      assembleChunks(),
      scanCompletion(),
      map((snapshot): ReplyView => ({ text: snapshot.content ?? '', state: snapshot.finished ? 'done' : 'streaming' })),
      catchError((error: unknown) => {
        if (!isLlmStreamError(error) || !isCompletionSnapshot(error.partial)) throw error;
        return of<ReplyView>({ text: error.partial.content ?? '', state: 'cut off' });
      }),
    );
  }
}
