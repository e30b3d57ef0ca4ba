import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError } from '../../errors/errors.js';
import { normalizeFinishReason } from '../../internal/finishReason.js';
import { JsonObject, copyJson, excerpt, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { AnthropicBlockParser } from './anthropicBlocks.js';
import { AnthropicUsage } from './anthropicUsage.js';
import { defineDialect } from '../Dialect.js';
import { finalByType } from '../base/finalFrames.js';
import { describeValue, hasError } from '../base/payloadValues.js';

/**
 * The fields this dialect reads at the message's level, or knows to carry nothing; every other field
 * is kept as `providerMetadata.anthropic` of the reply. Each event's own fields: `type` names the
 * event, and `ping` and `message_stop` carry nothing else (Bedrock's
 * `amazon-bedrock-invocationMetrics` beside `message_stop`'s type is kept, as any newer field). The
 * message of `message_start`: its `type` is always `message`, its `role` always the assistant's, its
 * `content` always empty (the content arrives in blocks), its `stop_reason` null until
 * `message_delta` says it; `container`, `context_management` and `stop_sequence` are kept. The
 * changes of `message_delta.delta` are the message's, kept in the same place: `container`,
 * `stop_sequence` and `stop_details` (these two also read as the choice's `finishDetails`). Inside `usage`, read whole, nothing is
 * kept apart.
 */
/**
 * A `usage` object (`Usage`, `MessageDeltaUsage`): the token counts are read; the rest
 * (`server_tool_use`: `ServerToolUsage` {web_search_requests, web_fetch_requests}; `cache_creation`:
 * `CacheCreation` {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}; `service_tier`, ...) is
 * kept on the reply.
 */
const MAPPED_USAGE: ReadonlySet<string> = new Set([
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'output_tokens_details',
]);
const MAPPED_MESSAGE_START: ReadonlySet<string> = new Set(['type', 'message']);
const MAPPED_MESSAGE: ReadonlySet<string> = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'usage']);
const MAPPED_MESSAGE_DELTA: ReadonlySet<string> = new Set(['type', 'delta', 'usage']);
const MAPPED_MESSAGE_CHANGES: ReadonlySet<string> = new Set(['stop_reason']);
const MAPPED_TYPE_ONLY: ReadonlySet<string> = new Set(['type']);

/**
 * Anthropic's Messages stream (`POST /v1/messages`, `stream: true`): `message_start`, then one group
 * of `content_block_start`, `content_block_delta`*, `content_block_stop` per content block (text,
 * thinking, redacted thinking, tool use, the tools Anthropic runs itself and their results), then
 * `message_delta` with the `stop_reason` and the final usage, then `message_stop`. `ping` may come
 * anywhere. There is no `[DONE]`.
 *
 * Frames are dispatched on `data.type`, not on the SSE event name, since proxies drop `event:` lines
 * (the event name is used only when `type` is missing).
 *
 * Events: `start` at `message_start` (id and model); `reasoning` from `thinking_delta`; a
 * `reasoning-signature` from `signature_delta` and from a `redacted_thinking` block's `data`;
 * `content` from `text_delta`; per `tool_use` block a `tool-call-delta` with its id and name at the
 * block's start, one per `input_json_delta`, and a `tool-call-end` at its `content_block_stop`;
 * `source` per citation, at the stop of its text block; `provider-tool-call` per `server_tool_use`
 * or `mcp_tool_use` block at its stop, `provider-tool-result` per `*_tool_result` block;
 * `finish` at the first `message_delta` with a `stop_reason`; `usage` at `message_start` and
 * `message_delta`; `done` at `message_stop`. Calls are numbered 0, 1, 2 in the order their blocks
 * start, whatever their block indices. `AnthropicBlockParser` and `AnthropicToolParser` say more of
 * the blocks.
 *
 * Usage has OpenAI's meaning (`AnthropicUsage`): `promptTokens` is all input, `input_tokens` plus
 * `cache_read_input_tokens` (`cachedPromptTokens`) plus `cache_creation_input_tokens`
 * (`cacheWritePromptTokens`); `output_tokens` is `completionTokens`,
 * `output_tokens_details.thinking_tokens` `reasoningTokens`; `message_delta` reports totals, which
 * replace the earlier values (gateways send `input_tokens: 0` at the start and the real count at the
 * end). `totalTokens` is the sum once both sides are known.
 *
 * Quirks absorbed by default: a duplicate `message_start` with the same id, frames before
 * `message_start`, a `[DONE]` from a gateway (then the stream must still end with `message_stop`),
 * a `message_delta` while a block is still open, a second `stop_reason`, frames after
 * `message_stop` (ignored), a `signature_delta` on a text block (kept as a `reasoning-signature`).
 * `strict` makes each of those a `ProtocolError`. Unknown event, block, delta and citation types are
 * skipped, or passed on as `unknown` events with `unknownEvents` (an unknown block's deltas and stop
 * with it).
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, anthropic } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: anthropic }));
 * ```
 */
