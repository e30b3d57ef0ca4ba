import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import type { JsonValue } from '../../types/events.js';
import { AnthropicToolParser, CHOICE, ProviderToolBlock } from './anthropicTools.js';
import { CitedSource, citedSource } from './anthropicSources.js';
import { describeValue } from '../base/payloadValues.js';
import { MetadataPlace } from '../base/JsonDialectParser.js';

/**
 * The fields this dialect reads in the events of a content block, or knows to carry nothing; every
 * other field is kept as `providerMetadata.anthropic`. An event's own fields (`type` names the event,
 * `index` the block) are the reply's, as the message events' are. A block's fields (`content_block`)
 * and its deltas' are the choice's, or the call's for a `tool_use` block; each names its kind in
 * `type`: a tool call's `caller` (whether the model made the call or code it ran did) is kept on the
 * call. Inside a citation, read whole into a source, nothing is kept apart.
 */
const MAPPED_BLOCK_START: ReadonlySet<string> = new Set(['type', 'index', 'content_block']);
const MAPPED_BLOCK_DELTA: ReadonlySet<string> = new Set(['type', 'index', 'delta']);
const MAPPED_BLOCK_STOP: ReadonlySet<string> = new Set(['type', 'index']);
const MAPPED_TEXT: ReadonlySet<string> = new Set(['type', 'text', 'citations']);
const MAPPED_THINKING: ReadonlySet<string> = new Set(['type', 'thinking', 'signature']);
const MAPPED_REDACTED_THINKING: ReadonlySet<string> = new Set(['type', 'data']);
const MAPPED_TOOL_USE: ReadonlySet<string> = new Set(['type', 'id', 'name', 'input']);
const MAPPED_TEXT_DELTA: ReadonlySet<string> = new Set(['type', 'text']);
const MAPPED_THINKING_DELTA: ReadonlySet<string> = new Set(['type', 'thinking']);
const MAPPED_SIGNATURE_DELTA: ReadonlySet<string> = new Set(['type', 'signature']);
const MAPPED_INPUT_JSON_DELTA: ReadonlySet<string> = new Set(['type', 'partial_json']);
const MAPPED_CITATIONS_DELTA: ReadonlySet<string> = new Set(['type', 'citation']);

/** A text block: where its text starts in the reply's content, and the sources its citations name. */
interface TextBlock {
  readonly kind: 'text';
  readonly type: string;
  open: boolean;
  readonly start: number;
  readonly sources: CitedSource[];
  /** The signatures of this text block, sent with it at its stop (with the span of its text). */
  readonly signatures: string[];
}

/** A client tool call: its dense call index, and its non-empty `input` kept in case no delta follows. */
interface ToolUseBlock {
  readonly kind: 'tool_use';
  readonly type: string;
  open: boolean;
  readonly call: number;
  /** Where the call keeps what its block and deltas carry. */
  readonly place: MetadataPlace;
  readonly placeholderInput: string | undefined;
  /** True once an `input_json_delta` brought a non-empty fragment. */
  sawInput: boolean;
}

/** A block whose deltas carry nothing beyond its own kind: thinking, a tool result, an unknown type. */
interface OtherBlock {
  readonly kind: 'thinking' | 'redacted_thinking' | 'tool_result' | 'unknown';
  readonly type: string;
  open: boolean;
  /** A `compaction` block as far as it came (its start, its deltas' fields): sent back whole. */
  readonly compaction?: { [key: string]: JsonValue };
}

type Block = TextBlock | ToolUseBlock | ProviderToolBlock | OtherBlock;

/**
 * The content blocks of an Anthropic Messages stream, keyed by their `index`: `content_block_start`,
 * `content_block_delta`*, `content_block_stop` per block (the message-level events are
 * `AnthropicParser`'s). Text, thinking, redacted thinking and client tool calls map to events as they
 * arrive; the tools Anthropic runs itself are `AnthropicToolParser`'s.
 *
 * Citations (`citations_delta`, or a text block's `citations`) become `source` events at the stop of
 * their text block, with the block's range of the reply's content as `span`: a citation supports the
 * whole block it belongs to (it may arrive before the block's text).
 */
export abstract class AnthropicBlockParser extends AnthropicToolParser {
  /** Blocks started and not stopped. */
  protected openBlocks = 0;
  private readonly blocks = new Map<number, Block>();
  /** Content emitted so far (UTF-16 code units): where the next text block starts. */
  private contentLength = 0;

