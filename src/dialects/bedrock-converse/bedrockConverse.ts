import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject, copyJson, isJsonObject } from '../../internal/json.js';
import { JsonValue, Source } from '../../types/events.js';
import { normalizeFinishReason } from '../../internal/finishReason.js';
import { AnthropicUsage } from '../anthropic/anthropicUsage.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { isIndex } from '../base/payloadValues.js';

/** The kinds of `contentBlockDelta.delta` this dialect reads. */
const DELTA_KINDS = ['text', 'toolUse', 'toolResult', 'reasoningContent', 'citation'];

/**
 * The fields this dialect reads in each event, or knows to carry nothing: `p`, in every event, is
 * Bedrock's padding (random letters of a varying length, so that an event's size does not tell its
 * text), and `messageStart.role` is always the assistant's. Every other field is kept as
 * `providerMetadata.bedrock`: of the reply from `metadata` (`metrics`, `trace`, `performanceConfig`,
 * `serviceTier`), of choice 0 from the message's own events (`messageStop`'s
 * `additionalModelResponseFields`, what the model's own API says beside the stop reason, as
 * Anthropic's `stop_sequence`) and from its text and reasoning blocks, and of the call from a
 * `toolUse` block's events. The events of a block of a kind this dialect does not read (an image)
 * keep theirs on choice 0 too, beside the block itself.
 */
const MAPPED_MESSAGE_START: ReadonlySet<string> = new Set(['role', 'p']);
/** `contentBlockStart`, and its `start` when it is a `toolUse` (another kind is kept whole) and that `toolUse`. */
const MAPPED_BLOCK_START: ReadonlySet<string> = new Set(['contentBlockIndex', 'start', 'p']);
const MAPPED_START: ReadonlySet<string> = new Set(['toolUse', 'toolResult']);
const MAPPED_TOOL_USE_START: ReadonlySet<string> = new Set(['toolUseId', 'name']);
/** The `toolUse` start of a tool Bedrock runs itself: its `type` (`server_tool_use`) is read. */
const MAPPED_SERVER_TOOL_USE_START: ReadonlySet<string> = new Set(['toolUseId', 'name', 'type']);
/** A `toolResult` start (`ToolResultBlockStart`): the call it answers; its `type` and `status` are kept. */
const MAPPED_TOOL_RESULT_START: ReadonlySet<string> = new Set(['toolUseId']);
/** `contentBlockDelta`, its `delta` of a kind this dialect reads (another is kept whole), and those kinds. */
const MAPPED_BLOCK_DELTA: ReadonlySet<string> = new Set(['contentBlockIndex', 'delta', 'p']);
const MAPPED_DELTA: ReadonlySet<string> = new Set(DELTA_KINDS);
const MAPPED_TOOL_USE_DELTA: ReadonlySet<string> = new Set(['input']);
const MAPPED_REASONING: ReadonlySet<string> = new Set(['text', 'signature', 'redactedContent']);
/** `contentBlockStop`. */
const MAPPED_BLOCK_STOP: ReadonlySet<string> = new Set(['contentBlockIndex', 'p']);
/** `messageStop`: `additionalModelResponseFields` is not among them, and is kept whole. */
const MAPPED_MESSAGE_STOP: ReadonlySet<string> = new Set(['stopReason', 'p']);
/** `metadata`: `usage` is read whole. */
const MAPPED_METADATA: ReadonlySet<string> = new Set(['usage', 'p']);

/** Choice 0, the message: where what its events carry beside the fields read is kept. */
const MESSAGE: MetadataPlace = { choice: 0 };

/**
 * A block of a tool Bedrock runs itself (`toolUse` with `type: "server_tool_use"`, Nova's grounding),
 * its input text so far; or the block of its result (`toolResult`), its pieces so far.
 */
type ServerBlock =
  | { readonly kind: 'use'; readonly id: string; readonly name: string; input: string }
  | { readonly kind: 'result'; readonly id: string; readonly pieces: JsonValue[] };

/** The event names of a ConverseStream reply: `auto` picks `bedrock-converse` on any of them. */
export const CONVERSE_EVENTS: ReadonlySet<string> = new Set([
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
]);

