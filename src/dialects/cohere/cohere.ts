import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, ProviderError } from '../../errors/errors.js';
import type { FinishReasonTable } from '../../types/replyParts.js';
import { JsonObject, copyJson, excerpt, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { finalByType, isErrorFrame } from '../base/finalFrames.js';
import { describeValue, hasError } from '../base/payloadValues.js';
import { buildUsage } from '../base/usage.js';
import { CohereCitations } from './cohereCitations.js';

/**
 * The event types of Cohere's v2 chat stream: the members of the SDK's `V2ChatStreamResponse` union
 * (cohere-ai/cohere-typescript, `src/serialization/resources/v2/types/V2ChatStreamResponse.ts`).
 */
const EVENT_TYPES: ReadonlySet<string> = new Set([
  'message-start',
  'content-start',
  'content-delta',
  'content-end',
  'tool-plan-delta',
  'tool-call-start',
  'tool-call-delta',
  'tool-call-end',
  'citation-start',
  'citation-end',
  'message-end',
  'debug',
]);

/**
 * Cohere's finish reasons (the SDK's `ChatFinishReason`, which lists one more than the API
 * reference's streaming page: `TIMEOUT`). `COMPLETE` and `STOP_SEQUENCE` are `stop`; `MAX_TOKENS`,
 * "the model's context length or `max_tokens`", is `length`; `TOOL_CALL` is `tool_calls`. `ERROR`
 * ("the generation failed due to an internal error") and `TIMEOUT` ("stopped because it exceeded the
 * allowed time limit") are both `error`: the server stopped the generation, neither the model nor a
 * token limit did, and a program that retries a failed generation should retry these.
 *
 * @example
 * ```ts
 * COHERE_FINISH_REASONS['TOOL_CALL']; // 'tool_calls'
 * ```
 */
export const COHERE_FINISH_REASONS: FinishReasonTable = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
  ERROR: 'error',
  TIMEOUT: 'error',
};

/**
 * The fields this dialect reads at each level of an event, or knows to carry nothing. Every other
 * field is kept as `providerMetadata.cohere`: an event's own fields (beside `type`, the event's name,
 * `index`, the block's or call's place in the stream, `delta` and message-start's `id`) and
 * message-end's `delta` fields (beside `finish_reason`, `usage`, read whole, and `error`) of the reply;
 * the fields of `delta.message`, of a content object and of a citation, of the choice; a tool call's
 * and its `function`'s, of the call.
 */
const MAPPED_EVENT: ReadonlySet<string> = new Set(['type', 'index', 'delta', 'id']);
/** The `delta` of every event but message-end: only the message it holds. */
const MAPPED_DELTA: ReadonlySet<string> = new Set(['message']);
const MAPPED_END_DELTA: ReadonlySet<string> = new Set(['finish_reason', 'usage', 'error']);
/**
 * `delta.message`. message-start's is the empty message the later events fill in (`role` always the
 * assistant's, `content`, `tool_plan`, `tool_calls` and `citations` empty): known, carrying nothing.
 */
const MAPPED_MESSAGE: ReadonlySet<string> = new Set(['role', 'content', 'tool_plan', 'tool_calls', 'citations']);
/** A text or thinking block's content object, at its start and in its deltas. */
const MAPPED_CONTENT: ReadonlySet<string> = new Set(['type', 'text', 'thinking']);
/** A citation (`CohereCitations` reads its fields; its sources are read whole). */
const MAPPED_CITATION: ReadonlySet<string> = new Set(['start', 'end', 'text', 'sources', 'content_index', 'type']);
/** A tool call at its start (`id`, `type`, `function`) and in its deltas (`function`). */
const MAPPED_CALL: ReadonlySet<string> = new Set(['id', 'type', 'function']);
const MAPPED_FUNCTION: ReadonlySet<string> = new Set(['name', 'arguments']);

/** A content block: what its `content-start` said it holds, and whether it is still open. */
interface ContentBlock {
  readonly kind: 'text' | 'thinking' | 'unknown';
  open: boolean;
}

