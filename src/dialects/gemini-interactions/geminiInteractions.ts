import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, ProviderError } from '../../errors/errors.js';
import type { ChatEvent } from '../../types/events.js';
import type { FinishReasonTable, JsonValue } from '../../types/replyParts.js';
import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { DialectOptions, defineDialect } from '../Dialect.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { isErrorFrame, payloadMentioning } from '../base/finalFrames.js';
import { describeValue } from '../base/payloadValues.js';
import { buildUsage } from '../base/usage.js';
import { CHOICE_0, InteractionHost, readAnnotations, readInteractionContent } from './interactionContent.js';

/** The event types of an interaction's stream: `InteractionSSEEvent` of `@google/genai` 3.x. */
const EVENT_TYPES: ReadonlySet<string> = new Set([
  'interaction.created',
  'interaction.status_update',
  'interaction.completed',
  'step.start',
  'step.delta',
  'step.stop',
]);

/**
 * The statuses an interaction ends with (`InteractionSseEventInteractionStatus`): `completed` is
 * `stop`; `requires_action`, "waiting for the client" after the function calls the program must
 * answer, `tool_calls`; `incomplete` (a long decode stopped, to resume with its continuation token)
 * and `budget_exceeded` `length`; `failed` `error`; `cancelled` and the rest `other`.
 *
 * @example
 * ```ts
 * GEMINI_INTERACTIONS_FINISH_REASONS['requires_action']; // 'tool_calls'
 * ```
 */
export const GEMINI_INTERACTIONS_FINISH_REASONS: FinishReasonTable = {
  completed: 'stop',
  requires_action: 'tool_calls',
  incomplete: 'length',
  budget_exceeded: 'length',
  failed: 'error',
  cancelled: 'other',
};

/**
 * The fields read at each level, or known to carry nothing; the others are kept as
 * `providerMetadata.google` (of the reply; a step's and its contents' of the choice). `event_id`, the
 * token to resume the stream from an event, differs on every event and is not kept.
 */
const MAPPED_EVENT: ReadonlySet<string> = new Set([
  'event_type',
  'event_id',
  'interaction',
  'interaction_id',
  'status',
  'index',
  'step',
  'delta',
  'metadata',
  'usage',
]);
/** The interaction of `interaction.created` and `.completed`: `updated` changes, `steps` repeats what streamed. */
const MAPPED_INTERACTION: ReadonlySet<string> = new Set(['id', 'model', 'status', 'usage', 'steps', 'updated', 'continuation_token']);
const MAPPED_THOUGHT: ReadonlySet<string> = new Set(['type', 'summary', 'signature']);
const MAPPED_OUTPUT: ReadonlySet<string> = new Set(['type', 'content', 'error']);
const MAPPED_CALL: ReadonlySet<string> = new Set(['type', 'id', 'name', 'arguments']);
const MAPPED_SERVER_CALL: ReadonlySet<string> = new Set(['type', 'id', 'name', 'arguments', 'signature']);
const MAPPED_SERVER_RESULT: ReadonlySet<string> = new Set(['type', 'call_id', 'name', 'result', 'signature']);
/** A delta that is read (`text`, `thought_summary`, `thought_signature`, `arguments_delta`, `text_annotation_delta`, a tool step's). */
const MAPPED_DELTA: ReadonlySet<string> = new Set(['type', 'text', 'content', 'signature', 'arguments', 'annotations', 'result']);
/** `Usage`: the counts read; the breakdowns by modality, the tool-use and grounding counts are kept. */
const MAPPED_USAGE: ReadonlySet<string> = new Set([
  'total_input_tokens',
  'total_output_tokens',
  'total_thought_tokens',
  'total_cached_tokens',
  'total_tokens',
]);

/** The reply as a place. */
const REPLY: MetadataPlace = {};

/** A step of the interaction, by its `index`, as `step.start` opened it. */
type Step =
  | { readonly kind: 'thought' | 'output' | 'other'; open: boolean }
  | { readonly kind: 'call'; open: boolean; readonly call: number; readonly whole: boolean }
  | {
      readonly kind: 'server-call';
      open: boolean;
      readonly id: string;
      readonly name: string;
      readonly type: string;
      input: JsonValue;
      text: string;
    }
  | { readonly kind: 'server-result'; open: boolean; readonly callId: string; readonly type: string; result: JsonValue };

