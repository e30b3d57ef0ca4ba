import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { from } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { awsEventStreamFrames } from '../../src/frames/awsEventStreamFrames';
import { Completion } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { chunksOf } from './chunking';
import { collectSync } from './collect';

/**
 * Streams written with AWS's own codec (`@smithy/eventstream-codec`, what the AWS SDK for
 * JavaScript uses), so that the parser under test is judged against the real encoding, not an
 * imitation of it.
 */
export const codec = new EventStreamCodec(toUtf8, fromUtf8);

type MessageHeaders = Parameters<typeof codec.encode>[0]['headers'];

/** The bytes of several messages, one after the other. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** An `event` message as Bedrock sends one: `:event-type`, `:content-type` JSON, `:message-type` event. */
export function eventMessage(eventType: string, payload: unknown, extra: MessageHeaders = {}): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
      ...extra,
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** An `exception` message: `:exception-type` and a JSON body with `message`. */
export function exceptionMessage(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** A ConverseStream reply: each `[event, payload]` as one message. */
export function converseStream(events: ReadonlyArray<readonly [string, unknown]>): Uint8Array {
  return concat(events.map(([type, payload]) => eventMessage(type, payload)));
}

/** An InvokeModelWithResponseStream reply: each Anthropic event as one `chunk` with its JSON in base64 `bytes`. */
export function invokeStream(anthropicEvents: readonly unknown[]): Uint8Array {
  return concat(anthropicEvents.map((event) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') })));
}

/**
 * Bedrock bytes through the whole pipeline (`awsEventStreamFrames`, `assembleChunks` with `auto`,
 * `groupToolCallsByIndex`, `finalizeCompletion`) in pieces of `size` bytes: the completion, or the error.
 */
export function assembleBedrock(bytes: Uint8Array, size = bytes.length): { values: Completion[]; error?: unknown } {
  return collectSync(
    from(chunksOf(bytes, size)).pipe(
      awsEventStreamFrames(),
      assembleChunks({ dialect: 'auto' }),
      groupToolCallsByIndex(),
      finalizeCompletion(),
    ),
  );
}
