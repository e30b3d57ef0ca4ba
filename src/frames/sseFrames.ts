import { Observable, OperatorFunction } from 'rxjs';
import { SseFrame, SseParser, SseParserOptions } from './SseParser.js';
import { ParserHandlers } from '../internal/ParserHandlers.js';
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
      // Per subscription, so that a resubscribe starts with an empty line buffer and no last id. The
      // subscriber's own `next`, bound, and no closure: see `ParserHandlers`.
      subscribeLinked(source, subscriber, new ParserHandlers(new SseParser(subscriber.next.bind(subscriber), options), subscriber));
    });
}
