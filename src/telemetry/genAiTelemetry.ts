import type * as otel from './otelTypes.js';

/**
 * What the telemetry needs of `@opentelemetry/api`: the module itself, as the app imports it
 * (`import * as otel from '@opentelemetry/api'`). The library never imports it, so an app without
 * OpenTelemetry loads none of it.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import type { OpenTelemetryApi } from 'rxjs-llm-stream';
 *
 * const api: OpenTelemetryApi = otel;
 * ```
 */
export interface OpenTelemetryApi {
  readonly trace: otel.TracerProvider & { setSpan(context: otel.Context, span: otel.Span): otel.Context };
  readonly metrics: otel.MeterProvider;
  readonly context: { active(): otel.Context };
  readonly SpanKind: { readonly INTERNAL: number; readonly CLIENT: number };
  readonly SpanStatusCode: { readonly ERROR: number };
}
/**
 * Options of {@link genAiTelemetry}.
 *
 * @example
 * ```ts
 * import type { GenAiTelemetryOptions } from 'rxjs-llm-stream';
 *
 * const options: GenAiTelemetryOptions = { captureContent: process.env['CAPTURE_GENAI_CONTENT'] === 'true' };
 * ```
 */
export interface GenAiTelemetryOptions {
  /** The tracer provider; default the global one (`otel.trace`), a no-op until an SDK registers one. */
  readonly tracerProvider?: otel.TracerProvider;
  /** The meter provider; default the global one (`otel.metrics`), a no-op until an SDK registers one. */
  readonly meterProvider?: otel.MeterProvider;
  /**
   * Record message contents (`gen_ai.input.messages`, `gen_ai.output.messages`, tool arguments and
   * results). Default `false`: they are likely to hold personal data, and the conventions keep them
   * opt-in.
   */
  readonly captureContent?: boolean;
  /** The most characters of a reply's output captured when `captureContent` is on; default 65,536. */
  readonly maxCapturedChars?: number;
  /** The clock of the timings, in milliseconds; default `performance.now()`. Virtual-time tests pass the scheduler's. */
  readonly now?: () => number;
}

/** The conventions' bucket advice for the seconds histograms. */
export const GEN_AI_SECONDS_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/** The conventions' bucket advice for the per-operation token histograms. */
export const GEN_AI_TOKEN_BUCKETS: readonly number[] = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/**
 * The client instruments of the conventions, made once per meter: the three seconds histograms, the
 * token usage counters, the per-operation token histograms and the tool duration.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { genAiTelemetry, type GenAiInstruments } from 'rxjs-llm-stream';
 *
 * const instruments: GenAiInstruments = genAiTelemetry(otel).instruments;
 * ```
 */
export interface GenAiInstruments {
  readonly duration: otel.Histogram;
  readonly timeToFirstChunk: otel.Histogram;
  readonly timePerOutputChunk: otel.Histogram;
  readonly inputTokens: otel.Counter;
  readonly outputTokens: otel.Counter;
  readonly cacheReadInputTokens: otel.Counter;
  readonly cacheWriteInputTokens: otel.Counter;
  readonly reasoningOutputTokens: otel.Counter;
  readonly operationInputTokens: otel.Histogram;
  readonly operationOutputTokens: otel.Histogram;
  readonly toolDuration: otel.Histogram;
}

/**
 * The app's OpenTelemetry, ready for {@link withGenAiTelemetry} and {@link genAiToolLoop}: a tracer,
 * a meter and the conventions' instruments, made once (make one per app, not per request).
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { genAiTelemetry, type GenAiTelemetry } from 'rxjs-llm-stream';
 *
 * const telemetry: GenAiTelemetry = genAiTelemetry(otel);
 * telemetry.captureContent; // false
 * ```
 */
export interface GenAiTelemetry {
  readonly api: OpenTelemetryApi;
  readonly tracer: otel.Tracer;
  readonly instruments: GenAiInstruments;
  readonly captureContent: boolean;
  readonly maxCapturedChars: number;
  readonly now: () => number;
}

/** The instrumentation scope's name: this library's. */
export const INSTRUMENTATION_SCOPE = 'rxjs-llm-stream';

/** Instruments by meter: a meter's instruments are made once however often `genAiTelemetry` is called. */
const made = new WeakMap<otel.Meter, GenAiInstruments>();