/** A tool call, by the stream's index: its dense call index, and whether it is still open. */
interface ToolCall {
  readonly index: number;
  open: boolean;
}

/**
 * Cohere's v2 chat stream (`POST /v2/chat`, `stream: true`): `message-start` (the reply's `id`), then
 * content blocks (`content-start`, `content-delta`*, `content-end`, each with its `index`; a block is
 * `text`, or `thinking` for the reasoning models), the tool plan (`tool-plan-delta`*), tool calls
 * (`tool-call-start`, `tool-call-delta`*, `tool-call-end`, by `index`), citations (`citation-start`,
 * `citation-end`), and last `message-end` with the `finish_reason` and the usage. Each event is an SSE
 * `data:` line whose JSON names its `type` (Cohere names the SSE event the same; the type is read,
 * as proxies drop `event:` lines). There is no `[DONE]`.
 *
 * Events: `start` at `message-start` (its id; the stream names no model); `content` from a text
 * block's `text`; `reasoning` from a thinking block's `thinking`, and from the tool plan: the SDK
 * calls `tool_plan` "a chain-of-thought style reflection and plan that the model generates when
 * working with tools", its thinking before its calls, not its answer (an earlier AI SDK Cohere
 * provider streamed it as answer text, the current one drops it; it is kept here, apart from the
 * answer: Cohere's tool-use guide sends it back as the assistant message's `tool_plan`); per tool call a
 * `tool-call-delta` with its id and name (and the start's `arguments`, `""` in practice), one per
 * `tool-call-delta` fragment, and a `tool-call-end`; `source` per source of each citation
 * (`CohereCitations`); at `message-end` `finish`, `usage` and `done`. Calls are numbered 0, 1, 2 in the
 * order they start, whatever their indices.
 *
 * Usage is read from `delta.usage.tokens` (`input_tokens` is `promptTokens`, `output_tokens`
 * `completionTokens`, their sum `totalTokens`: Cohere sends no total) with `cached_tokens`, the
 * prompt tokens that hit the cache, as `cachedPromptTokens`. `billed_units` is not read: it counts
 * what Cohere bills (not its own prompt template), so it is not the model's input, and the cached
 * count is a part of `tokens` (1504 of 1549 input tokens, with 119 billed, in a recorded stream).
 *
 * Errors: an error payload (`event: error`, `{"type": "error"}`, a top-level `error`) and a
 * `message-end` whose `delta.error` says why the generation failed are a `ProviderError` (`type` the
 * finish reason, as `ERROR`); a stream without `message-end` is a `StreamClosedEarlyError` (naming the
 * calls still open); a `message-end` without a finish reason, a delta or an end of a content block
 * or call that never started (or had ended), a second start of one, a call without its id or name,
 * or a field of the wrong type is a `ProtocolError`.
 *
 * Fields this dialect does not read are kept as `providerMetadata.cohere` where they arrived: an
 * event's and message-end's `delta`'s of the reply, `delta.message`'s, a content object's and a
 * citation's of the choice, a tool call's of the call (the `MAPPED_*` sets list what is read).
 *
 * Quirks absorbed by default: frames before `message-start`, a second `message-start` with the same
 * id, a `[DONE]` from a gateway (the reply still ends only at `message-end`), a `message-end` while a
 * block or a call is open (the finish closes the calls), a delta carrying the other kind of text than
 * its block, a call whose `type` is not `function`, and frames after `message-end` (ignored).
 * `strict` makes each of those a `ProtocolError`. `debug` events are Cohere's trace of the prompt,
 * not the reply: skipped. Unknown event, block and source types are skipped, or passed on as
 * `unknown` events with `unknownEvents` (an unknown block's deltas and end with it).
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, cohere } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: cohere }));
 * ```
 */
