import type * as otel from './otelTypes.js';
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ChatEvent } from '../types/events.js';
import type { GenAiTelemetry } from './genAiTelemetry.js';
import { InferenceRecord, type GenAiRequest } from './InferenceRecord.js';
import type { ReplyTimings } from './ReplyClock.js';
import { watchReply } from './watchReply.js';

/**
 * Options of {@link withGenAiTelemetry}: the request's attributes, and what else the app wants of the reply.
 *
 * @example
 * ```ts
 * import type { WithGenAiTelemetryOptions } from 'rxjs-llm-stream';
 *
 * const options: WithGenAiTelemetryOptions = { provider: 'openai', model: 'gpt-5', onTimings: (t) => console.log(t.gapMaxMs) };
 * ```
 */
export interface WithGenAiTelemetryOptions extends GenAiRequest {
  /** Told the reply's figures (the same the span and metrics have) once it ended. */
  readonly onTimings?: (timings: ReplyTimings) => void;
  /** The span to put the inference span under; default the active context's. */
  readonly parent?: otel.Context;
}

/**
 * OpenTelemetry for one streamed reply, after the GenAI semantic conventions: passes the events on
 * unchanged and, per subscription, records the inference span (CLIENT, `{operation} {model}`, with the
 * request's attributes, the response's id, model, finish reasons, time to first chunk and usage, and
 * on a failure or a cut reply the status ERROR and `error.type`, with what had arrived) and the client
 * metrics (`gen_ai.client.inference.duration`, `.time_to_first_chunk`, `.time_per_output_chunk`, the
 * `gen_ai.client.inference.usage.*` counters and the per-operation token histograms). Message
 * contents only under `captureContent`.
 *
 * Put it after `assembleChunks` (or `groupToolCallsByIndex`), on a cold source whose subscription is
 * the request: the span and the clock start at the subscription. An unsubscribe before the end
 * records the reply as `error.type` `cancelled`.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { defer, switchMap } from 'rxjs';
 * import { assembleChunks, decodeUtf8, finalizeCompletion, fromResponse, sseFrames } from 'rxjs-llm-stream';
 * import { genAiTelemetry, withGenAiTelemetry } from 'rxjs-llm-stream';
 *
 * const telemetry = genAiTelemetry(otel);
 * const completion$ = defer(() => fetch(url, { method: 'POST', body })).pipe(
 *   switchMap((response) => fromResponse(response)),
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks({ dialect: 'anthropic' }),
 *   withGenAiTelemetry(telemetry, { provider: 'anthropic', model: 'claude-sonnet-4-5', serverAddress: 'api.anthropic.com' }),
 *   finalizeCompletion(),
 * );
 * ```
 *
 * @param telemetry What `genAiTelemetry(otel)` made, once per app.
 * @param options The request's attributes (`provider` at least), `onTimings`, the parent context.
 */
export function withGenAiTelemetry(telemetry: GenAiTelemetry, options: WithGenAiTelemetryOptions): MonoTypeOperatorFunction<ChatEvent> {
  return watchReply(() => {
    const record = new InferenceRecord(telemetry, options, options.parent);
    return {
      event: (event) => record.event(event),
      end: (end) => {
        const timings = record.end(end);
        options.onTimings?.(timings);
      },
    };
  });
}
