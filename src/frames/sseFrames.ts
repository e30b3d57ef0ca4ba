import { Observable, OperatorFunction, Subscriber } from 'rxjs';
import { SseFrame, SseParser, SseParserOptions } from './SseParser.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Parses text into server-sent events, following the event-stream interpretation of the WHATWG
 * HTML standard exactly, over any chunking and in linear time.
 *
 * Lines end in CRLF, LF or CR (also split across chunks); `data` lines join with `\n`; a blank line
 * dispatches; comments and unknown fields are ignored; `id` persists across events. A stream that
 * stops mid-line errors with `StreamClosedEarlyError`; a final block that only lacks its blank line
 * is dispatched (whether the reply was complete is the next layer's call, from the dialect's own end
 * signal), unless `requireBlankLineAtEnd` is set. A line or event larger than `maxEventSize`
 * (16 MiB by default) is a `ProtocolError`.
 *
 * Intuition: what `EventSource` does to a response body, as an operator, minus the reconnecting.
 *
 * ```
 * text:   --"data: a\ndata:"--"b\n\n"--|
 * frames: --------------------{data:"a\nb"}--|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames()).subscribe((frame) => {
 *   if (frame.data !== '[DONE]') console.log(JSON.parse(frame.data));
 * });
 * ```
 *
 * @param options `maxEventSize`, `requireBlankLineAtEnd`.
 * @returns An operator from text chunks to `SseFrame`s.
 */
export function sseFrames(options: SseParserOptions = {}): OperatorFunction<string, SseFrame> {
  return (source) =>
    new Observable<SseFrame>((subscriber) => {
      // Per subscription, so that a resubscribe starts with an empty line buffer and no last id.
      subscribeLinked(source, subscriber, new FramingHandlers(subscriber, options));
    });
}

/**
 * What `sseFrames` does with each piece of text of one subscription. An object with methods, and the
 * subscriber's own `next` bound, rather than closures: closures would keep their scopes alive as long
 * as the stream is open, and with them the source observable and every observable above it.
 */
class FramingHandlers {
  readonly #parser: SseParser;
  readonly #subscriber: Subscriber<SseFrame>;

  constructor(subscriber: Subscriber<SseFrame>, options: SseParserOptions) {
    this.#parser = new SseParser(subscriber.next.bind(subscriber), options);
    this.#subscriber = subscriber;
  }

  next(text: string): void {
    this.#parser.push(text);
  }

  complete(): void {
    this.#parser.end();
    this.#subscriber.complete();
  }
}