export class CohereParser extends JsonDialectParser {
  protected readonly endSignal = 'message-end';
  protected override readonly provider = 'cohere';
  // Not Cohere's: a gateway's habit. (The TypeScript SDK's generated reader would stop at one, its
  // `streamTerminator`, but no documented Cohere stream carries it.) The reply ends only at message-end.
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = 'Cohere';
  protected override readonly finishReasons = COHERE_FINISH_REASONS;
  private started = false;
  private messageId: string | undefined = undefined;
  private readonly blocks = new Map<number, ContentBlock>();
  private openBlocks = 0;
  private readonly calls = new Map<number, ToolCall>();
  private openCalls = 0;
  private readonly citations = new CohereCitations();

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    if (frame.event === 'error' || payload['type'] === 'error' || hasError(payload)) return this.providerError(payload);
    return payload['type'] === 'message-end' ? this.generationError(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const rawType = payload['type'];
    if (rawType !== undefined && rawType !== null && typeof rawType !== 'string') {
      throw this.protocolError(`type is ${describeValue(rawType)}`);
    }
    // The payload's type decides; the SSE event name only when the type is missing.
    const type = typeof rawType === 'string' ? rawType : frame.event === 'message' ? undefined : frame.event;
    if (type === undefined) throw this.protocolError('the payload has no type');
    if (this.strict && !this.started && type !== 'message-start' && type !== 'debug' && EVENT_TYPES.has(type)) {
      throw this.protocolError(`${type} arrived before message-start`, 'strict');
    }
    switch (type) {
      case 'message-start':
        this.readMessageStart(payload);
        return this.keepUnmapped(payload, MAPPED_EVENT);
      case 'content-start':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readContentStart(payload, frame);
      case 'content-delta':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readContentDelta(payload, frame);
      case 'content-end':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readContentEnd(payload, frame);
      case 'tool-plan-delta': {
        this.keepUnmapped(payload, MAPPED_EVENT);
        const plan = this.text(this.deltaMessage(payload, type)?.['tool_plan'], 'tool-plan-delta.delta.message', 'tool_plan');
        if (plan) this.emit({ type: 'reasoning', choice: 0, text: plan });
        return;
      }
      case 'tool-call-start':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readCallStart(payload);
      case 'tool-call-delta':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readCallDelta(payload);
      case 'tool-call-end': {
        this.keepUnmapped(payload, MAPPED_EVENT);
        const call = this.openCall(this.callIndex(payload, type), type);
        call.open = false;
        this.openCalls--;
        this.emit({ type: 'tool-call-end', choice: 0, index: call.index });
        return;
      }
      case 'citation-start':
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readCitation(payload, frame);
      case 'citation-end':
        // Closes the citation its start gave whole: nothing to read.
        return this.keepUnmapped(payload, MAPPED_EVENT);
      case 'message-end':
        // Kept before the end: nothing is read after it.
        this.keepUnmapped(payload, MAPPED_EVENT);
        return this.readMessageEnd(payload);
      case 'debug':
        // Cohere's trace of the prompt it built: not part of the reply.
        return;
      default:
        // Event types newer than this parser: skipped (or passed on), as Cohere may add events.
        this.unknown(payload, frame);
    }
  }

  protected override openAtEnd(): string {
    return this.openCalls > 0 ? ` (${this.openCalls} tool call${this.openCalls === 1 ? '' : 's'} still open)` : '';
  }

  private readMessageStart(payload: JsonObject): void {
    const id = this.optionalString(payload['id'], 'message-start.id');
    // Its message is the empty one the later events fill in: looked at only for what a provider adds
    // there, and never refused (it was never read).
    const delta = payload['delta'];
    if (isJsonObject(delta)) {
      this.keepUnmapped(delta, MAPPED_DELTA);
      const message = delta['message'];
      if (isJsonObject(message)) this.keepUnmapped(message, MAPPED_MESSAGE, { choice: 0 });
    }
    if (this.started) {
      // A proxy that merges two generations repeats message-start with another id: not one reply.
      if (id !== this.messageId) {
        throw this.protocolError(`a second message-start with another id (${excerpt(id ?? '')}, was ${excerpt(this.messageId ?? '')})`);
      }
      if (this.strict) throw this.protocolError('message-start arrived twice', 'strict');
      return;
    }
    this.started = true;
    this.messageId = id;
    if (id !== undefined) this.emit({ type: 'start', id, model: null });
  }