/**
 * Amazon Bedrock's `ConverseStream` reply, as `awsEventStreamFrames()` gives it: each frame's
 * `event` names the event (`messageStart`, `contentBlockStart`, `contentBlockDelta`,
 * `contentBlockStop`, `messageStop`, `metadata`) and its `data` is the event's JSON.
 *
 * Events: `start` at `messageStart` (the stream carries no id: `id: ''`); `content` from a `text`
 * delta; per `toolUse` block a `tool-call-delta` with its `toolUseId` and name at the block's start,
 * one per `toolUse.input` fragment, and a `tool-call-end` at its `contentBlockStop`; a `toolUse`
 * block whose `type` is `server_tool_use` (a tool Bedrock runs itself, Nova's grounding) is no call
 * of the program's but a `provider-tool-call` at its stop (its input parsed when it is JSON), and a
 * `toolResult` block the `provider-tool-result` of that call (its `toolResult` pieces, `text` or
 * `json`, in order), and a `tool_use` stop after such a tool and no call of the program's is
 * `other`, never `tool_calls`; `reasoning` from `reasoningContent.text`, a `reasoning-signature`
 * from its `signature` and `redactedContent`;
 * `finish` from `messageStop.stopReason`; `usage` from `metadata.usage`. A block or delta of another
 * kind (a citation, an image) is kept whole on choice 0, and what an event carries beside the fields
 * read is `provider-metadata` (`bedrock`) of the reply, choice 0 or the call (see
 * `MAPPED_MESSAGE_START`). Unknown events are skipped, or passed on as `unknown` with `unknownEvents`.
 *
 * The end: `messageStop`. AWS's API reference does not make the `metadata` event a required part of
 * the stream (only its fields, once it is sent), so a stream that ends after `messageStop` is
 * complete; a `metadata` event after it is still read (the stream's usage), and `done` comes at the
 * `metadata` or at the end of the input, whichever is first.
 *
 * Usage has OpenAI's meaning: `inputTokens` counts only the input neither read from nor written to
 * the cache (as Anthropic's `input_tokens`, which Bedrock passes on), so `promptTokens` is
 * `inputTokens + cacheReadInputTokens + cacheWriteInputTokens`, `cachedPromptTokens` and
 * `cacheWritePromptTokens` the two parts, `completionTokens` `outputTokens`, and `totalTokens` the
 * sum of prompt and completion.
 *
 * @example
 * ```ts
 * import { awsEventStreamFrames, assembleChunks, finalizeCompletion, bedrockConverse } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(awsEventStreamFrames(), assembleChunks({ dialect: bedrockConverse }), finalizeCompletion());
 * ```
 */
export class BedrockConverseParser extends JsonDialectParser {
  protected readonly endSignal = 'messageStop';
  protected override readonly provider = 'bedrock';
  private readonly usage = new AnthropicUsage();
  /** The dense call index of each open tool-use block, by `contentBlockIndex`. */
  private readonly calls = new Map<number, number>();
  /** The open blocks of the tools Bedrock runs and of their results, by `contentBlockIndex`. */
  private readonly serverBlocks = new Map<number, ServerBlock>();
  /** Bedrock ran a tool itself: a `tool_use` stop with no call of the program's is for that tool. */
  private serverToolsRan = false;
  private stopped = false;
  private done = false;

  protected read(payload: JsonObject, frame: SseFrame): void {
    if (this.stopped && frame.event !== 'metadata') {
      if (this.strict) throw this.protocolError(`${frame.event} arrived after messageStop`, 'strict');
      return;
    }
    switch (frame.event) {
      case 'messageStart':
        this.emit({ type: 'start', id: '', model: null });
        return this.keepUnmapped(payload, MAPPED_MESSAGE_START, MESSAGE);
      case 'contentBlockStart':
        return this.readBlockStart(payload);
      case 'contentBlockDelta':
        return this.readBlockDelta(payload);
      case 'contentBlockStop': {
        const block = this.index(payload['contentBlockIndex'], 'contentBlockStop.contentBlockIndex');
        const call = this.calls.get(block);
        this.keepUnmapped(payload, MAPPED_BLOCK_STOP, call === undefined ? MESSAGE : { choice: 0, call });
        if (call === undefined) return this.stopServerBlock(block);
        this.calls.delete(block);
        return this.emit({ type: 'tool-call-end', choice: 0, index: call });
      }
      case 'messageStop': {
        const raw = this.optionalString(payload['stopReason'], 'messageStop.stopReason');
        if (raw === undefined) throw this.protocolError('messageStop has no stopReason');
        this.stopped = true;
        this.keepUnmapped(payload, MAPPED_MESSAGE_STOP, MESSAGE);
        // The finish says what the program must do: a tool Bedrock ran is none of its calls.
        if (this.serverToolsRan && this.callsMade(0) === 0 && normalizeFinishReason(raw, false) === 'tool_calls') {
          return this.emit({ type: 'finish', choice: 0, reason: 'other', raw });
        }
        return this.finish(0, raw);
      }
      case 'metadata':
        this.readUsage(this.object(payload['usage'], 'metadata.usage'));
        this.keepUnmapped(payload, MAPPED_METADATA);
        if (this.stopped) this.close();
        return;
      default:
        this.unknown(payload, frame);
    }
  }