/**
 * Gemini's Interactions API stream (`POST /v1beta/interactions` with `stream: true`; the SDK's
 * `client.interactions.create({ stream: true })`): named SSE events whose payload's `event_type`
 * repeats the name. `interaction.created` (the interaction's `id` and `model`), then the steps of the
 * turn, each `step.start` (the step: `thought`, `model_output`, `function_call`, a server-side tool's
 * call or result), `step.delta`s and `step.stop` by its `index`, `interaction.status_update`s, and
 * last `interaction.completed` with the status and the usage; then `event: done` with `[DONE]`.
 *
 * Events: `start` at `interaction.created`; a `thought` step's summary (its `thought_summary` deltas)
 * is `reasoning`, its `signature` (at its start or in a `thought_signature` delta) a
 * `reasoning-signature` and an opaque item of the reasoning; a `model_output` step's text (its content
 * blocks, its `text` deltas) is `content`, its citations `source`s (`readAnnotations`); a
 * `function_call` step is a call for the program (`tool-call-delta` with its `id`, `name` and the
 * arguments of its start, then its `arguments_delta` pieces, `tool-call-end` at its stop); a step of a
 * tool Google runs (`google_search_call`, `code_execution_call`, `url_context_call`,
 * `google_maps_call`, `file_search_call`, `mcp_server_tool_call`, ...: every type ending in `_call`
 * but `function_call`) is a `provider-tool-call` at its stop (its `id`, its `name` or the type without
 * `_call`, its arguments, the last its deltas gave), and its `*_result` step the `provider-tool-result`
 * of the call its `call_id` names, never a call for the program; content blocks, deltas and steps of
 * other kinds are kept whole under the choice's `items`. `usage` from every `usage` (`step.stop`,
 * `interaction.status_update`, `interaction.completed`) and `metadata.total_usage` (a running total,
 * the last one holds); at `interaction.completed` its `continuation_token` as an opaque item, the
 * `finish` (raw: the interaction's `status`) and `done`.
 *
 * Usage: `total_input_tokens` is the prompt, `total_cached_tokens` its cached part; the completion is
 * `total_output_tokens` plus `total_thought_tokens` (all output, as the `gemini` dialect counts it),
 * the latter also as `reasoningTokens`; `total_tokens` as sent.
 *
 * Errors: the `error` event (`error.code`, `error.message`) and a `model_output` step with an `error`
 * are a `ProviderError`; a stream without `interaction.completed` is a `StreamClosedEarlyError` (a
 * `[DONE]` does not end it); a delta or a stop of a step that never started, a `function_call` without
 * its id or name, or a field of the wrong type is a `ProtocolError`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, geminiInteractions } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: geminiInteractions }));
 * ```
 */
export class GeminiInteractionsParser extends JsonDialectParser {
  protected readonly endSignal = 'interaction.completed';
  protected override readonly provider = 'google';
  protected override readonly finishReasons = GEMINI_INTERACTIONS_FINISH_REASONS;
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = 'Gemini Interactions';
  // The wire's own close, `event: done` with `[DONE]`, comes after the end.
  protected override readonly afterEnd = 'ignore';

  #started = false;
  #interactionId = '';
  readonly #steps = new Map<number, Step>();
  /** The ids of the server-side tool calls made so far: a result names one of them. */
  readonly #serverCalls = new Set<string>();
  readonly #host: InteractionHost;

