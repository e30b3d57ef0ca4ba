import type * as otel from './otelTypes.js';
import type { ChatEvent, JsonValue, Usage } from '../types/events.js';
import { CANCELLED_ERROR_TYPE, genAiErrorType } from './errorType.js';
import type { GenAiTelemetry } from './genAiTelemetry.js';
import { ReplyClock, type ReplyTimings } from './ReplyClock.js';
import { ReplyFacts } from './ReplyFacts.js';

/**
 * What the app says of the request a reply answers: the conventions' request attributes, which no
 * stream carries.
 *
 * @example
 * ```ts
 * import type { GenAiRequest } from 'rxjs-llm-stream';
 *
 * const request: GenAiRequest = { provider: 'anthropic', model: 'claude-sonnet-4-5', serverAddress: 'api.anthropic.com' };
 * ```
 */
export interface GenAiRequest {
  /** `gen_ai.operation.name`: `chat` (the default), `generate_content` (Gemini), `text_completion`, ... */
  readonly operation?: string;
  /** `gen_ai.provider.name` (`genAiProviderName(dialect)` gives the conventions' value for a dialect). */
  readonly provider: string;
  /** `gen_ai.request.model`: the model the request asked for. */
  readonly model?: string;
  /** `server.address`: the provider's host (behind any proxy, when known). */
  readonly serverAddress?: string;
  /** `server.port`, with `server.address`. */
  readonly serverPort?: number;
  /** The messages sent (`gen_ai.input.messages`, in the conventions' shape): recorded only under `captureContent`. */
  readonly inputMessages?: JsonValue;
  /** The system instructions sent apart from the messages (`gen_ai.system_instructions`): only under `captureContent`. */
  readonly systemInstructions?: JsonValue;
  /** More attributes for the span (`gen_ai.conversation.id`, `gen_ai.request.temperature`, ...). */
  readonly attributes?: otel.Attributes;
}

/** How a reply ended, for its record: completed, failed with an error, or left by its subscriber. */
export type ReplyEnd = { readonly kind: 'complete' } | { readonly kind: 'error'; readonly error: unknown } | { readonly kind: 'cancelled' };

/**
 * One reply's inference span and metric points, kept while it streams. No RxJS and no OpenTelemetry
 * import: it is handed the app's tracer and instruments (`GenAiTelemetry`). The span starts when the
 * record is made (the request) and ends, with everything the reply said, at `end`.
 */
export class InferenceRecord {
  readonly #telemetry: GenAiTelemetry;
  readonly #request: GenAiRequest;
  readonly #span: otel.Span;
  readonly #clock: ReplyClock;
  readonly #facts: ReplyFacts;
  /** The metric attributes of `time_per_output_chunk`, made at the first gap (the response's model is known by then). */
  #chunkAttributes: otel.Attributes | undefined;