  override end(): void {
    if (this.stopped) this.close();
    super.end();
  }

  private close(): void {
    if (this.done) return;
    this.done = true;
    this.endStream();
  }

  private readBlockStart(payload: JsonObject): void {
    const block = this.index(payload['contentBlockIndex'], 'contentBlockStart.contentBlockIndex');
    const start = this.object(payload['start'], 'contentBlockStart.start');
    const toolUse = this.object(start?.['toolUse'], 'contentBlockStart.start.toolUse');
    const toolResult = this.object(start?.['toolResult'], 'contentBlockStart.start.toolResult');
    if (toolResult !== undefined && start !== undefined) return this.startServerBlock(block, payload, start, toolResult, 'result');
    if (toolUse !== undefined && start !== undefined && toolUse['type'] === 'server_tool_use') {
      return this.startServerBlock(block, payload, start, toolUse, 'use');
    }
    if (toolUse === undefined) {
      // A block of a kind this dialect does not read (not a tool use): part of the reply, kept as it started.
      if (start !== undefined && Object.keys(start).length > 0) this.keepItem(start, MESSAGE);
      return this.keepUnmapped(payload, MAPPED_BLOCK_START, MESSAGE);
    }
    const id = this.optionalString(toolUse['toolUseId'], 'contentBlockStart.start.toolUse.toolUseId');
    const name = this.optionalString(toolUse['name'], 'contentBlockStart.start.toolUse.name');
    if (id === undefined || name === undefined)
      throw this.protocolError('a toolUse block without its toolUseId or name', 'invalid-tool-call');
    if (this.calls.has(block)) throw this.protocolError(`block ${block} started twice`, 'invalid-tool-call');
    const call = this.newCall(0);
    this.calls.set(block, call);
    this.emit({ type: 'tool-call-delta', choice: 0, index: call, id, name, arguments: '' });
    const place = { choice: 0, call };
    this.keepUnmapped(payload, MAPPED_BLOCK_START, place);
    // `start` is an object here: it held the `toolUse`.
    if (start !== undefined) this.keepUnmapped(start, MAPPED_START, place);
    this.keepUnmapped(toolUse, MAPPED_TOOL_USE_START, place);
  }

  /**
   * A citation delta (`CitationsDelta` {title, source, sourceContent, location}) as a source: a `web`
   * location is a `url` source; a document's (`documentChar`, `documentPage`, `documentChunk`) is a
   * `document` source named by its `documentIndex`, a search result's (`searchResultLocation`) one
   * named by its `searchResultIndex`, with the result's `source` as its url. The quoted pieces
   * (`sourceContent[].text`) joined are its cited text. A location of another kind cites nothing read
   * here: the delta is kept in `providerMetadata` as it came.
   */
  private citationSource(citation: JsonObject): Source | undefined {
    const where = 'contentBlockDelta.delta.citation';
    const location = this.object(citation['location'], `${where}.location`);
    const title = this.optionalString(citation['title'], `${where}.title`);
    const origin = this.optionalString(citation['source'], `${where}.source`);
    const pieces = citation['sourceContent'];
    let citedText = '';
    if (Array.isArray(pieces))
      for (const piece of pieces) if (isJsonObject(piece)) citedText += this.text(piece['text'], where, 'sourceContent[].text') ?? '';
    const described = {
      ...(title === undefined ? {} : { title }),
      ...(citedText === '' ? {} : { citedText }),
    };
    const web = location === undefined ? undefined : this.object(location['web'], `${where}.location.web`);
    if (web !== undefined) {
      const url = this.optionalString(web['url'], `${where}.location.web.url`) ?? origin;
      return url === undefined ? undefined : { kind: 'url', url, ...described };
    }
    for (const kind of ['documentChar', 'documentPage', 'documentChunk', 'searchResultLocation']) {
      const place = location === undefined ? undefined : this.object(location[kind], `${where}.location.${kind}`);
      if (place === undefined) continue;
      const index = place[kind === 'searchResultLocation' ? 'searchResultIndex' : 'documentIndex'];
      return {
        kind: 'document',
        ...(isIndex(index) ? { documentId: String(index) } : {}),
        ...(origin === undefined ? {} : { url: origin }),
        ...described,
      };
    }
    return undefined;
  }