  constructor(emit: (event: ChatEvent) => void, options?: DialectOptions) {
    super(emit, options);
    this.#host = {
      emit: (event) => this.emit(event),
      keepUnmapped: (object, mapped, place) => this.keepUnmapped(object, mapped, place),
      keepItem: (item, place) => this.keepItem(item, place),
      text: (value, where, field) => this.text(value, where, field),
    };
  }

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    const failed =
      frame.event === 'error' || payload['event_type'] === 'error' || (payload['error'] !== undefined && payload['error'] !== null);
    return failed ? this.providerError(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['event_type'];
    if (typeof type !== 'string') throw this.protocolError(`the event's event_type is ${describeValue(type)}`);
    if (!EVENT_TYPES.has(type)) return this.unknown(payload, frame);
    this.keepUnmapped(payload, MAPPED_EVENT, REPLY);
    switch (type) {
      case 'interaction.created':
        this.readInteraction(payload, type);
        return;
      case 'interaction.status_update':
        // Its status says where the interaction is (`in_progress`, ...): the end says how it ended.
        return this.readUsage(payload['usage'], `${type}.usage`);
      case 'step.start':
        return this.readStepStart(payload);
      case 'step.delta':
        return this.readStepDelta(payload);
      case 'step.stop':
        return this.readStepStop(payload);
      default:
        return this.readCompleted(payload);
    }
  }

  /** The interaction of a lifecycle event: its id and model, at the first. */
  private readInteraction(payload: JsonObject, type: string): JsonObject | undefined {
    const interaction = this.object(payload['interaction'], `${type}.interaction`);
    if (interaction === undefined) return undefined;
    this.keepUnmapped(interaction, MAPPED_INTERACTION, REPLY);
    if (!this.#started) {
      const id = this.optionalString(interaction['id'], `${type}.interaction.id`) ?? '';
      const model = this.optionalString(interaction['model'], `${type}.interaction.model`) ?? null;
      this.#started = true;
      this.#interactionId = id;
      this.emit({ type: 'start', id, model });
    }
    return interaction;
  }

  private readCompleted(payload: JsonObject): void {
    const interaction = this.readInteraction(payload, 'interaction.completed');
    const status = nonEmptyString(interaction?.['status']);
    if (status === undefined) throw this.protocolError(`interaction.completed has status ${describeValue(interaction?.['status'])}`);
    this.readUsage(interaction?.['usage'], 'interaction.completed.interaction.usage');
    const token = nonEmptyString(interaction?.['continuation_token']);
    if (token !== undefined) {
      const item = { provider: 'google', kind: 'continuation', type: 'continuation_token', part: 'turn', data: token } as const;
      this.emit({ type: 'opaque-item', choice: 0, item });
    }
    this.finish(0, status);
    this.endStream();
  }

  private readStepStart(payload: JsonObject): void {
    const index = this.index(payload['index'], 'step.start.index', 'a step index');
    if (this.#steps.has(index)) throw this.protocolError(`step ${index} started twice`);
    const step = this.object(payload['step'], 'step.start.step');
    const type = nonEmptyString(step?.['type']);
    const where = `step ${index}`;
    if (step === undefined || type === undefined) {
      this.#steps.set(index, { kind: 'other', open: true });
      return this.keepItem(step ?? {}, CHOICE_0);
    }
    switch (type) {
      case 'thought': {
        this.#steps.set(index, { kind: 'thought', open: true });
        this.keepUnmapped(step, MAPPED_THOUGHT, CHOICE_0);
        for (const block of this.list(step['summary'], `${where}.summary`)) readInteractionContent(this.#host, block, 'reasoning', where);
        return this.signature(step['signature'], index);
      }
      case 'model_output': {
        this.#steps.set(index, { kind: 'output', open: true });
        const error = step['error'];
        if (error !== undefined && error !== null) throw this.stepError(error, index);
        this.keepUnmapped(step, MAPPED_OUTPUT, CHOICE_0);
        for (const block of this.list(step['content'], `${where}.content`)) readInteractionContent(this.#host, block, 'content', where);
        return;
      }
      case 'function_call':
        return this.startCall(step, index);
      default:
        return this.startOther(step, type, index);
    }
  }

  private startCall(step: JsonObject, index: number): void {
    const where = `step ${index}`;
    const id = nonEmptyString(step['id']);
    if (id === undefined) throw this.protocolError(`${where}, a function_call, has id ${describeValue(step['id'])}`, 'invalid-tool-call');
    const name = nonEmptyString(step['name']);
    if (name === undefined)
      throw this.protocolError(`${where}, a function_call, has name ${describeValue(step['name'])}`, 'invalid-tool-call');
    const args = step['arguments'];
    if (args !== undefined && args !== null && !isJsonObject(args))
      throw this.protocolError(`${where}.arguments is ${describeValue(args)}, not an object`);
    // Arguments given whole at the start are the call's; an empty object leaves them to the deltas.
    const whole = isJsonObject(args) && Object.keys(args).length > 0;
    const call = this.newCall(0);
    this.#steps.set(index, { kind: 'call', open: true, call, whole });
    this.emit({
      type: 'tool-call-delta',
      choice: 0,
      index: call,
      id,
      name,
      arguments: whole ? this.serialize(args, `${where}.arguments`) : '',
    });
    this.keepUnmapped(step, MAPPED_CALL, { choice: 0, call });
  }

  /** A step of a tool Google runs (`*_call`), its result (`*_result`), or a step this dialect does not read. */
  private startOther(step: JsonObject, type: string, index: number): void {
    const args = step['arguments'];
    if (type.endsWith('_call')) {
      this.keepUnmapped(step, MAPPED_SERVER_CALL, CHOICE_0);
      const id = nonEmptyString(step['id']) ?? `${this.#interactionId}-step-${index}`;
      const name = nonEmptyString(step['name']) ?? type.slice(0, -'_call'.length);
      const input = args === undefined || args === null ? {} : copyJson(args);
      this.#steps.set(index, { kind: 'server-call', open: true, id, name, type, input, text: '' });
      return this.signature(step['signature'], index, 'turn');
    }
    const callId = nonEmptyString(step['call_id']);
    if (type.endsWith('_result') && type !== 'function_result' && callId !== undefined && this.#serverCalls.has(callId)) {
      this.keepUnmapped(step, MAPPED_SERVER_RESULT, CHOICE_0);
      const result = step['result'];
      this.#steps.set(index, { kind: 'server-result', open: true, callId, type, result: result === undefined ? null : copyJson(result) });
      return this.signature(step['signature'], index, 'turn');
    }
    // A step of a kind this dialect does not read (`user_input`, a result of no call it saw): kept whole.
    this.#steps.set(index, { kind: 'other', open: true });
    this.keepItem(step, CHOICE_0);
  }

  private readStepDelta(payload: JsonObject): void {
    const index = this.index(payload['index'], 'step.delta.index', 'a step index');
    const step = this.openStep(index, 'step.delta');
    const where = `step ${index}`;
    const metadata = this.object(payload['metadata'], 'step.delta.metadata');
    const delta = this.object(payload['delta'], 'step.delta.delta');
    const type = delta?.['type'];
    if (delta !== undefined) {
      if (this.readsDelta(step, type)) this.keepUnmapped(delta, MAPPED_DELTA, CHOICE_0);
      if (type === 'text' && (step.kind === 'output' || step.kind === 'thought')) {
        const text = this.text(delta['text'], `${where}.delta`, 'text');
        if (text) this.emit({ type: step.kind === 'thought' ? 'reasoning' : 'content', choice: 0, text });
      } else if (type === 'thought_summary' && step.kind === 'thought') {
        if (delta['content'] !== undefined && delta['content'] !== null)
          readInteractionContent(this.#host, delta['content'], 'reasoning', where);
      } else if (type === 'thought_signature') {
        this.signature(delta['signature'], index, step.kind === 'thought' ? 'reasoning' : 'turn');
      } else if (type === 'text_annotation_delta' && step.kind === 'output') {
        readAnnotations(this.#host, delta['annotations']);
      } else if (type === 'arguments_delta' && (step.kind === 'call' || step.kind === 'server-call')) {
        this.argumentsDelta(step, this.text(delta['arguments'], `${where}.delta`, 'arguments') ?? '', index);
      } else if (typeof type === 'string' && step.kind === 'server-call' && type === step.type) {
        // The call's arguments as they now stand, and its signature.
        if (delta['arguments'] !== undefined && delta['arguments'] !== null) step.input = copyJson(delta['arguments']);
        this.signature(delta['signature'], index, 'turn');
      } else if (typeof type === 'string' && step.kind === 'server-result' && type === step.type) {
        if (delta['result'] !== undefined) step.result = copyJson(delta['result']);
        this.signature(delta['signature'], index, 'turn');
      } else {
        // Image, audio, video or document output, or a delta newer than this reader: kept as it came.
        this.keepItem(delta, CHOICE_0);
      }
    }
    if (metadata !== undefined) this.readUsage(metadata['total_usage'], 'step.delta.metadata.total_usage');
  }

  /** Whether a delta of `type` is read in `step` (else it is kept whole as an item). */
  private readsDelta(step: Step, type: unknown): boolean {
    switch (type) {
      case 'text':
        return step.kind === 'output' || step.kind === 'thought';
      case 'thought_summary':
        return step.kind === 'thought';
      case 'thought_signature':
        return true;
      case 'text_annotation_delta':
        return step.kind === 'output';
      case 'arguments_delta':
        return step.kind === 'call' || step.kind === 'server-call';
      default:
        return (step.kind === 'server-call' || step.kind === 'server-result') && type === step.type;
    }
  }

  private argumentsDelta(step: Extract<Step, { kind: 'call' | 'server-call' }>, text: string, index: number): void {
    if (step.kind === 'server-call') {
      step.text += text;
      return;
    }
    if (step.whole && text !== '')
      throw this.protocolError(`step ${index}: arguments_delta for a call whose arguments came whole`, 'invalid-tool-call');
    this.emit({ type: 'tool-call-delta', choice: 0, index: step.call, arguments: text });
  }

  private readStepStop(payload: JsonObject): void {
    const index = this.index(payload['index'], 'step.stop.index', 'a step index');
    const step = this.openStep(index, 'step.stop');
    step.open = false;
    if (step.kind === 'call') this.emit({ type: 'tool-call-end', choice: 0, index: step.call });
    if (step.kind === 'server-call') {
      const input = step.text === '' ? step.input : parsedOrText(step.text);
      this.#serverCalls.add(step.id);
      this.emit({ type: 'provider-tool-call', choice: 0, call: { id: step.id, name: step.name, type: step.type, input } });
    }
    if (step.kind === 'server-result') this.emit({ type: 'provider-tool-result', choice: 0, id: step.callId, result: step.result });
    this.readUsage(payload['usage'], 'step.stop.usage');
  }

  /** A signature: the thought's (a reasoning signature, and an opaque item of the reasoning), or a tool step's (of the turn). */
  private signature(value: unknown, index: number, part: 'reasoning' | 'turn' = 'reasoning'): void {
    const signature = this.optionalString(value, `step ${index}.signature`);
    if (signature === undefined) return;
    if (part === 'reasoning') this.emit({ type: 'reasoning-signature', choice: 0, signature });
    const item = { provider: 'google', kind: 'signature', type: 'thought_signature', part, block: index, data: signature } as const;
    this.emit({ type: 'opaque-item', choice: 0, item: part === 'reasoning' ? item : { ...item, type: 'signature' } });
  }

  private readUsage(raw: unknown, where: string): void {
    const usage = this.object(raw, where);
    if (usage === undefined) return;
    this.keepUnmapped(usage, MAPPED_USAGE, REPLY);
    const output = this.count(usage['total_output_tokens'], where, 'total_output_tokens');
    const thought = this.count(usage['total_thought_tokens'], where, 'total_thought_tokens');
    const read = buildUsage(
      this.count(usage['total_input_tokens'], where, 'total_input_tokens'),
      output === undefined && thought === undefined ? undefined : (output ?? 0) + (thought ?? 0),
      this.count(usage['total_tokens'], where, 'total_tokens'),
      this.count(usage['total_cached_tokens'], where, 'total_cached_tokens'),
      thought,
    );
    if (read !== undefined) this.emit({ type: 'usage', usage: read });
  }

  /** A `model_output` step's error: the provider's, with its code and message. */
  private stepError(error: unknown, index: number): LlmStreamError {
    const detail = isJsonObject(error) ? error : {};
    const message = nonEmptyString(detail['message']) ?? 'no message';
    const code = detail['code'];
    return new ProviderError(`the provider reported an error at frame ${this.frameCount} (step ${index}): ${message}`, {
      position: { event: this.frameCount },
      body: copyJson(error),
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    });
  }

  private list(value: unknown, where: string): readonly unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.protocolError(`${where} is ${describeValue(value)}, not a list`);
    return value;
  }

  private openStep(index: number, what: string): Step {
    const step = this.#steps.get(index);
    if (step === undefined) throw this.protocolError(`${what} for step ${index}, which never started`);
    if (!step.open) throw this.protocolError(`${what} for step ${index}, which had stopped`);
    return step;
  }
}

/** Argument text a tool step streamed: the JSON it holds, else the text. */
function parsedOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The end of an interaction's stream: `interaction.completed`, by its `event_type` or its event name. */
function endsAtCompleted(frame: SseFrame): boolean {
  if (frame.event === 'interaction.completed') return true;
  return payloadMentioning(frame, '"interaction.completed"')?.['event_type'] === 'interaction.completed';
}

/**
 * The `gemini-interactions` dialect: Gemini's Interactions API stream (`/v1beta/interactions` with
 * `stream: true`). `auto` picks it from a payload whose `event_type` is one of the stream's
 * (`interaction.created`, `.status_update`, `.completed`, `step.start`, `.delta`, `.stop`); no other
 * format names its events in an `event_type` field. `generateContent` streams are `gemini`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, geminiInteractions } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: geminiInteractions }), finalizeCompletion());
 * ```
 */
export const geminiInteractions = defineDialect({
  name: 'gemini-interactions',
  create: (emit, options) => new GeminiInteractionsParser(emit, options),
  isFinal: (frame) => endsAtCompleted(frame) || isErrorFrame(frame) || payloadMentioning(frame, '"error"')?.['event_type'] === 'error',
  recognizes: (payload) => {
    const type = payload['event_type'];
    return typeof type === 'string' && (EVENT_TYPES.has(type) || type === 'error');
  },
  finishReasons: GEMINI_INTERACTIONS_FINISH_REASONS,
});
