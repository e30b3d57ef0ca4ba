import type { ProviderStream } from './ProviderStream.js';

/** What an HTTP client reports after a chunk: the bytes so far and the text so far (Angular's `HttpDownloadProgressEvent`). */
export interface DownloadProgress {
  /** Bytes received so far. */
  readonly loaded: number;
  /** The whole body so far, decoded: a character whose bytes have not all arrived is not in it yet. */
  readonly partialText: string;
}

/**
 * The download progress an HTTP client reports while `stream` arrives, one report per chunk, as
 * Angular's `HttpClient` reports it (`observe: 'events'`, `reportProgress: true`, `responseType:
 * 'text'`): for `HttpTestingController`, whose `TestRequest.event` takes each as a
 * `DownloadProgress` event. A chunk that ends inside a character holds that character back until
 * the chunk that completes it, as the client's decoder does.
 *
 * @example
 * ```ts
 * import { HttpEventType } from '@angular/common/http';
 * import { downloadProgress, bodyText, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const stream = providerStream({ choices: [{ text: 'Hello' }] }, 'openai-chat');
 * for (const progress of downloadProgress(stream)) request.event({ type: HttpEventType.DownloadProgress, ...progress });
 * request.flush(bodyText(stream));
 * ```
 *
 * @param stream The chunks of a reply.
 * @returns One report per chunk, in order.
 */
export function downloadProgress(stream: ProviderStream): DownloadProgress[] {
  const decoder = new TextDecoder();
  const reports: DownloadProgress[] = [];
  let loaded = 0;
  let partialText = '';
  for (const chunk of stream.chunks) {
    loaded += chunk.length;
    partialText += decoder.decode(chunk, { stream: true });
    reports.push({ loaded, partialText });
  }
  return reports;
}

/**
 * The whole body of `stream` as text (UTF-8, as an HTTP client decodes it): what a client's final
 * response carries, `HttpTestingController`'s `flush` takes, or a log shows.
 *
 * @example
 * ```ts
 * import { bodyText, bodyStream } from 'rxjs-llm-stream/testing';
 *
 * bodyText(bodyStream(['data: [DO', 'NE]\n\n'])); // 'data: [DONE]\n\n'
 * ```
 *
 * @param stream The chunks of a reply.
 * @returns The chunks joined and decoded.
 */
export function bodyText(stream: ProviderStream): string {
  const decoder = new TextDecoder();
  return stream.chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}
