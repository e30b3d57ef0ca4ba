import { encodeBase64 } from '../../internal/base64.js';
import { anthropicEvents } from '../anthropic/anthropicWriter.js';
import { ProviderWriter, WireEvent, padding } from '../writing/wire.js';

const encoder = new TextEncoder();

/** What Bedrock adds to the last Anthropic event: its own counts and latencies. */
const METRICS = 'amazon-bedrock-invocationMetrics';

/**
 * Amazon Bedrock's `InvokeModelWithResponseStream` reply for an Anthropic model, as Bedrock frames
 * it: AWS event-stream `chunk` messages, each payload `{"bytes": <base64>, "p": <padding>}` whose
 * bytes are one event of Anthropic's Messages stream (`anthropicEvents`: the same blocks, the same
 * finish values, the same usage), the last one, `message_stop`, with Bedrock's
 * `amazon-bedrock-invocationMetrics` beside it when the reply has usage.
 *
 * Cannot write what Anthropic's stream cannot. An error mid-stream is an `exception` message,
 * `modelStreamErrorException`, which the library marks retryable.
 */
export const bedrockInvokeWriter: ProviderWriter = {
  dialect: 'bedrock-invoke',
  contentType: 'application/vnd.amazon.eventstream',
  framing: 'aws',
  write(reply) {
    const usage = reply.usage;
    return anthropicEvents(reply, 'bedrock-invoke').map(({ type, payload, carries }, k): WireEvent => {
      const metrics =
        type === 'message_stop' && usage !== undefined
          ? {
              [METRICS]: {
                inputTokenCount: usage.promptTokens,
                outputTokenCount: usage.completionTokens,
                invocationLatency: 1204,
                firstByteLatency: 388,
              },
            }
          : {};
      const bytes = encodeBase64(encoder.encode(JSON.stringify({ type, ...payload, ...metrics })));
      return {
        event: 'chunk',
        data: JSON.stringify({ bytes, p: padding(k) }),
        ...(carries === undefined ? {} : { carries }),
        ...(type === 'message_stop' ? { end: true as const } : {}),
      };
    });
  },
  error() {
    return [
      { exception: 'modelStreamErrorException', data: JSON.stringify({ message: 'The model stream failed. Try your request again.' }) },
    ];
  },
};