  constructor(telemetry: GenAiTelemetry, request: GenAiRequest, parent?: otel.Context) {
    this.#telemetry = telemetry;
    this.#request = request;
    const operation = request.operation ?? 'chat';
    const attributes: otel.Attributes = { ...request.attributes, ...requestAttributes(request), 'gen_ai.request.stream': true };
    if (telemetry.captureContent) {
      if (request.inputMessages !== undefined) attributes['gen_ai.input.messages'] = JSON.stringify(request.inputMessages);
      if (request.systemInstructions !== undefined) attributes['gen_ai.system_instructions'] = JSON.stringify(request.systemInstructions);
    }
    // The sampling-relevant attributes go in at creation, as the conventions ask.
    this.#span = telemetry.tracer.startSpan(
      request.model === undefined ? operation : `${operation} ${request.model}`,
      { kind: telemetry.api.SpanKind.CLIENT, attributes },
      parent,
    );
    this.#clock = new ReplyClock(telemetry.now());
    this.#facts = new ReplyFacts(telemetry.captureContent, telemetry.maxCapturedChars);
  }

  /** The span, for what the app adds to it. */
  get span(): otel.Span {
    return this.#span;
  }

  event(event: ChatEvent): void {
    const gap = this.#clock.event(event, this.#telemetry.now);
    this.#facts.apply(event);
    if (gap >= 0) {
      this.#chunkAttributes ??= this.#metricAttributes(undefined);
      this.#telemetry.instruments.timePerOutputChunk.record(gap / 1000, this.#chunkAttributes);
    }
  }

  /** Ends the span with what the reply said, records its metric points, and returns its timings. */
  end(end: ReplyEnd): ReplyTimings {
    const timings = this.#clock.end(this.#telemetry.now());
    const facts = this.#facts;
    const failed = end.kind !== 'complete';
    const errorType = end.kind === 'error' ? genAiErrorType(end.error) : end.kind === 'cancelled' ? CANCELLED_ERROR_TYPE : undefined;
    const span = this.#span;

    const attributes: otel.Attributes = {};
    if (facts.id !== null) attributes['gen_ai.response.id'] = facts.id;
    if (facts.model !== null) attributes['gen_ai.response.model'] = facts.model;
    const reasons = facts.finishReasons(failed);
    if (reasons.length > 0) attributes['gen_ai.response.finish_reasons'] = reasons;
    if (timings.timeToFirstChunkMs !== null) attributes['gen_ai.response.time_to_first_chunk'] = timings.timeToFirstChunkMs / 1000;
    if (facts.usage !== null) usageAttributes(facts.usage, attributes);
    const output = facts.outputMessages(failed);
    if (output !== undefined) attributes['gen_ai.output.messages'] = JSON.stringify(output);
    if (errorType !== undefined) attributes['error.type'] = errorType;
    if (end.kind === 'error' && typeof (end.error as { status?: unknown } | null)?.status === 'number') {
      attributes['http.response.status_code'] = (end.error as { status: number }).status;
    }
    span.setAttributes(attributes);
    if (end.kind === 'error') {
      const message = end.error instanceof Error ? end.error.message : String(end.error);
      span.setStatus({ code: this.#telemetry.api.SpanStatusCode.ERROR, message });
    } else if (end.kind === 'cancelled') {
      span.setStatus({ code: this.#telemetry.api.SpanStatusCode.ERROR, message: 'the subscriber left before the reply ended' });
    }
    span.end();

    const instruments = this.#telemetry.instruments;
    const metric = this.#metricAttributes(undefined);
    const withError = errorType === undefined ? metric : this.#metricAttributes(errorType);
    instruments.duration.record(timings.durationMs / 1000, withError);
    if (timings.timeToFirstChunkMs !== null) instruments.timeToFirstChunk.record(timings.timeToFirstChunkMs / 1000, metric);
    // Every operation, failed ones too, counts its tokens: the provider's figure, or the conventions'
    // zero (modality `unknown`) when none arrived.
    const usage = facts.usage;
    const input = usage?.promptTokens ?? 0;
    const outputTokens = usage?.completionTokens ?? 0;
    addByModality(instruments.inputTokens, input, usage?.audioPromptTokens, metric);
    addByModality(instruments.outputTokens, outputTokens, usage?.audioCompletionTokens, metric);
    const unknown = { ...metric, 'gen_ai.token.modality': 'unknown' };
    if (usage?.cachedPromptTokens !== undefined) instruments.cacheReadInputTokens.add(usage.cachedPromptTokens, unknown);
    if (usage?.cacheWritePromptTokens !== undefined) instruments.cacheWriteInputTokens.add(usage.cacheWritePromptTokens, unknown);
    if (usage?.reasoningTokens !== undefined) instruments.reasoningOutputTokens.add(usage.reasoningTokens, unknown);
    instruments.operationInputTokens.record(input, withError);
    instruments.operationOutputTokens.record(outputTokens, withError);
    return timings;
  }

  /** The attributes every client metric carries, with `error.type` when given. */
  #metricAttributes(errorType: string | undefined): otel.Attributes {
    const attributes = requestAttributes(this.#request);
    const model = this.#facts.model;
    if (model !== null) attributes['gen_ai.response.model'] = model;
    if (errorType !== undefined) attributes['error.type'] = errorType;
    return attributes;
  }
}

/** The request's attributes shared by the span and the metrics. */
function requestAttributes(request: GenAiRequest): otel.Attributes {
  const attributes: otel.Attributes = {
    'gen_ai.operation.name': request.operation ?? 'chat',
    'gen_ai.provider.name': request.provider,
  };
  if (request.model !== undefined) attributes['gen_ai.request.model'] = request.model;
  if (request.serverAddress !== undefined) {
    attributes['server.address'] = request.serverAddress;
    if (request.serverPort !== undefined) attributes['server.port'] = request.serverPort;
  }
  return attributes;
}

/** The span's `gen_ai.usage.*` attributes of the counts the provider reported. */
function usageAttributes(usage: Usage, attributes: otel.Attributes): void {
  if (usage.promptTokens !== null) attributes['gen_ai.usage.input_tokens'] = usage.promptTokens;
  if (usage.completionTokens !== null) attributes['gen_ai.usage.output_tokens'] = usage.completionTokens;
  if (usage.cachedPromptTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedPromptTokens;
  if (usage.cacheWritePromptTokens !== undefined) attributes['gen_ai.usage.cache_write.input_tokens'] = usage.cacheWritePromptTokens;
  if (usage.reasoningTokens !== undefined) attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
  if (usage.audioPromptTokens !== undefined) attributes['gen_ai.usage.audio.input_tokens'] = usage.audioPromptTokens;
  if (usage.audioCompletionTokens !== undefined) attributes['gen_ai.usage.audio.output_tokens'] = usage.audioCompletionTokens;
}

/**
 * Adds `total` to a usage counter by `gen_ai.token.modality`: the audio part the provider named under
 * `audio`, the rest under `unknown` (providers do not say how the rest splits between text and images).
 */
function addByModality(counter: otel.Counter, total: number, audio: number | undefined, attributes: otel.Attributes): void {
  if (audio !== undefined && audio > 0) {
    counter.add(audio, { ...attributes, 'gen_ai.token.modality': 'audio' });
    if (total - audio > 0) counter.add(total - audio, { ...attributes, 'gen_ai.token.modality': 'unknown' });
    return;
  }
  counter.add(total, { ...attributes, 'gen_ai.token.modality': 'unknown' });
}
