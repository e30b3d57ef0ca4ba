import type { Observable, Subscriber } from 'rxjs';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import type { UiMessageChunk } from './uiMessageChunks.js';

/** An encoder of UI message chunks: those of each input, those that end the message, those of a failure. */
export interface UiChunkEncoder<T> {
  encode(input: T): readonly UiMessageChunk[];
  end(): readonly UiMessageChunk[];
  fail(error: unknown): readonly UiMessageChunk[];
}

/**
 * Feeds `source` through `encoder` into `subscriber`: what the UI message operators share. A failure of
 * the source is told to `onError`, then sent as the encoder's chunks, and the stream completes: a
 * browser reads the error in the message, never as a broken connection.
 *
 * @example
 * ```ts
 * new Observable<UiMessageChunk>((subscriber) => encodeUiChunks(events$, subscriber, new UiMessageEncoder()));
 * ```
 */
export function encodeUiChunks<T>(
  source: Observable<T>,
  subscriber: Subscriber<UiMessageChunk>,
  encoder: UiChunkEncoder<T>,
  onError?: (error: unknown) => void,
): void {
  const send = (chunks: readonly UiMessageChunk[]): void => {
    for (const chunk of chunks) subscriber.next(chunk);
  };
  subscribeLinked(source, subscriber, {
    next: (input) => send(encoder.encode(input)),
    error(error) {
      onError?.(error);
      send(encoder.fail(error));
      subscriber.complete();
    },
    complete() {
      send(encoder.end());
      subscriber.complete();
    },
  });
}