  protected readBlockStart(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content_block_start');
    if (this.blocks.has(index)) throw this.protocolError(`content block ${index} started twice`);
    const block = payload['content_block'];
    if (!isJsonObject(block)) throw this.protocolError(`content_block_start.content_block is not an object`);
    this.refuseAfterCut();
    const where = `content block ${index}`;
    const type = block['type'];
    if (typeof type !== 'string') throw this.protocolError(`${where} has type ${describeValue(type)}`);
    this.blocks.set(index, this.startBlock(type, block, where, payload, frame, index));
    this.openBlocks++;
    this.keepUnmapped(payload, MAPPED_BLOCK_START);
  }

  private startBlock(type: string, block: JsonObject, where: string, payload: JsonObject, frame: SseFrame, index: number): Block {
    switch (type) {
      case 'text':
        return this.startText(block, where, payload, frame);
      case 'thinking': {
        const text = this.text(block['thinking'], where, 'thinking');
        if (text) this.emit({ type: 'reasoning', choice: 0, text });
        const signature = this.text(block['signature'], where, 'signature');
        if (signature) {
          this.emit({ type: 'reasoning-signature', choice: 0, signature });
          this.emitOpaque('signature', 'thinking', 'reasoning', index, signature);
        }
        this.keepUnmapped(block, MAPPED_THINKING, CHOICE);
        return { kind: 'thinking', type, open: true };
      }
      case 'redacted_thinking': {
        // Encrypted thinking: opaque, and it must go back to the API on the next turn.
        const data = this.text(block['data'], where, 'data');
        if (data) {
          this.emit({ type: 'reasoning-signature', choice: 0, signature: data });
          this.emitOpaque('redacted-reasoning', 'redacted_thinking', 'reasoning', index, data);
        }
        this.keepUnmapped(block, MAPPED_REDACTED_THINKING, CHOICE);
        return { kind: 'redacted_thinking', type, open: true };
      }
      case 'tool_use':
        return this.startToolUse(block, where);
      default:
        if (this.isProviderTool(type)) return this.startProviderTool(type, block, where);
        if (this.readToolResult(type, block)) return { kind: 'tool_result', type, open: true };
        // A block of a kind this dialect does not read (a `compaction` block): part of the reply, kept
        // as it started, and its deltas after it.
        this.keepItem(block, { choice: 0 });
        this.unknown(payload, frame);
        // A compaction block goes back whole on the next turn: gathered, an opaque item at its stop.
        if (type === 'compaction')
          return { kind: 'unknown', type, open: true, compaction: copyJson(block) as { [key: string]: JsonValue } };
        return { kind: 'unknown', type, open: true };
    }
  }

  private startText(block: JsonObject, where: string, payload: JsonObject, frame: SseFrame): TextBlock {
    const started: TextBlock = { kind: 'text', type: 'text', open: true, start: this.contentLength, sources: [], signatures: [] };
    const text = this.text(block['text'], where, 'text');
    if (text) this.emitContent(text);
    this.keepUnmapped(block, MAPPED_TEXT, CHOICE);
    const citations = block['citations'];
    if (citations === undefined || citations === null) return started;
    if (!Array.isArray(citations)) throw this.protocolError(`${where}.citations is ${describeValue(citations)}, not an array`);
    let unknownCitation = false;
    for (let i = 0; i < citations.length; i++) {
      const citation: unknown = citations[i];
      if (!isJsonObject(citation)) throw this.protocolError(`${where}.citations[${i}] is ${describeValue(citation)}, not an object`);
      const source = citedSource(citation);
      if (source === undefined) unknownCitation = true;
      else started.sources.push(source);
    }
    if (unknownCitation) this.unknown(payload, frame);
    return started;
  }

  private startToolUse(block: JsonObject, where: string): ToolUseBlock {
    const id = nonEmptyString(block['id']);
    if (id === undefined) throw this.protocolError(`${where} (tool_use) has no id`, 'invalid-tool-call');
    const name = nonEmptyString(block['name']);
    if (name === undefined) throw this.protocolError(`${where} (tool_use) has no name`, 'invalid-tool-call');
    const input = this.blockInput(block, where);
    // The `input: {}` of a streamed call is a placeholder; a filled one is kept in case no delta follows.
    const placeholder = isJsonObject(input) && Object.keys(input).length > 0 ? this.serialize(input, `${where}.input`) : undefined;
    const call = this.newCall(0);
    this.emit({ type: 'tool-call-delta', choice: 0, index: call, id, name, arguments: '' });
    // Kept after the call's first event, for the call it started.
    const place: MetadataPlace = { choice: 0, call };
    this.keepUnmapped(block, MAPPED_TOOL_USE, place);
    return { kind: 'tool_use', type: 'tool_use', open: true, call, place, placeholderInput: placeholder, sawInput: false };
  }

