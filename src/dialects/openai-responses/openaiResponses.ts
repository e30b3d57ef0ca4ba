import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError } from '../../errors/errors.js';
import { Usage } from '../../types/events.js';
import { JsonObject, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { finalByType } from '../base/finalFrames.js';
import { describeValue, hasError, isIndex } from '../base/payloadValues.js';
import { LIFECYCLE_EVENTS, PART_EVENTS, TOOL_PROGRESS_EVENTS } from './responsesEventTypes.js';
import {
  CHOICE,
  MAPPED_LIFECYCLE_EVENT,
  MAPPED_PART,
  MAPPED_RESPONSE,
  MAPPED_TEXT_EVENT,
  MAPPED_TOOL_PROGRESS_EVENT,
} from './responsesFields.js';
import { ResponsesItemsParser } from './responsesItems.js';
import { readTokenLogprobs } from '../base/tokenLogprobs.js';
import { ContentParts, annotationSource } from './responsesSources.js';
import { readResponsesUsage, readTimings } from '../base/usage.js';

/** The events that end a Responses stream. */
/**
 * `usage.input_tokens_details` (`ResponseUsage.InputTokensDetails`): `cached_tokens` and
 * `cache_write_tokens` are the usage's; the split of the cache writes by their time to live
 * (`cache_write_tokens_details`, `ttl_30m_tokens` and `ttl_12h_tokens`) is kept on the reply.
 */
const MAPPED_INPUT_DETAILS: ReadonlySet<string> = new Set(['cached_tokens', 'cache_write_tokens']);
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * The OpenAI Responses API stream (`POST /v1/responses`, `stream: true`) and the servers that copy it
 * (vLLM, llama.cpp, LM Studio): named events whose `data.type` repeats the event name, ending with
 * `response.completed`, `response.incomplete` or `response.failed` and no `[DONE]`.
 *
 * Dispatch is on `data.type`, so a proxy that drops the `event:` lines loses nothing. Text comes from
 * `response.output_text.delta` (content, with its `logprobs` when the request included them),
 * `response.refusal.delta` (refusal), `response.reasoning_summary_text.delta` and
 * `response.reasoning_text.delta` (reasoning), `response.audio.delta` and
 * `response.audio.transcript.delta` (the reply's `audio`, its data and transcript). A new reasoning part (another summary part, another
 * reasoning item) that follows earlier reasoning text is joined to it with `"\n\n"`, so summary
 * sections stay separate paragraphs. `response.output_text.annotation.added` is a `source`, its span
 * moved from its content part into the choice's content. The output items (tool calls, reasoning
 * signatures, the tools the provider runs) are read as `ResponsesItemsParser` says.
 *
 * The finish reason is derived from the terminal event: `response.completed` gives raw `completed`
 * (`tool_calls` when the reply made calls, else `stop`); `response.incomplete`, or a
 * `response.completed` whose status is `incomplete`, gives raw `incomplete_details.reason`
 * (`max_output_tokens` is `length`, `content_filter` stays); then the terminal's `response.usage`,
 * its `timings` (llama.cpp), then `done`. `response.failed` and `error` events (flat and nested) are
 * a `ProviderError`. Events after the terminal one are ignored; events the dialect does not read are
 * passed on as `unknown` with `unknownEvents` (see `PART_EVENTS` for those that only frame text).
 *
 * What the events carry beside what the dialect reads is kept as `providerMetadata.openai` where it
 * arrived (the field lists are in `responsesFields.ts`): the `response` object's `created_at`,
 * `service_tier`, `temperature`, `tools`, `metadata` and the rest on the reply, the last value of
 * each; the fields of text events, parts and of items that are not calls on the choice; those of a
 * call item and its fragments on the call.
 *
 * Events of one frame come in this order: `start` (from the first `response` object with an id, and
 * once more when a later one names the model the first lacked, as llama.cpp's `response.completed`
 * does), then the frame's own events; at the terminal event `finish`, `usage`, `timings`, `done`.
 *
 * Quirks absorbed (they lose nothing): no `event:` lines, `keepalive` events, missing
 * `sequence_number`s, calls whose arguments come only in `response.function_call_arguments.done` or
 * in the finished item, a call whose `output_item.added` never came (opened by its `.done`), call
 * items with no id whose fragments name their `call_id` (llama.cpp). `strict` requires `data.type`,
 * `sequence_number`s that count up by one from 0, and well-formed log probabilities.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, openaiResponses } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: openaiResponses }));
 * ```
 */
export class OpenAiResponsesParser extends ResponsesItemsParser {
  protected readonly endSignal = 'response.completed, response.incomplete or response.failed';
  protected override readonly provider = 'openai';
  // The terminal event is the last word on this reply: the connection should close after it.
  protected override readonly afterEnd = 'ignore';
  private responseId: string | undefined = undefined;
  /** The start has named the model: no later response object can add to it. */
  private modelNamed = false;
  private lastSequence: number | undefined = undefined;
  /** Which reasoning part the latest reasoning text belonged to (to separate parts). */
  private reasoningPart: string | undefined = undefined;
  private readonly parts = new ContentParts();

  /**
   * Both error shapes, the SDK's flat `{type:"error", code, message}` and the nested `{type:"error",
   * error:{...}}` seen in recordings, and a gateway's bare `{"error": ...}` (a typed event's own
   * `error` field, as in `response.failed` or an `mcp_call`'s, is read with its event).
   */
  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    const type = payload['type'];
    return frame.event === 'error' || type === 'error' || (type === undefined && hasError(payload))
      ? this.providerError(payload)
      : undefined;
  }

  protected override checkEnded(): void {
    if (this.responseId === undefined) throw this.protocolError('no event carried a response id');
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const rawType = payload['type'];
    if (rawType !== undefined && typeof rawType !== 'string') throw this.protocolError(`type is ${describeValue(rawType)}`);
    if (this.strict) this.checkStrict(rawType, payload['sequence_number']);
    // Servers that omit the type still name the event; a proxy that drops event: lines keeps the type.
    const type = rawType ?? (frame.event === 'message' ? undefined : frame.event);

    const response = payload['response'];
    if (response !== undefined && response !== null && !isJsonObject(response)) {
      throw this.protocolError('response is not an object');
    }
    if (isJsonObject(response)) {
      this.readStart(response);
      this.keepUnmapped(response, MAPPED_RESPONSE);
    }

    switch (type) {
      case 'response.output_item.added':
        return this.openItem(payload, frame);
      case 'response.output_item.done':
        return this.closeItem(payload, frame);
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        return this.readArgumentsDelta(payload, type);
      case 'response.function_call_arguments.done':
        return this.readArgumentsDone(payload, type, 'arguments');
      case 'response.custom_tool_call_input.done':
        return this.readArgumentsDone(payload, type, 'input');
      case 'response.output_text.delta':
        return this.readContent(payload);
      case 'response.output_text.annotation.added':
        return this.readAnnotation(payload, frame);
      case 'response.refusal.delta': {
        const text = this.readDelta(payload);
        if (text) this.emit({ type: 'refusal', choice: 0, text });
        return this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
      }
      case 'response.audio.delta':
      case 'response.audio.transcript.delta': {
        // Audio output (`modalities` with audio): base64 pieces and their transcript, with no item of their own.
        const text = this.readDelta(payload);
        if (text) this.emit({ type: 'audio', choice: 0, ...(type === 'response.audio.delta' ? { data: text } : { transcript: text }) });
        return this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
      }
      case 'response.image_generation_call.partial_image':
        return this.readImagePreview(payload, frame);
      case 'response.reasoning_summary_text.delta':
        return this.readReasoning(payload, 'summary', payload['summary_index']);
      case 'response.reasoning_text.delta':
        return this.readReasoning(payload, 'text', payload['content_index']);
      case 'response.completed':
        this.keepUnmapped(payload, MAPPED_LIFECYCLE_EVENT);
        // Some servers end a reply the token limit cut with response.completed, its status incomplete.
        return this.terminate(response?.['status'] === 'incomplete' ? this.incompleteReason(response) : 'completed', response, payload);
      case 'response.incomplete':
        this.keepUnmapped(payload, MAPPED_LIFECYCLE_EVENT);
        return this.terminate(this.incompleteReason(response), response, payload);
      case 'response.failed':
        // `response.error` holds {code, message}; without a response, the payload is all there is.
        throw this.providerError(isJsonObject(response) ? response : payload);
      default:
        if (type !== undefined && LIFECYCLE_EVENTS.has(type)) return this.keepUnmapped(payload, MAPPED_LIFECYCLE_EVENT);
        if (type !== undefined && PART_EVENTS.has(type)) return this.readPart(payload);
        if (type !== undefined && TOOL_PROGRESS_EVENTS.has(type)) return this.keepUnmapped(payload, MAPPED_TOOL_PROGRESS_EVENT, CHOICE);
        this.unknown(payload, frame);
    }
  }

  /**
   * A preview of the image a generation call is making: an `image-preview` of the call (its item id),
   * never kept (the finished item has the image, and says the `size`, `quality`, `background` and
   * `output_format` the event repeats). One that names no call, index or image is passed on as `unknown`.
   */
  private readImagePreview(payload: JsonObject, frame: SseFrame): void {
    const id = nonEmptyString(payload['item_id']);
    const index = payload['partial_image_index'];
    const data = nonEmptyString(payload['partial_image_b64']);
    if (id === undefined || data === undefined || !isIndex(index)) return this.unknown(payload, frame);
    const format = nonEmptyString(payload['output_format']);
    this.emit({ type: 'image-preview', choice: 0, id, index, data, ...(format === undefined ? {} : { format }) });
  }

  /** An event that frames text read elsewhere (a part opened or finished, a part's whole text): only what it carries beside. */
  private readPart(payload: JsonObject): void {
    this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
    const part = payload['part'];
    if (isJsonObject(part)) this.keepUnmapped(part, MAPPED_PART, CHOICE);
  }

  private checkStrict(type: string | undefined, sequence: unknown): void {
    if (type === undefined) throw this.protocolError('the event has no type', 'strict');
    if (!isIndex(sequence)) throw this.protocolError(`sequence_number is ${describeValue(sequence)}`, 'strict');
    const expected = this.lastSequence === undefined ? 0 : this.lastSequence + 1;
    if (sequence !== expected) throw this.protocolError(`sequence_number is ${sequence}, expected ${expected}`, 'strict');
    this.lastSequence = sequence;
  }

  /** The start, at the first response id; again when a later response names the model the first lacked. */
  private readStart(response: JsonObject): void {
    if (this.modelNamed) return;
    const model = nonEmptyString(response['model']);
    if (this.responseId === undefined) {
      const id = nonEmptyString(response['id']);
      if (id === undefined) return;
      this.responseId = id;
      this.modelNamed = model !== undefined;
      this.emit({ type: 'start', id, model: model ?? null });
    } else if (model !== undefined) {
      this.modelNamed = true;
      this.emit({ type: 'start', id: this.responseId, model });
    }
  }

  /** `response.output_text.delta`: content, counted in its part for the spans of annotations, and its log probabilities. */
  private readContent(payload: JsonObject): void {
    const text = this.readDelta(payload);
    if (text) {
      this.parts.addText(this.itemOf(payload), this.partOf(payload), text.length);
      this.emit({ type: 'content', choice: 0, text });
    }
    this.readLogprobs(payload['logprobs']);
    this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
  }

  /** The `logprobs` of a text delta: an empty list unless the request asked for them. */
  private readLogprobs(logprobs: unknown): void {
    if (!Array.isArray(logprobs)) {
      if (logprobs !== undefined && logprobs !== null && this.strict) {
        throw this.protocolError(`logprobs is ${describeValue(logprobs)}, not a list`, 'strict');
      }
      return;
    }
    if (logprobs.length === 0) return;
    const { tokens, skipped } = readTokenLogprobs(logprobs);
    if (skipped > 0 && this.strict) {
      throw this.protocolError(`logprobs has ${skipped} entries that are not a token's log probability`, 'strict');
    }
    if (tokens.length > 0) this.emit({ type: 'logprobs', choice: 0, content: tokens });
  }

  /** `response.output_text.annotation.added`: a source; an annotation of a type not known is passed on. */
  private readAnnotation(payload: JsonObject, frame: SseFrame): void {
    this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
    const annotation = payload['annotation'];
    // The SDK types allow a null annotation: it names nothing.
    if (annotation === null) return;
    const annotated = isJsonObject(annotation) ? annotationSource(annotation) : undefined;
    if (annotated === undefined) return this.unknown(payload, frame);
    const item = this.itemOf(payload);
    const part = this.partOf(payload);
    if (!this.parts.isNew(item, part, payload['annotation_index'])) return;
    const { source, span } = annotated;
    if (span === undefined) return this.emit({ type: 'source', choice: 0, source });
    // The annotation counts from the start of its part; the source, from the start of the content.
    const offset = this.parts.startOf(item, part);
    this.emit({ type: 'source', choice: 0, source: { ...source, span: { start: offset + span.start, end: offset + span.end } } });
  }

  /** The item a text event belongs to: its `item_id`, else its `output_index` (servers that leave ids out). */
  private itemOf(payload: JsonObject): string | number | undefined {
    const itemId = payload['item_id'];
    if (typeof itemId === 'string') return itemId;
    const outputIndex = payload['output_index'];
    return isIndex(outputIndex) ? outputIndex : undefined;
  }

  private partOf(payload: JsonObject): number | undefined {
    const part = payload['content_index'];
    return isIndex(part) ? part : undefined;
  }

  private readReasoning(payload: JsonObject, kind: 'summary' | 'text', partIndex: unknown): void {
    const delta = this.readDelta(payload);
    if (delta !== '') {
      const item = typeof payload['item_id'] === 'string' ? payload['item_id'] : String(payload['output_index']);
      // Constant size per delta: the key names the part, not the text.
      const part = `${kind}\n${item}\n${String(partIndex)}`;
      const text = this.reasoningPart !== undefined && this.reasoningPart !== part ? `\n\n${delta}` : delta;
      this.reasoningPart = part;
      this.emit({ type: 'reasoning', choice: 0, text });
    }
    this.keepUnmapped(payload, MAPPED_TEXT_EVENT, CHOICE);
  }

  private incompleteReason(response: JsonObject | null | undefined): string {
    const details = response?.['incomplete_details'];
    if (details === undefined || details === null) return 'incomplete';
    if (!isJsonObject(details)) throw this.protocolError('response.incomplete_details is not an object');
    return this.optionalString(details['reason'], 'response.incomplete_details.reason') ?? 'incomplete';
  }

  /**
   * The terminal event: the finish, the response's usage, llama.cpp's timings (beside the response,
   * or in it), the end.
   */
  private terminate(raw: string, response: JsonObject | null | undefined, payload: JsonObject): void {
    const rawUsage = response?.['usage'];
    let usage: Usage | undefined;
    if (isJsonObject(rawUsage)) {
      usage = readResponsesUsage(rawUsage);
      // The cache writes split by their time to live (`cache_write_tokens_details`): kept on the reply.
      const details = rawUsage['input_tokens_details'];
      if (isJsonObject(details)) this.keepUnmapped(details, MAPPED_INPUT_DETAILS);
    } else if (rawUsage !== undefined && rawUsage !== null) throw this.protocolError('response.usage is not an object');
    const timings = this.object(payload['timings'], 'timings') ?? this.object(response?.['timings'], 'response.timings');
    this.finish(0, raw);
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    if (timings !== undefined) this.emit({ type: 'timings', timings: readTimings(timings) });
    this.endStream();
  }
}

/**
 * The `openai-responses` dialect: the OpenAI Responses API stream, for `assembleChunks`.
 *
 * @example
 * ```ts
 * import { assembleChunks, openaiResponses } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks({ dialect: openaiResponses }));
 * ```
 */
export const openaiResponses = defineDialect({
  name: 'openai-responses',
  create: (emit, options) => new OpenAiResponsesParser(emit, options),
  isFinal: finalByType(TERMINAL_EVENTS),
  recognizes: (payload) => typeof payload['type'] === 'string' && payload['type'].startsWith('response.'),
});
