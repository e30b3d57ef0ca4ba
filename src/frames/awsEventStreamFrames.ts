import { Observable, OperatorFunction } from 'rxjs';
import { AwsEventStreamParser, AwsEventStreamParserOptions } from './AwsEventStreamParser.js';
import { SseFrame } from './SseParser.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Decodes AWS's binary event stream (`application/vnd.amazon.eventstream`, the body of Bedrock's
 * `ConverseStream` and `InvokeModelWithResponseStream`) into `SseFrame`s, over any chunking and in
 * linear time: it takes the place of `decodeUtf8(), sseFrames()` for a Bedrock body, and
 * `assembleChunks()` reads its frames (`event` the message's `:event-type`, `data` its payload).
 *
 * Every prelude and message CRC-32 is checked; a mismatch, an impossible length or an unknown header
 * type is a `ProtocolError` with the byte offset (`position.byteOffset`); a message over
 * `maxEventSize` (16 MiB by default) is refused before it is buffered; an `exception` or `error`
 * message is a `ProviderError` (`type`, `retryable`); bytes that stop inside a message are a
 * `StreamClosedEarlyError` (`mid-message`).
 *
 * ```
 * bytes:  --[prelude|hea]--[ders|payload|crc]--|
 * frames: ---------------{event:"messageStart"}--|
 * ```
 *
 * @example
 * ```ts
 * import { awsEventStreamFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(awsEventStreamFrames(), assembleChunks({ dialect: 'bedrock-converse' }), finalizeCompletion());
 * ```
 *
 * @param options `maxEventSize`.
 * @returns An operator from byte chunks to `SseFrame`s.
 */
export function awsEventStreamFrames(options: AwsEventStreamParserOptions = {}): OperatorFunction<Uint8Array, SseFrame> {
  return (source) =>
    new Observable<SseFrame>((subscriber) => {
      // Per subscription, so that a resubscribe starts with no half-read message.
      const parser = new AwsEventStreamParser((frame) => subscriber.next(frame), options);
      subscribeLinked(source, subscriber, {
        next: (bytes) => parser.push(bytes),
        complete() {
          parser.end();
          subscriber.complete();
        },
      });
    });
}