  protected readBlockDelta(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content_block_delta');
    const block = this.openBlock(index, 'content_block_delta');
    const delta = payload['delta'];
    if (!isJsonObject(delta)) throw this.protocolError(`content_block_delta.delta of block ${index} is not an object`);
    this.readDelta(block, delta, index, payload, frame);
    this.keepUnmapped(payload, MAPPED_BLOCK_DELTA);
  }

  private readDelta(block: Block, delta: JsonObject, index: number, payload: JsonObject, frame: SseFrame): void {
    // The deltas of a block this library does not read are passed on whole, whatever their type; those
    // of a block of an unknown kind are kept with it.
    if (block.kind === 'unknown') {
      this.keepItem(delta, { choice: 0 });
      if (block.compaction !== undefined && delta['type'] === 'compaction_delta') gatherCompaction(block.compaction, delta);
    }
    if (block.kind === 'unknown' || block.kind === 'tool_result') return this.unknown(payload, frame);
    const type = delta['type'];
    const where = `content block ${index}`;
    switch (type) {
      case 'text_delta': {
        this.expectKind(block, 'text', index, type);
        const text = this.text(delta['text'], `${where} text_delta`, 'text');
        if (text) this.emitContent(text);
        return this.keepUnmapped(delta, MAPPED_TEXT_DELTA, CHOICE);
      }
      case 'thinking_delta': {
        this.expectKind(block, 'thinking', index, type);
        const text = this.text(delta['thinking'], `${where} thinking_delta`, 'thinking');
        if (text) this.emit({ type: 'reasoning', choice: 0, text });
        return this.keepUnmapped(delta, MAPPED_THINKING_DELTA, CHOICE);
      }
      case 'signature_delta':
        return this.readSignature(block, delta, index);
      case 'input_json_delta':
        return this.readInputJson(block, delta, index);
      case 'citations_delta':
        return this.readCitation(block, delta, index, payload, frame);
      default:
        if (typeof type !== 'string') throw this.protocolError(`${where}: delta type is ${describeValue(type)}`);
        // A delta of a kind this dialect does not read, in a block it does: kept in arrival order.
        this.keepItem(delta, { choice: 0 });
        this.unknown(payload, frame);
    }
  }

  /**
   * A thinking block's signature: a `reasoning-signature`, and an opaque item of the reasoning. On a
   * text block it signs that block (a gateway may also move an empty thinking block's signature
   * there): an opaque item of the content, never a reasoning signature, which would go back as
   * thinking.
   */
  private readSignature(block: Block, delta: JsonObject, index: number): void {
    if (block.kind === 'text') {
      if (this.strict) throw this.protocolError(`signature_delta in content block ${index}, a text block`, 'strict');
    } else {
      this.expectKind(block, 'thinking', index, 'signature_delta');
    }
    // llama.cpp's /v1/messages sends "" (a local model cannot sign): nothing to keep.
    const signature = this.text(delta['signature'], `content block ${index} signature_delta`, 'signature');
    if (signature && block.kind === 'text') {
      // Sent at the block's stop, when the span of the text it signs is known.
      block.signatures.push(signature);
    } else if (signature) {
      this.emit({ type: 'reasoning-signature', choice: 0, signature });
      this.emitOpaque('signature', 'signature_delta', 'reasoning', index, signature);
    }
    this.keepUnmapped(delta, MAPPED_SIGNATURE_DELTA, CHOICE);
  }

  /** An opaque item of content block `block`, for the next turn. */
  private emitOpaque(
    kind: 'signature' | 'redacted-reasoning' | 'compaction',
    type: string,
    part: 'reasoning' | 'content' | 'turn',
    block: number,
    data: JsonValue,
  ): void {
    this.emit({ type: 'opaque-item', choice: 0, item: { provider: 'anthropic', kind, type, part, block, data } });
  }

