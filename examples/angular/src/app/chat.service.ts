import { Injectable, inject } from '@angular/core';
import { HttpClient, HttpEventType, type HttpDownloadProgressEvent, type HttpEvent } from '@angular/common/http';
import { filter, map, type Observable } from 'rxjs';
import { assembleChunks, ndjsonFrames, scanCompletion, sseFrames, transcriptDeltas, type CompletionSnapshot } from 'rxjs-llm-stream';

/** Streams a reply with Angular's HttpClient, through the library's pipeline (docs/recipes.md, "Angular HttpClient"). */
@Injectable({ providedIn: 'root' })
export class ChatService {
  private readonly http = inject(HttpClient);

  /**
   * The reply at `url` so far, after every event. A cut-off reply fails with a
   * `StreamClosedEarlyError` (an error status with a `ProviderError`) whose `partial` is the
   * completion so far.
   */
  reply(url: string): Observable<CompletionSnapshot> {
    // `responseType: 'text'` with `reportProgress`: each progress event carries the whole body so far.
    return this.http.get(url, { observe: 'events', responseType: 'text', reportProgress: true }).pipe(
      filter((e: HttpEvent<string>): e is HttpDownloadProgressEvent => e.type === HttpEventType.DownloadProgress),
      map((e) => e.partialText ?? ''),
      transcriptDeltas(),
      url.includes('.ndjson') ? ndjsonFrames() : sseFrames(),
      assembleChunks(),
      scanCompletion(),
    );
  }
}