  private readContentStart(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content-start');
    if (this.blocks.has(index)) throw this.protocolError(`content block ${index} started twice`);
    const content = this.object(this.deltaMessage(payload, 'content-start')?.['content'], 'content-start.delta.message.content');
    const kind = this.blockKind(content, index);
    this.blocks.set(index, { kind, open: true });
    this.openBlocks++;
    if (kind === 'unknown') {
      // A content block of a kind this dialect does not read: part of the reply, kept as it started.
      if (content !== undefined) this.keepItem(content, { choice: 0 });
      return this.unknown(payload, frame);
    }
    if (content !== undefined) this.readContent(index, kind, content);
  }

  /** What a `content-start` says its block holds: a type this parser does not read is `unknown`. */
  private blockKind(content: JsonObject | undefined, index: number): ContentBlock['kind'] {
    const type = content?.['type'];
    if (type === 'text' || type === 'thinking') return type;
    if (typeof type === 'string') return 'unknown';
    if (this.strict) throw this.protocolError(`content block ${index} has type ${describeValue(type)}`, 'strict');
    // A block that does not say its type is what its text says.
    return typeof content?.['thinking'] === 'string' ? 'thinking' : 'text';
  }

  private readContentDelta(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content-delta');
    const block = this.openBlock(index, 'content-delta');
    if (block.kind === 'unknown') {
      const content = this.deltaMessage(payload, 'content-delta')?.['content'];
      if (content !== undefined) this.keepItem(content, { choice: 0 });
      return this.unknown(payload, frame);
    }
    const content = this.object(this.deltaMessage(payload, 'content-delta')?.['content'], 'content-delta.delta.message.content');
    if (content !== undefined) this.readContent(index, block.kind, content);
  }

  /** A content object's text: `text` is answer, `thinking` reasoning, whichever block carries it. */
  private readContent(index: number, kind: 'text' | 'thinking', content: JsonObject): void {
    this.keepUnmapped(content, MAPPED_CONTENT, { choice: 0 });
    const where = `content block ${index}`;
    const text = this.text(content['text'], where, 'text');
    const thinking = this.text(content['thinking'], where, 'thinking');
    if (this.strict && (kind === 'text' ? thinking : text)) {
      throw this.protocolError(`${where}, a ${kind} block, carries ${kind === 'text' ? 'thinking' : 'text'}`, 'strict');
    }
    if (thinking) this.emit({ type: 'reasoning', choice: 0, text: thinking });
    if (text) {
      this.citations.appendText(index, text);
      this.emit({ type: 'content', choice: 0, text });
    }
  }

  private readContentEnd(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content-end');
    const block = this.openBlock(index, 'content-end');
    block.open = false;
    this.openBlocks--;
    if (block.kind === 'unknown') this.unknown(payload, frame);
  }

