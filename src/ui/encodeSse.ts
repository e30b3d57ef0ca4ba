import { Observable, OperatorFunction, map } from 'rxjs';
import { SseEncoder } from './SseEncoder.js';
import { SseFrame } from '../frames/SseParser.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Writes `SseFrame`s as event-stream text, the inverse of `sseFrames`: `sseFrames` reads back exactly
 * the frames written (CR and CRLF inside `data` come back as LF, as any reader would return them).
 *
 * ```
 * frames: --{event:'delta', data:'a'}--|
 * text:   --'event: delta\ndata: a\n\n'--|
 * ```
 *
 * @example
 * ```ts
 * import { encodeSse } from 'rxjs-llm-stream';
 *
 * frames$.pipe(encodeSse()).subscribe((text) => response.write(text));
 * ```
 *
 * @returns An operator from frames to their text.
 */
export function encodeSse(): OperatorFunction<SseFrame, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      const encoder = new SseEncoder();
      subscribeLinked(source, subscriber, { next: (frame) => subscriber.next(encoder.encode(frame)) });
    });
}

/**
 * `encodeSse` as UTF-8 bytes, for a response body or a `ReadableStream`.
 *
 * @example
 * ```ts
 * import { encodeSseBytes } from 'rxjs-llm-stream';
 *
 * frames$.pipe(encodeSseBytes()).subscribe((bytes) => socket.write(bytes));
 * ```
 *
 * @returns An operator from frames to their UTF-8 bytes.
 */
export function encodeSseBytes(): OperatorFunction<SseFrame, Uint8Array> {
  return (source) => {
    const encoder = new TextEncoder();
    return source.pipe(
      encodeSse(),
      map((text) => encoder.encode(text)),
    );
  };
}