  private readInputJson(block: Block, delta: JsonObject, index: number): void {
    const where = `content block ${index} input_json_delta`;
    if (block.kind === 'provider_tool') {
      block.input += this.text(delta['partial_json'], where, 'partial_json') ?? '';
      return this.keepUnmapped(delta, MAPPED_INPUT_JSON_DELTA, CHOICE);
    }
    this.expectKind(block, 'tool_use', index, 'input_json_delta');
    const fragment = this.text(delta['partial_json'], where, 'partial_json') ?? '';
    if (fragment !== '') block.sawInput = true;
    this.emit({ type: 'tool-call-delta', choice: 0, index: block.call, arguments: fragment });
    this.keepUnmapped(delta, MAPPED_INPUT_JSON_DELTA, block.place);
  }

  private readCitation(block: Block, delta: JsonObject, index: number, payload: JsonObject, frame: SseFrame): void {
    this.expectKind(block, 'text', index, 'citations_delta');
    const citation = delta['citation'];
    if (!isJsonObject(citation)) throw this.protocolError(`content block ${index} citations_delta.citation is not an object`);
    const source = citedSource(citation);
    if (source === undefined) this.unknown(payload, frame);
    else block.sources.push(source);
    this.keepUnmapped(delta, MAPPED_CITATIONS_DELTA, CHOICE);
  }

  protected readBlockStop(payload: JsonObject, frame: SseFrame): void {
    const index = this.blockIndex(payload, 'content_block_stop');
    const block = this.openBlock(index, 'content_block_stop');
    block.open = false;
    this.openBlocks--;
    this.keepUnmapped(payload, MAPPED_BLOCK_STOP);
    switch (block.kind) {
      case 'text':
        return this.closeText(block, index);
      case 'tool_use':
        if (!block.sawInput && block.placeholderInput !== undefined) {
          this.emit({ type: 'tool-call-delta', choice: 0, index: block.call, arguments: block.placeholderInput });
        }
        return this.emit({ type: 'tool-call-end', choice: 0, index: block.call });
      case 'provider_tool':
        return this.endProviderTool(block);
      case 'unknown':
        if (block.compaction !== undefined) this.emitOpaque('compaction', 'compaction', 'turn', index, block.compaction);
        return this.unknown(payload, frame);
      default:
    }
  }

  /**
   * At `message_stop`: the sources of text blocks a lenient stream never stopped (the message ended
   * them), with the span their text reached.
   */
  protected emitOpenSources(): void {
    for (const [index, block] of this.blocks) if (block.kind === 'text' && block.open) this.closeText(block, index);
  }

  /** The end of text block `index`: its sources, then its signatures, each with the span of its text. */
  private closeText(block: TextBlock, index: number): void {
    this.emitSources(block);
    const span = { start: block.start, end: this.contentLength };
    for (const data of block.signatures) {
      this.emit({
        type: 'opaque-item',
        choice: 0,
        item: { provider: 'anthropic', kind: 'signature', type: 'signature_delta', part: 'content', block: index, span, data },
      });
    }
    block.signatures.length = 0;
  }

  private emitSources(block: TextBlock): void {
    const span = { start: block.start, end: this.contentLength };
    for (const source of block.sources) this.emit({ type: 'source', choice: 0, source: { ...source, span } });
    block.sources.length = 0;
  }

  private emitContent(text: string): void {
    this.contentLength += text.length;
    this.emit({ type: 'content', choice: 0, text });
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

  private expectKind<K extends Block['kind']>(
    block: Block,
    kind: K,
    index: number,
    deltaType: string,
  ): asserts block is Extract<Block, { kind: K }> {
    if (block.kind !== kind) throw this.protocolError(`${deltaType} in content block ${index}, a ${block.type} block`);
  }
}

/**
 * Folds a `compaction_delta` into its block: `content` (the summary's text) appended, any other field
 * (`encrypted_content`) replaced, a `null` leaving what came before.
 */
function gatherCompaction(compaction: { [key: string]: JsonValue }, delta: JsonObject): void {
  for (const key of Object.keys(delta)) {
    const value = delta[key];
    if (key === 'type' || value === null || value === undefined) continue;
    const before = compaction[key];
    compaction[key] =
      key === 'content' && typeof before === 'string' && typeof value === 'string' ? before + value : copyJson(value as JsonValue);
  }
}