  private readCallStart(payload: JsonObject): void {
    const streamIndex = this.callIndex(payload, 'tool-call-start');
    if (this.calls.has(streamIndex)) throw this.protocolError(`tool call ${streamIndex} started twice`, 'invalid-tool-call');
    const where = `tool call ${streamIndex}`;
    const call = this.object(this.deltaMessage(payload, 'tool-call-start')?.['tool_calls'], 'tool-call-start.delta.message.tool_calls');
    if (call === undefined) throw this.protocolError(`tool-call-start ${streamIndex} has no tool_calls`, 'invalid-tool-call');
    const id = nonEmptyString(call['id']);
    if (id === undefined) throw this.protocolError(`${where} has id ${describeValue(call['id'])}`, 'invalid-tool-call');
    // The SDK's ToolCallV2 has `type: "function"`, the only kind Cohere calls.
    if (this.strict && call['type'] !== 'function') throw this.protocolError(`${where} has type ${describeValue(call['type'])}`, 'strict');
    const fn = this.object(call['function'], `${where}.function`);
    const name = nonEmptyString(fn?.['name']);
    if (name === undefined) throw this.protocolError(`${where} has name ${describeValue(fn?.['name'])}`, 'invalid-tool-call');
    const start = this.text(fn?.['arguments'], `${where}.function`, 'arguments') ?? '';
    const index = this.newCall(0);
    this.calls.set(streamIndex, { index, open: true });
    this.openCalls++;
    this.emit({ type: 'tool-call-delta', choice: 0, index, id, name, arguments: start });
    // Kept once the call exists: the call's `tool-call` (groupToolCallsByIndex) carries it too.
    this.keepUnmapped(call, MAPPED_CALL, { choice: 0, call: index });
    if (fn !== undefined) this.keepUnmapped(fn, MAPPED_FUNCTION, { choice: 0, call: index });
  }

  private readCallDelta(payload: JsonObject): void {
    const streamIndex = this.callIndex(payload, 'tool-call-delta');
    const call = this.openCall(streamIndex, 'tool-call-delta');
    const where = `tool call ${streamIndex}`;
    const fragment = this.object(this.deltaMessage(payload, 'tool-call-delta')?.['tool_calls'], `${where}.delta.message.tool_calls`);
    const fn = this.object(fragment?.['function'], `${where}.function`);
    const text = this.text(fn?.['arguments'], `${where}.function`, 'arguments') ?? '';
    this.emit({ type: 'tool-call-delta', choice: 0, index: call.index, arguments: text });
    if (fragment !== undefined) this.keepUnmapped(fragment, MAPPED_CALL, { choice: 0, call: call.index });
    if (fn !== undefined) this.keepUnmapped(fn, MAPPED_FUNCTION, { choice: 0, call: call.index });
  }

  private readCitation(payload: JsonObject, frame: SseFrame): void {
    const where = 'citation-start.delta.message.citations';
    const citation = this.deltaMessage(payload, 'citation-start')?.['citations'];
    if (!isJsonObject(citation)) throw this.protocolError(`${where} is ${describeValue(citation)}, not an object`);
    this.keepUnmapped(citation, MAPPED_CITATION, { choice: 0 });
    const sources = citation['sources'];
    if (sources === undefined || sources === null) return;
    if (!Array.isArray(sources)) throw this.protocolError(`${where}.sources is ${describeValue(sources)}, not an array`);
    for (let i = 0; i < sources.length; i++) {
      const source: unknown = sources[i];
      if (!isJsonObject(source)) throw this.protocolError(`${where}.sources[${i}] is ${describeValue(source)}, not an object`);
    }
    const read = this.citations.read(citation, sources as JsonObject[]);
    for (const source of read.sources) this.emit({ type: 'source', choice: 0, source });
    if (read.unknownSource) this.unknown(payload, frame);
  }

  private readMessageEnd(payload: JsonObject): void {
    const delta = this.object(payload['delta'], 'message-end.delta');
    if (delta !== undefined) this.keepUnmapped(delta, MAPPED_END_DELTA);
    const raw = delta?.['finish_reason'];
    if (typeof raw !== 'string' || raw === '') throw this.protocolError(`message-end.delta.finish_reason is ${describeValue(raw)}`);
    if (this.strict && this.openBlocks > 0) throw this.protocolError('message-end arrived while a content block was open', 'strict');
    if (this.strict && this.openCalls > 0) throw this.protocolError('message-end arrived while a tool call was open', 'strict');
    // Calls still open close here (the tracker closes them at the finish); the raw value is kept.
    this.finish(0, raw);
    this.readUsage(delta?.['usage']);
    this.endStream();
  }