/**
 * Prepares the app's OpenTelemetry for the GenAI telemetry: takes the `@opentelemetry/api` module
 * the app imported (this library imports none of it) and makes the tracer, the meter and the client
 * instruments of the GenAI semantic conventions. With no SDK registered, everything it makes is
 * OpenTelemetry's no-op and records nothing.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, genAiTelemetry, withGenAiTelemetry } from 'rxjs-llm-stream';
 *
 * const telemetry = genAiTelemetry(otel); // once per app
 * bytes$.pipe(
 *   decodeUtf8(),
 *   sseFrames(),
 *   assembleChunks({ dialect: 'openai-chat' }),
 *   withGenAiTelemetry(telemetry, { provider: 'openai', model: 'gpt-5', serverAddress: 'api.openai.com' }),
 *   finalizeCompletion(),
 * );
 * ```
 *
 * @param api The `@opentelemetry/api` module (`import * as otel from '@opentelemetry/api'`).
 * @param options Providers other than the global ones, content capture, the clock.
 */
export function genAiTelemetry(api: OpenTelemetryApi, options: GenAiTelemetryOptions = {}): GenAiTelemetry {
  const tracer = (options.tracerProvider ?? api.trace).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (options.meterProvider ?? api.metrics).getMeter(INSTRUMENTATION_SCOPE);
  let instruments = made.get(meter);
  if (instruments === undefined) {
    instruments = instrumentsOf(meter);
    made.set(meter, instruments);
  }
  const maxCapturedChars = options.maxCapturedChars ?? 65_536;
  if (!Number.isInteger(maxCapturedChars) || maxCapturedChars < 0) {
    throw new RangeError(`genAiTelemetry: maxCapturedChars must be a whole number of at least 0, not ${maxCapturedChars}`);
  }
  return {
    api,
    tracer,
    instruments,
    captureContent: options.captureContent === true,
    maxCapturedChars,
    now: options.now ?? (() => performance.now()),
  };
}

/** `ValueType.INT` of the API, whose enum this library does not import: its value is fixed by the API's contract. */
const INT = 0;

function instrumentsOf(meter: otel.Meter): GenAiInstruments {
  const seconds = (name: string, description: string): otel.Histogram =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: [...GEN_AI_SECONDS_BUCKETS] } });
  const tokens = (name: string, description: string): otel.Counter =>
    meter.createCounter(name, { unit: '{token}', description, valueType: INT });
  const perOperation = (name: string, description: string): otel.Histogram =>
    meter.createHistogram(name, {
      unit: '{token}',
      description,
      valueType: INT,
      advice: { explicitBucketBoundaries: [...GEN_AI_TOKEN_BUCKETS] },
    });
  return {
    duration: seconds('gen_ai.client.inference.duration', 'GenAI client inference operation duration.'),
    timeToFirstChunk: seconds('gen_ai.client.inference.time_to_first_chunk', 'Time to receive the first chunk of the response stream.'),
    timePerOutputChunk: seconds('gen_ai.client.inference.time_per_output_chunk', 'Time per output chunk, after the first one.'),
    inputTokens: tokens('gen_ai.client.inference.usage.input_tokens', 'The number of input (prompt) tokens used, including cached tokens.'),
    outputTokens: tokens(
      'gen_ai.client.inference.usage.output_tokens',
      'The number of output (completion) tokens used, including reasoning tokens.',
    ),
    cacheReadInputTokens: tokens(
      'gen_ai.client.inference.usage.cache_read.input_tokens',
      'Input tokens served from a provider-managed cache.',
    ),
    cacheWriteInputTokens: tokens(
      'gen_ai.client.inference.usage.cache_write.input_tokens',
      'Input tokens written to a provider-managed cache.',
    ),
    reasoningOutputTokens: tokens('gen_ai.client.inference.usage.reasoning.output_tokens', 'Output tokens used for reasoning.'),
    operationInputTokens: perOperation('gen_ai.client.inference.operation.input_tokens', 'Input tokens per inference operation.'),
    operationOutputTokens: perOperation('gen_ai.client.inference.operation.output_tokens', 'Output tokens per inference operation.'),
    toolDuration: seconds('gen_ai.execute_tool.duration', 'The duration of a single tool execution.'),
  };
}