export class AnthropicParser extends AnthropicBlockParser {
  protected readonly endSignal = 'message_stop';
  protected override readonly provider = 'anthropic';
  // Not Anthropic's: a gateway's habit. The reply still ends only at message_stop.
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = 'Anthropic';
  private messageId: string | undefined = undefined;
  private finished = false;
  private readonly usage = new AnthropicUsage();

  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    return payload['type'] === 'error' || frame.event === 'error' || hasError(payload) ? this.providerError(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const rawType = payload['type'];
    if (rawType !== undefined && typeof rawType !== 'string') throw this.protocolError(`type is ${describeValue(rawType)}`);
    const type = rawType ?? (frame.event === 'message' ? undefined : frame.event);
    switch (type) {
      case 'message_start':
        this.readMessageStart(payload);
        return this.keepUnmapped(payload, MAPPED_MESSAGE_START);
      case 'content_block_start':
        this.requireStarted('content_block_start');
        return this.readBlockStart(payload, frame);
      case 'content_block_delta':
        return this.readBlockDelta(payload, frame);
      case 'content_block_stop':
        return this.readBlockStop(payload, frame);
      case 'message_delta':
        this.readMessageDelta(payload);
        return this.keepUnmapped(payload, MAPPED_MESSAGE_DELTA);
      case 'message_stop':
        // Kept before the end: nothing is read after `done`.
        this.keepUnmapped(payload, MAPPED_TYPE_ONLY);
        return this.readMessageStop();
      case 'ping':
        return this.keepUnmapped(payload, MAPPED_TYPE_ONLY);
      case undefined:
        throw this.protocolError('the payload has no type');
      default:
        // Event types newer than this parser: skipped, as the official SDK does (or passed on).
        this.unknown(payload, frame);
    }
  }

  private readMessageStart(payload: JsonObject): void {
    const message = payload['message'];
    if (!isJsonObject(message)) throw this.protocolError('message_start.message is not an object');
    const id = nonEmptyString(message['id']);
    if (id === undefined) throw this.protocolError('message_start.message.id is missing');
    if (this.messageId !== undefined) {
      // A proxy that merges two generations repeats message_start with another id: not one reply.
      if (id !== this.messageId) {
        throw this.protocolError(`a second message_start with another id (${excerpt(id)}, was ${excerpt(this.messageId)})`);
      }
      if (this.strict) throw this.protocolError('message_start arrived twice', 'strict');
    } else {
      this.messageId = id;
      this.emit({ type: 'start', id, model: nonEmptyString(message['model']) ?? null });
      this.readUsage(message['usage'], 'message_start.message.usage');
    }
    this.keepUnmapped(message, MAPPED_MESSAGE);
  }