  private readUsage(raw: unknown): void {
    const where = 'message-end.delta.usage';
    const usage = this.object(raw, where);
    if (usage === undefined) return;
    const tokens = this.object(usage['tokens'], `${where}.tokens`);
    const input = tokens === undefined ? undefined : this.count(tokens['input_tokens'], `${where}.tokens`, 'input_tokens');
    const output = tokens === undefined ? undefined : this.count(tokens['output_tokens'], `${where}.tokens`, 'output_tokens');
    const cached = this.count(usage['cached_tokens'], where, 'cached_tokens');
    const total = input === undefined || output === undefined ? undefined : input + output;
    const read = buildUsage(input, output, total, cached);
    if (read !== undefined) this.emit({ type: 'usage', usage: read });
  }

  /** A `message-end` whose `delta.error` says why the generation failed: the provider's error. */
  private generationError(payload: JsonObject): LlmStreamError | undefined {
    const delta = payload['delta'];
    if (!isJsonObject(delta)) return undefined;
    const message = nonEmptyString(delta['error']);
    if (message === undefined) return undefined;
    const reason = nonEmptyString(delta['finish_reason']);
    return new ProviderError(`the provider reported an error at frame ${this.frameCount}: ${message}${reason ? ` (${reason})` : ''}`, {
      position: { event: this.frameCount },
      body: copyJson(payload),
      ...(reason === undefined ? {} : { type: reason }),
    });
  }

  /** `delta.message` of an event, or undefined when absent. */
  private deltaMessage(payload: JsonObject, type: string): JsonObject | undefined {
    const delta = this.object(payload['delta'], `${type}.delta`);
    if (delta === undefined) return undefined;
    this.keepUnmapped(delta, MAPPED_DELTA);
    const message = this.object(delta['message'], `${type}.delta.message`);
    if (message !== undefined) this.keepUnmapped(message, MAPPED_MESSAGE, { choice: 0 });
    return message;
  }

  private blockIndex(payload: JsonObject, what: string): number {
    return this.index(payload['index'], `${what}.index`, 'a block index');
  }

  private callIndex(payload: JsonObject, what: string): number {
    return this.index(payload['index'], `${what}.index`, 'a tool-call index');
  }

  private openBlock(index: number, what: string): ContentBlock {
    const block = this.blocks.get(index);
    if (block === undefined) throw this.protocolError(`${what} for content block ${index}, which never started`);
    if (!block.open) throw this.protocolError(`${what} for content block ${index}, which had ended`);
    return block;
  }

  private openCall(streamIndex: number, what: string): ToolCall {
    const call = this.calls.get(streamIndex);
    if (call === undefined) throw this.protocolError(`${what} for tool call ${streamIndex}, which never started`, 'invalid-tool-call');
    if (!call.open) throw this.protocolError(`${what} for tool call ${streamIndex}, which had ended`, 'invalid-tool-call');
    return call;
  }
}

/** The end of a Cohere stream: `message-end`, by its payload's type or its event name. */
const endsAtMessageEnd = finalByType(new Set(['message-end']));

/**
 * The `cohere` dialect: Cohere's v2 chat stream (`POST /v2/chat` with `stream: true`; also served by
 * vLLM's Cohere-compatible endpoint). `auto` picks it from a payload whose `type` is one of Cohere's
 * hyphenated event types; those share no name with Anthropic's (`message_start`), the Responses API's
 * (`response.*`) or the typed events' (`text`, `tool_call_*`). This library's own `chat-events` use
 * two of the names (`tool-call-delta`, `tool-call-end`) and always carry a `choice`, which no Cohere
 * event has: such a payload is not taken for Cohere's.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, cohere } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: cohere }), finalizeCompletion());
 * ```
 */
export const cohere = defineDialect({
  name: 'cohere',
  create: (emit, options) => new CohereParser(emit, options),
  isFinal: (frame) => endsAtMessageEnd(frame) || isErrorFrame(frame),
  recognizes: (payload) => {
    const type = payload['type'];
    return typeof type === 'string' && EVENT_TYPES.has(type) && !('choice' in payload);
  },
  finishReasons: COHERE_FINISH_REASONS,
});
