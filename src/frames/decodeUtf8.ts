import { Observable, OperatorFunction, Subscriber } from 'rxjs';
import { Utf8Decoder, Utf8DecoderOptions } from './Utf8Decoder.js';
import { ProtocolError } from '../errors/errors.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Decodes a stream of UTF-8 byte chunks into text, exactly over any chunking.
 *
 * A character split across chunks is held back until its last byte arrives; no empty strings are
 * emitted; one leading BOM is dropped. If the source completes mid-character, the result errors with
 * `StreamClosedEarlyError` rather than ending in a silent U+FFFD. Invalid bytes become U+FFFD, or a
 * `ProtocolError` naming the byte offset under `{ fatal: true }`. Any `Uint8Array` view is accepted
 * (a Node `Buffer`, a `subarray`); input is neither mutated nor retained.
 *
 * Intuition: `TextDecoder` with `{ stream: true }`, one per subscription, that refuses to guess at
 * the end.
 *
 * ```
 * bytes:  --[63 61 66 c3]--[a9]--|
 * text:   --"caf"----------"é"---|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames()).subscribe((frame) => console.log(frame.data));
 * ```
 *
 * @param options `fatal`: invalid bytes are an error instead of U+FFFD.
 * @returns An operator from byte chunks to text chunks.
 */
export function decodeUtf8(options: Utf8DecoderOptions = {}): OperatorFunction<Uint8Array, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) starts with a fresh decoder.
      subscribeLinked(source, subscriber, new DecodingHandlers(new Utf8Decoder(options), subscriber));
    });
}

/**
 * What `decodeUtf8` does with each chunk of one subscription. An object with methods rather than
 * closures: closures would keep their scopes alive as long as the stream is open, and with them the
 * source observable and every observable above it.
 */
class DecodingHandlers {
  readonly #decoder: Utf8Decoder;
  readonly #subscriber: Subscriber<string>;

  constructor(decoder: Utf8Decoder, subscriber: Subscriber<string>) {
    this.#decoder = decoder;
    this.#subscriber = subscriber;
  }

  next(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.push(bytes);
    } catch (error) {
      // Under `fatal`, the text before the invalid bytes still arrived: pass it on, then fail.
      if (error instanceof ProtocolError && typeof error.partial === 'string' && error.partial !== '') {
        this.#subscriber.next(error.partial);
      }
      throw error;
    }
    if (text !== '') this.#subscriber.next(text);
  }

  complete(): void {
    this.#decoder.end();
    this.#subscriber.complete();
  }
}