  private readBlockDelta(payload: JsonObject): void {
    const block = this.index(payload['contentBlockIndex'], 'contentBlockDelta.contentBlockIndex');
    const delta = this.object(payload['delta'], 'contentBlockDelta.delta');
    if (delta === undefined) throw this.protocolError('contentBlockDelta has no delta');
    const call = this.calls.get(block);
    // What the delta carries beside its text or input belongs to its block: the call's, or the message's.
    const place = call === undefined ? MESSAGE : { choice: 0, call };
    this.keepUnmapped(payload, MAPPED_BLOCK_DELTA, place);
    const text = this.text(delta['text'], 'contentBlockDelta.delta', 'text');
    if (text) this.emit({ type: 'content', choice: 0, text });
    // A delta of none of the kinds this dialect reads (a citation, an image): kept in arrival order.
    if (!DELTA_KINDS.some((kind) => delta[kind] !== undefined)) {
      if (Object.keys(delta).length > 0) this.keepItem(delta, MESSAGE);
    } else {
      this.keepUnmapped(delta, MAPPED_DELTA, place);
    }
    const citation = this.object(delta['citation'], 'contentBlockDelta.delta.citation');
    if (citation !== undefined) {
      const source = this.citationSource(citation);
      if (source !== undefined) this.emit({ type: 'source', choice: 0, source });
      else this.keepItem(delta, MESSAGE);
    }
    const toolUse = this.object(delta['toolUse'], 'contentBlockDelta.delta.toolUse');
    const server = this.serverBlocks.get(block);
    if (toolUse !== undefined && server?.kind === 'use') {
      server.input += this.text(toolUse['input'], 'contentBlockDelta.delta.toolUse', 'input') ?? '';
      this.keepUnmapped(toolUse, MAPPED_TOOL_USE_DELTA, place);
    } else if (toolUse !== undefined) {
      if (call === undefined)
        throw this.protocolError(`a toolUse delta for block ${block}, which is no open toolUse block`, 'invalid-tool-call');
      const fragment = this.text(toolUse['input'], 'contentBlockDelta.delta.toolUse', 'input');
      if (fragment) this.emit({ type: 'tool-call-delta', choice: 0, index: call, arguments: fragment });
      this.keepUnmapped(toolUse, MAPPED_TOOL_USE_DELTA, place);
    }
    const results = delta['toolResult'];
    if (results !== undefined && results !== null) this.readResultPieces(delta, results, server);
    const reasoning = this.object(delta['reasoningContent'], 'contentBlockDelta.delta.reasoningContent');
    if (reasoning !== undefined) {
      const where = 'contentBlockDelta.delta.reasoningContent';
      const thought = this.text(reasoning['text'], where, 'text');
      if (thought) this.emit({ type: 'reasoning', choice: 0, text: thought });
      const signature = this.text(reasoning['signature'], where, 'signature');
      if (signature) {
        this.emit({ type: 'reasoning-signature', choice: 0, signature });
        // Bedrock wants `reasoningContent.reasoningText.signature` back with the text it signs.
        this.emit({
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'bedrock', kind: 'signature', type: 'signature', part: 'reasoning', block, data: signature },
        });
      }
      const redacted = this.text(reasoning['redactedContent'], where, 'redactedContent');
      if (redacted) {
        this.emit({ type: 'reasoning-signature', choice: 0, signature: redacted });
        const item = {
          provider: 'bedrock',
          kind: 'redacted-reasoning',
          type: 'redactedContent',
          part: 'reasoning',
          block,
          data: redacted,
        } as const;
        this.emit({ type: 'opaque-item', choice: 0, item });
      }
      this.keepUnmapped(reasoning, MAPPED_REASONING, place);
    }
  }

  /** The start of a block of a tool Bedrock runs (`use`) or of its result (`result`). */
  private startServerBlock(block: number, payload: JsonObject, start: JsonObject, tool: JsonObject, kind: 'use' | 'result'): void {
    const where = `contentBlockStart.start.${kind === 'use' ? 'toolUse' : 'toolResult'}`;
    const id = this.optionalString(tool['toolUseId'], `${where}.toolUseId`);
    if (id === undefined)
      throw this.protocolError(`a ${kind === 'use' ? 'toolUse' : 'toolResult'} block without its toolUseId`, 'invalid-tool-call');
    if (this.serverBlocks.has(block) || this.calls.has(block))
      throw this.protocolError(`block ${block} started twice`, 'invalid-tool-call');
    if (kind === 'use') {
      const name = this.optionalString(tool['name'], `${where}.name`);
      if (name === undefined) throw this.protocolError('a toolUse block without its toolUseId or name', 'invalid-tool-call');
      this.serverBlocks.set(block, { kind, id, name, input: '' });
      this.serverToolsRan = true;
      this.keepUnmapped(tool, MAPPED_SERVER_TOOL_USE_START, MESSAGE);
    } else {
      this.serverBlocks.set(block, { kind, id, pieces: [] });
      this.keepUnmapped(tool, MAPPED_TOOL_RESULT_START, MESSAGE);
    }
    this.keepUnmapped(payload, MAPPED_BLOCK_START, MESSAGE);
    this.keepUnmapped(start, MAPPED_START, MESSAGE);
  }

  /**
   * `toolResult` pieces (`ToolResultBlockDelta`: `{text}` or `{json}`), for the result block they
   * belong to; outside of one, kept whole as a delta of a kind not read.
   */
  private readResultPieces(delta: JsonObject, results: unknown, server: ServerBlock | undefined): void {
    if (server?.kind !== 'result' || !Array.isArray(results)) return this.keepItem(delta, MESSAGE);
    for (const piece of results) server.pieces.push(copyJson(piece));
  }

  /** The stop of a block of a tool Bedrock ran: its call, or its result. */
  private stopServerBlock(block: number): void {
    const server = this.serverBlocks.get(block);
    if (server === undefined) return;
    this.serverBlocks.delete(block);
    if (server.kind === 'result') return this.emit({ type: 'provider-tool-result', choice: 0, id: server.id, result: server.pieces });
    this.emit({
      type: 'provider-tool-call',
      choice: 0,
      call: { id: server.id, name: server.name, type: 'server_tool_use', input: this.inputOf(server.input) },
    });
  }

  /** A server tool's input: its JSON parsed, `{}` when none came, the text as it is when it is no JSON. */
  private inputOf(text: string): JsonValue {
    if (text.trim() === '') return {};
    try {
      // A fresh value: JSON.parse's own, shared with nothing.
      const value = JSON.parse(text) as JsonValue;
      return isJsonObject(value) || Array.isArray(value) ? value : text;
    } catch {
      return text;
    }
  }

  private readUsage(usage: JsonObject | undefined): void {
    if (usage === undefined) return;
    const counts = this.usage.update({
      input: this.count(usage['inputTokens'], 'metadata.usage', 'inputTokens'),
      cacheRead: this.count(usage['cacheReadInputTokens'], 'metadata.usage', 'cacheReadInputTokens'),
      cacheWrite: this.count(usage['cacheWriteInputTokens'], 'metadata.usage', 'cacheWriteInputTokens'),
      output: this.count(usage['outputTokens'], 'metadata.usage', 'outputTokens'),
      thinking: undefined,
    });
    if (counts !== undefined) this.emit({ type: 'usage', usage: counts });
  }
}

/** The end of a ConverseStream reply: `messageStop` (and the `metadata` that may follow it). */
const isFinal = (frame: SseFrame): boolean => frame.event === 'messageStop' || frame.event === 'metadata';

/**
 * The `bedrock-converse` dialect: Amazon Bedrock's `ConverseStream`, read from
 * `awsEventStreamFrames()`.
 *
 * @example
 * ```ts
 * import { awsEventStreamFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(awsEventStreamFrames(), assembleChunks({ dialect: 'bedrock-converse' }), finalizeCompletion());
 * ```
 */
export const bedrockConverse = defineDialect({
  name: 'bedrock-converse',
  create: (emit, options) => new BedrockConverseParser(emit, options),
  isFinal: isFinal,
  recognizes: (_payload, event) => event !== undefined && CONVERSE_EVENTS.has(event),
});
