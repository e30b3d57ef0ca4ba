import { SseFrame } from '../core/SseParser.js';
import { LlmStreamError } from '../errors.js';
import { JsonObject, excerpt, isJsonObject, nonEmptyString } from '../internal/json.js';
import { DialectFactory, dialectFactory } from './Dialect.js';
import { finalByType } from './finalFrames.js';
import { JsonDialectParser } from './JsonDialectParser.js';
import { describeValue, hasError } from './payloadValues.js';

/** What a content block is, as far as assembly cares. */
type BlockKind = 'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'ignored';

/** One content block, keyed by its `index` in the message's `content` array. */
class Block {
  open = true;
  /** True once an `input_json_delta` brought a non-empty fragment (tool_use blocks only). */
  sawInput = false;
  constructor(
    readonly kind: BlockKind,
    /** The dense call index of a tool_use block (-1 for any other block). */
    readonly call: number,
    /** A tool_use block's non-empty `input` placeholder, serialized, kept in case no delta follows. */
    readonly placeholderInput: string | undefined,
  ) {}
}

/**
 * Anthropic's Messages stream (`POST /v1/messages`, `stream: true`): `message_start`, then one group
 * of `content_block_start`, `content_block_delta`*, `content_block_stop` per content block (text,
 * thinking, redacted thinking, tool use), then `message_delta` with the `stop_reason` and the final
 * usage, then `message_stop`. `ping` may come anywhere. There is no `[DONE]`.
 *
 * Frames are dispatched on `data.type`, not on the SSE event name, since proxies drop `event:` lines
 * (the event name is used only when `type` is missing).
 *
 * Events: `start` at `message_start` (id and model); `reasoning` from `thinking_delta`; a
 * `reasoning-signature` from `signature_delta` and from a `redacted_thinking` block's `data`;
 * `content` from `text_delta`; per `tool_use` block a `tool-call-delta` with its id and name at the
 * block's start, one per `input_json_delta`, and a `tool-call-end` at its `content_block_stop`;
 * `finish` at the first `message_delta` with a `stop_reason`; `usage` at `message_start` and
 * `message_delta`; `done` at `message_stop`. Calls are numbered 0, 1, 2 in the order their blocks
 * start, whatever their block indices.
 *
 * Usage: `input_tokens` is `promptTokens`, `output_tokens` `completionTokens`,
 * `cache_read_input_tokens` `cachedPromptTokens`; `message_delta` reports totals, which replace the
 * earlier values (gateways send `input_tokens: 0` at the start and the real count at the end).
 * `totalTokens` is their sum once both are known.
 *
 * Quirks absorbed by default: a duplicate `message_start` with the same id, frames before
 * `message_start`, a `[DONE]` from a gateway (then the stream must still end with `message_stop`),
 * a `message_delta` while a block is still open, a second `stop_reason`, frames after
 * `message_stop` (ignored). `strict` makes each of those a `ProtocolError`. Server tool blocks
 * (`server_tool_use`, `*_tool_result`) and unknown block, delta and event types are ignored.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, anthropic } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: anthropic }));
 * ```
 */