  private readMessageDelta(payload: JsonObject): void {
    this.requireStarted('message_delta');
    if (this.strict && this.openBlocks > 0) throw this.protocolError('message_delta arrived while a content block was open', 'strict');
    const delta = payload['delta'];
    if (delta !== undefined && delta !== null && !isJsonObject(delta)) {
      throw this.protocolError('message_delta.delta is not an object');
    }
    // The code-execution container the next request names (its id, until its expiry): for the turn.
    const container = isJsonObject(delta) ? delta['container'] : undefined;
    if (isJsonObject(container)) {
      const item = { provider: 'anthropic', kind: 'container', type: 'container', part: 'turn', data: copyJson(container) } as const;
      this.emit({ type: 'opaque-item', choice: 0, item });
    }
    const raw = isJsonObject(delta) ? delta['stop_reason'] : undefined;
    if (raw !== undefined && raw !== null) {
      if (typeof raw !== 'string' || raw === '') throw this.protocolError(`message_delta.delta.stop_reason is ${describeValue(raw)}`);
      if (!this.finished) {
        this.finished = true;
        this.settleCutProviderTool(normalizeFinishReason(raw, false));
        this.readFinishDetails(delta as JsonObject);
        // Calls still open close here (the tracker closes them at finish); the raw value is kept.
        this.finish(0, raw);
      } else if (this.strict) {
        throw this.protocolError('a second stop_reason', 'strict');
      }
    }
    if (isJsonObject(delta)) this.keepUnmapped(delta, MAPPED_MESSAGE_CHANGES);
    this.readUsage(payload['usage'], 'message_delta.usage');
  }

  /**
   * What the delta says of the finish beside its reason: `stop_sequence` ("which custom stop sequence
   * was generated, if any") and `stop_details` (`RefusalStopDetails`: the refusal's `category` and
   * `explanation`, null when the reason has no detail), as the choice's finish details.
   */
  private readFinishDetails(delta: JsonObject): void {
    const stopSequence = this.optionalString(delta['stop_sequence'], 'message_delta.delta.stop_sequence');
    const details = this.object(delta['stop_details'], 'message_delta.delta.stop_details');
    const message = details === undefined ? undefined : this.optionalString(details['explanation'], 'stop_details.explanation');
    const category = details === undefined ? undefined : this.optionalString(details['category'], 'stop_details.category');
    if (stopSequence === undefined && message === undefined && category === undefined) return;
    this.emit({
      type: 'finish-details',
      choice: 0,
      details: {
        ...(stopSequence === undefined ? {} : { stopSequence }),
        ...(message === undefined ? {} : { message }),
        ...(category === undefined ? {} : { category }),
      },
    });
  }

  private readMessageStop(): void {
    if (!this.finished) throw this.protocolError('message_stop arrived before any stop_reason');
    if (this.strict && this.openBlocks > 0) throw this.protocolError('message_stop arrived while a content block was open', 'strict');
    this.emitOpenSources();
    this.endStream();
  }

  private readUsage(raw: unknown, where: string): void {
    if (raw === undefined || raw === null) return;
    if (!isJsonObject(raw)) throw this.protocolError(`${where} is not an object`);
    const details = this.object(raw['output_tokens_details'], `${where}.output_tokens_details`);
    const usage = this.usage.update({
      input: this.count(raw['input_tokens'], where, 'input_tokens'),
      cacheRead: this.count(raw['cache_read_input_tokens'], where, 'cache_read_input_tokens'),
      cacheWrite: this.count(raw['cache_creation_input_tokens'], where, 'cache_creation_input_tokens'),
      output: this.count(raw['output_tokens'], where, 'output_tokens'),
      thinking:
        details === undefined ? undefined : this.count(details['thinking_tokens'], `${where}.output_tokens_details`, 'thinking_tokens'),
    });
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    // What usage counts beside the tokens (`server_tool_use`, the cache writes by time to live
    // `cache_creation`, `service_tier`): Anthropic's own, kept on the reply.
    this.keepUnmapped(raw, MAPPED_USAGE);
  }

  private requireStarted(what: string): void {
    if (this.strict && this.messageId === undefined) throw this.protocolError(`${what} arrived before message_start`, 'strict');
  }
}

/** The end of an Anthropic stream: `message_stop`, by its event name or its payload's type. */
const isFinal = finalByType(new Set(['message_stop']));

/**
 * The `anthropic` dialect: Anthropic's Messages stream (also served by llama.cpp's `/v1/messages`,
 * Vertex AI and Anthropic-compatible gateways).
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, anthropic } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: anthropic }), finalizeCompletion());
 * ```
 */
export const anthropic = defineDialect({
  name: 'anthropic',
  create: (emit, options) => new AnthropicParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => {
    const type = payload['type'];
    return (
      typeof type === 'string' &&
      (type === 'message_start' || type === 'ping' || type.startsWith('content_block_') || type.startsWith('message_'))
    );
  },
});
