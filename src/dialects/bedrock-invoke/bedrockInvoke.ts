import { decodeBase64 } from '../../internal/base64.js';
import { SseFrame } from '../../frames/SseParser.js';
import { ProtocolError } from '../../errors/errors.js';
import { ChatEvent } from '../../types/events.js';
import { JsonObject, excerpt, finiteNumber, isJsonObject } from '../../internal/json.js';
import { AnthropicParser } from '../anthropic/anthropic.js';
import { defineDialect, DialectOptions, DialectParser } from '../Dialect.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The field of the last Anthropic event in which Bedrock adds its own counts. */
const METRICS = 'amazon-bedrock-invocationMetrics';

/**
 * The fields of a `chunk` event's payload (AWS's `PayloadPart`) this dialect reads, or knows to carry
 * nothing: `bytes` is the Anthropic event, `p` padding of varying length that hides the size of the
 * bytes. Any other field is kept as `providerMetadata.anthropic` of the reply, beside what the
 * Anthropic events carry that their dialect does not map.
 */
const MAPPED_CHUNK: ReadonlySet<string> = new Set(['bytes', 'p']);

/**
 * The `anthropic` dialect's parser, reading the event of one `chunk` and keeping what the chunk's
 * payload carries beside it, as part of reading that event.
 */
class ChunkedAnthropicParser extends AnthropicParser {
  /** The payload of the chunk whose event is being pushed. */
  private chunk: JsonObject | undefined = undefined;

  pushChunk(chunk: JsonObject, frame: SseFrame): void {
    this.chunk = chunk;
    try {
      this.push(frame);
    } finally {
      this.chunk = undefined;
    }
  }

  protected override read(payload: JsonObject, frame: SseFrame): void {
    // Kept first: after the event of `message_stop` nothing more is kept.
    if (this.chunk !== undefined) this.keepUnmapped(this.chunk, MAPPED_CHUNK);
    super.read(payload, frame);
  }
}

/**
 * Amazon Bedrock's `InvokeModelWithResponseStream` for Anthropic models, as `awsEventStreamFrames()`
 * gives it: `chunk` events whose payload is `{"bytes": "<base64>"}`, the bytes being one event of
 * Anthropic's Messages stream as JSON. Each is decoded and handed to the `anthropic` dialect's own
 * parser (`AnthropicParser`) as a frame of its own, so everything that dialect reads, checks and
 * absorbs holds here too, and the stream ends at its `message_stop`.
 *
 * Bedrock adds `amazon-bedrock-invocationMetrics` (`inputTokenCount`, `outputTokenCount`,
 * `invocationLatency`, `firstByteLatency`) to the last event. The Anthropic usage of `message_start`
 * and `message_delta` is the reference (it splits the cached input out); only when the stream
 * carried none are Bedrock's counts the usage: `promptTokens` `inputTokenCount`, `completionTokens`
 * `outputTokenCount`, `totalTokens` their sum. Being a field the `anthropic` dialect does not map,
 * the whole of it is kept as `providerMetadata.anthropic` of the reply, latencies and all; so is any
 * field of a chunk's payload beside its `bytes` and its padding `p`.
 *
 * @example
 * ```ts
 * import { awsEventStreamFrames, assembleChunks, finalizeCompletion, bedrockInvoke } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(awsEventStreamFrames(), assembleChunks({ dialect: bedrockInvoke }), finalizeCompletion());
 * ```
 */
export class BedrockInvokeParser implements DialectParser {
  private readonly anthropic: ChunkedAnthropicParser;
  private frameCount = 0;
  private sawUsage = false;

  constructor(
    private readonly sink: (event: ChatEvent) => void,
    options: DialectOptions = {},
  ) {
    this.anthropic = new ChunkedAnthropicParser((event) => {
      if (event.type === 'usage') this.sawUsage = true;
      sink(event);
    }, options);
  }

  push(frame: SseFrame): void {
    this.frameCount++;
    // Bedrock's stream has only `chunk` events (its errors are exception messages): another kind,
    // newer than this parser, is no Anthropic event and is skipped, as unknown events are everywhere.
    if (frame.event !== 'chunk') return;
    const outer = this.parse(frame.data, 'data');
    const bytes = typeof outer['bytes'] === 'string' ? decodeBase64(outer['bytes']) : undefined;
    if (bytes === undefined) throw this.protocolError(`chunk.bytes is not base64 text: ${excerpt(frame.data)}`);
    let data: string;
    try {
      data = utf8.decode(bytes);
    } catch (cause) {
      throw Object.assign(this.protocolError('chunk.bytes is not UTF-8', 'invalid-utf8'), { cause });
    }
    const inner = this.parse(data, 'chunk.bytes');
    const metrics = inner[METRICS];
    if (isJsonObject(metrics) && !this.sawUsage) this.readMetrics(metrics);
    // Parsed once: the Anthropic parser takes this parse instead of making its own.
    this.anthropic.usePreparsed(data, inner);
    this.anthropic.pushChunk(outer, { event: 'message', data, id: frame.id });
  }

  end(): void {
    this.anthropic.end();
  }

  private readMetrics(metrics: JsonObject): void {
    const input = finiteNumber(metrics['inputTokenCount']);
    const output = finiteNumber(metrics['outputTokenCount']);
    if (input === undefined && output === undefined) return;
    this.sawUsage = true;
    this.sink({
      type: 'usage',
      usage: {
        promptTokens: input ?? null,
        completionTokens: output ?? null,
        totalTokens: input !== undefined && output !== undefined ? input + output : null,
      },
    });
  }

  private parse(text: string, what: string): JsonObject {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw Object.assign(this.protocolError(`${what} is not JSON: ${excerpt(text)}`, 'invalid-json'), { cause });
    }
    if (!isJsonObject(value)) throw this.protocolError(`${what} is not a JSON object: ${excerpt(text)}`);
    return value;
  }

  private protocolError(what: string, reason: 'invalid-payload' | 'invalid-json' | 'invalid-utf8' = 'invalid-payload'): ProtocolError {
    return new ProtocolError(`frame ${this.frameCount}: ${what}`, { reason, position: { event: this.frameCount } });
  }
}

/** The end of an InvokeModelWithResponseStream reply: the chunk whose Anthropic event is `message_stop`. */
const isFinal = (frame: SseFrame): boolean => {
  if (frame.event !== 'chunk' || !frame.data.includes('"bytes"')) return false;
  try {
    const outer: unknown = JSON.parse(frame.data);
    const bytes = isJsonObject(outer) && typeof outer['bytes'] === 'string' ? decodeBase64(outer['bytes']) : undefined;
    const inner: unknown = bytes === undefined ? undefined : JSON.parse(utf8.decode(bytes));
    return isJsonObject(inner) && inner['type'] === 'message_stop';
  } catch {
    return false; // not this test's business: assembleChunks reports a malformed payload
  }
};

/**
 * The `bedrock-invoke` dialect: Amazon Bedrock's `InvokeModelWithResponseStream` for Anthropic
 * models, read from `awsEventStreamFrames()`.
 *
 * @example
 * ```ts
 * import { awsEventStreamFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(awsEventStreamFrames(), assembleChunks({ dialect: 'bedrock-invoke' }), finalizeCompletion());
 * ```
 */
export const bedrockInvoke = defineDialect({
  name: 'bedrock-invoke',
  create: (emit, options) => new BedrockInvokeParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload, event) => event === 'chunk' && typeof payload['bytes'] === 'string',
});