export class AnthropicParser extends JsonDialectParser {
  protected readonly endSignal = 'message_stop';
  // Not Anthropic's: a gateway's habit. The reply still ends only at message_stop.
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = 'Anthropic';
  private messageId: string | undefined = undefined;
  private finished = false;
  private openBlocks = 0;
  private readonly blocks = new Map<number, Block>();
  /** The latest token counts, to sum `totalTokens` from whichever frame reported each. */
  private inputTokens: number | undefined = undefined;
  private outputTokens: number | undefined = undefined;

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
        break;
      case 'content_block_start':
        this.readBlockStart(payload);
        break;
      case 'content_block_delta':
        this.readBlockDelta(payload);
        break;
      case 'content_block_stop':
        this.readBlockStop(payload);
        break;
      case 'message_delta':
        this.readMessageDelta(payload);
        break;
      case 'message_stop':
        this.readMessageStop();
        break;
      case undefined:
        throw this.protocolError('the payload has no type');
      default:
      // `ping`, and event types newer than this parser: ignored, as the official SDK does.
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
      return;
    }
    this.messageId = id;
    this.emit({ type: 'start', id, model: nonEmptyString(message['model']) ?? null });
    this.readUsage(message['usage'], 'message_start.message.usage');
  }

  private readBlockStart(payload: JsonObject): void {
    this.requireStarted('content_block_start');
    const index = this.blockIndex(payload, 'content_block_start');
    if (this.blocks.has(index)) throw this.protocolError(`content block ${index} started twice`);
    const block = payload['content_block'];
    if (!isJsonObject(block)) throw this.protocolError(`content_block_start.content_block is not an object`);
    const where = `content block ${index}`;
    const type = block['type'];
    switch (type) {
      case 'text': {
        this.blocks.set(index, new Block('text', -1, undefined));
        const text = this.text(block['text'], where, 'text');
        if (text) this.emit({ type: 'content', choice: 0, text });
        break;
      }
      case 'thinking': {
        this.blocks.set(index, new Block('thinking', -1, undefined));
        const text = this.text(block['thinking'], where, 'thinking');
        if (text) this.emit({ type: 'reasoning', choice: 0, text });
        const signature = this.text(block['signature'], where, 'signature');
        if (signature) this.emit({ type: 'reasoning-signature', choice: 0, signature });
        break;
      }
      case 'redacted_thinking': {
        this.blocks.set(index, new Block('redacted_thinking', -1, undefined));
        // Encrypted thinking: opaque, and it must go back to the API on the next turn.
        const data = this.text(block['data'], where, 'data');
        if (data) this.emit({ type: 'reasoning-signature', choice: 0, signature: data });
        break;
      }
      case 'tool_use': {
        const id = nonEmptyString(block['id']);
        if (id === undefined) throw this.protocolError(`${where} (tool_use) has no id`, 'invalid-tool-call');
        const name = nonEmptyString(block['name']);
        if (name === undefined) throw this.protocolError(`${where} (tool_use) has no name`, 'invalid-tool-call');
        const input = block['input'];
        if (input !== undefined && input !== null && !isJsonObject(input)) {
          throw this.protocolError(`${where}.input is ${describeValue(input)}, not an object`);
        }
        // The `input: {}` of a streamed call is a placeholder; a filled one is kept in case no delta follows.
        const placeholder = isJsonObject(input) && Object.keys(input).length > 0 ? this.serialize(input, `${where}.input`) : undefined;
        const call = this.newCall(0);
        this.blocks.set(index, new Block('tool_use', call, placeholder));
        this.emit({ type: 'tool-call-delta', choice: 0, index: call, id, name, arguments: '' });
        break;
      }
      default:
        if (typeof type !== 'string') throw this.protocolError(`${where} has type ${describeValue(type)}`);
        // Server tools (server_tool_use, web_search_tool_result, ...) run on Anthropic's side: not calls for the client.
        this.blocks.set(index, new Block('ignored', -1, undefined));
    }
    this.openBlocks++;
  }

  private readBlockDelta(payload: JsonObject): void {
    const index = this.blockIndex(payload, 'content_block_delta');
    const block = this.openBlock(index, 'content_block_delta');
    const delta = payload['delta'];
    if (!isJsonObject(delta)) throw this.protocolError(`content_block_delta.delta of block ${index} is not an object`);
    if (block.kind === 'ignored') return;
    const type = delta['type'];
    const where = `content block ${index}`;
    switch (type) {
      case 'text_delta': {
        this.expectKind(block, 'text', index, type);
        const text = this.text(delta['text'], `${where} text_delta`, 'text');
        if (text) this.emit({ type: 'content', choice: 0, text });
        break;
      }
      case 'thinking_delta': {
        this.expectKind(block, 'thinking', index, type);
        const text = this.text(delta['thinking'], `${where} thinking_delta`, 'thinking');
        if (text) this.emit({ type: 'reasoning', choice: 0, text });
        break;
      }
      case 'signature_delta': {
        this.expectKind(block, 'thinking', index, type);
        // llama.cpp's /v1/messages sends "" (a local model cannot sign): nothing to keep.
        const signature = this.text(delta['signature'], `${where} signature_delta`, 'signature');
        if (signature) this.emit({ type: 'reasoning-signature', choice: 0, signature });
        break;
      }
      case 'input_json_delta': {
        this.expectKind(block, 'tool_use', index, type);
        const fragment = this.text(delta['partial_json'], `${where} input_json_delta`, 'partial_json') ?? '';
        if (fragment !== '') block.sawInput = true;
        this.emit({ type: 'tool-call-delta', choice: 0, index: block.call, arguments: fragment });
        break;
      }
      default:
        if (typeof type !== 'string') throw this.protocolError(`${where}: delta type is ${describeValue(type)}`);
      // citations_delta and newer delta types carry nothing this library assembles.
    }
  }

  private readBlockStop(payload: JsonObject): void {
    const index = this.blockIndex(payload, 'content_block_stop');
    const block = this.openBlock(index, 'content_block_stop');
    block.open = false;
    this.openBlocks--;
    if (block.kind !== 'tool_use') return;
    if (!block.sawInput && block.placeholderInput !== undefined) {
      this.emit({ type: 'tool-call-delta', choice: 0, index: block.call, arguments: block.placeholderInput });
    }
    this.emit({ type: 'tool-call-end', choice: 0, index: block.call });
  }

  private readMessageDelta(payload: JsonObject): void {
    this.requireStarted('message_delta');
    if (this.strict && this.openBlocks > 0) throw this.protocolError('message_delta arrived while a content block was open', 'strict');
    const delta = payload['delta'];
    if (delta !== undefined && delta !== null && !isJsonObject(delta)) {
      throw this.protocolError('message_delta.delta is not an object');
    }
    const raw = isJsonObject(delta) ? delta['stop_reason'] : undefined;
    if (raw !== undefined && raw !== null) {
      if (typeof raw !== 'string' || raw === '') throw this.protocolError(`message_delta.delta.stop_reason is ${describeValue(raw)}`);
      if (!this.finished) {
        this.finished = true;
        // Calls still open close here (the tracker closes them at finish); the raw value is kept.
        this.finish(0, raw);
      } else if (this.strict) {
        throw this.protocolError('a second stop_reason', 'strict');
      }
    }
    this.readUsage(payload['usage'], 'message_delta.usage');
  }

  private readMessageStop(): void {
    if (!this.finished) throw this.protocolError('message_stop arrived before any stop_reason');
    if (this.strict && this.openBlocks > 0) throw this.protocolError('message_stop arrived while a content block was open', 'strict');
    this.endStream();
  }

  private readUsage(raw: unknown, where: string): void {
    if (raw === undefined || raw === null) return;
    if (!isJsonObject(raw)) throw this.protocolError(`${where} is not an object`);
    const input = this.count(raw['input_tokens'], where, 'input_tokens');
    const output = this.count(raw['output_tokens'], where, 'output_tokens');
    const cached = this.count(raw['cache_read_input_tokens'], where, 'cache_read_input_tokens');
    if (input === undefined && output === undefined && cached === undefined) return;
    if (input !== undefined) this.inputTokens = input;
    if (output !== undefined) this.outputTokens = output;
    // A field this frame did not report stays null, so the earlier value stands (usage merges field by field).
    const total = this.inputTokens !== undefined && this.outputTokens !== undefined ? this.inputTokens + this.outputTokens : null;
    this.emit({
      type: 'usage',
      usage: {
        promptTokens: input ?? null,
        completionTokens: output ?? null,
        totalTokens: total,
        ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
      },
    });
  }

  private requireStarted(what: string): void {
    if (this.strict && this.messageId === undefined) throw this.protocolError(`${what} arrived before message_start`, 'strict');
  }

  private blockIndex(payload: JsonObject, what: string): number {
    return this.index(payload['index'], `${what}.index`, 'a block index');
  }

  private openBlock(index: number, what: string): Block {
    const block = this.blocks.get(index);
    if (block === undefined) throw this.protocolError(`${what} for content block ${index}, which never started`);
    if (!block.open) throw this.protocolError(`${what} for content block ${index}, which had stopped`);
    return block;
  }

  private expectKind(block: Block, kind: BlockKind, index: number, deltaType: string): void {
    if (block.kind !== kind) throw this.protocolError(`${deltaType} in content block ${index}, a ${block.kind} block`);
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
export const anthropic: DialectFactory = dialectFactory((emit, options) => new AnthropicParser(emit, options), isFinal);
