import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject } from '../../internal/json.js';
import { AnthropicUsage } from '../anthropic/anthropicUsage.js';
import { defineDialect } from '../Dialect.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';

/** The kinds of `contentBlockDelta.delta` this dialect reads. */
const DELTA_KINDS = ['text', 'toolUse', 'reasoningContent'];

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
 * one per `toolUse.input` fragment, and a `tool-call-end` at its `contentBlockStop`; `reasoning`
 * from `reasoningContent.text`, a `reasoning-signature` from its `signature` and `redactedContent`;
 * `finish` from `messageStop.stopReason`; `usage` from `metadata.usage`. Citation deltas and unknown
 * events are skipped, or passed on as `unknown` with `unknownEvents`.
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
  private stopped = false;
  private done = false;

  protected read(payload: JsonObject, frame: SseFrame): void {
    if (this.stopped && frame.event !== 'metadata') {
      if (this.strict) throw this.protocolError(`${frame.event} arrived after messageStop`, 'strict');
      return;
    }
    switch (frame.event) {
      case 'messageStart':
        return this.emit({ type: 'start', id: '', model: null });
      case 'contentBlockStart':
        return this.readBlockStart(payload);
      case 'contentBlockDelta':
        return this.readBlockDelta(payload);
      case 'contentBlockStop': {
        const block = this.index(payload['contentBlockIndex'], 'contentBlockStop.contentBlockIndex');
        const call = this.calls.get(block);
        if (call === undefined) return;
        this.calls.delete(block);
        return this.emit({ type: 'tool-call-end', choice: 0, index: call });
      }
      case 'messageStop': {
        const raw = this.optionalString(payload['stopReason'], 'messageStop.stopReason');
        if (raw === undefined) throw this.protocolError('messageStop has no stopReason');
        this.stopped = true;
        return this.finish(0, raw);
      }
      case 'metadata':
        this.readUsage(this.object(payload['usage'], 'metadata.usage'));
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
    if (toolUse === undefined) {
      // A block of a kind this dialect does not read (not a tool use): part of the reply, kept as it started.
      if (start !== undefined && Object.keys(start).length > 0) this.keepItem(start, { choice: 0 });
      return;
    }
    const id = this.optionalString(toolUse['toolUseId'], 'contentBlockStart.start.toolUse.toolUseId');
    const name = this.optionalString(toolUse['name'], 'contentBlockStart.start.toolUse.name');
    if (id === undefined || name === undefined)
      throw this.protocolError('a toolUse block without its toolUseId or name', 'invalid-tool-call');
    if (this.calls.has(block)) throw this.protocolError(`block ${block} started twice`, 'invalid-tool-call');
    const call = this.newCall(0);
    this.calls.set(block, call);
    this.emit({ type: 'tool-call-delta', choice: 0, index: call, id, name, arguments: '' });
  }

  private readBlockDelta(payload: JsonObject): void {
    const block = this.index(payload['contentBlockIndex'], 'contentBlockDelta.contentBlockIndex');
    const delta = this.object(payload['delta'], 'contentBlockDelta.delta');
    if (delta === undefined) throw this.protocolError('contentBlockDelta has no delta');
    const text = this.text(delta['text'], 'contentBlockDelta.delta', 'text');
    if (text) this.emit({ type: 'content', choice: 0, text });
    // A delta of none of the kinds this dialect reads (a citation, an image): kept in arrival order.
    if (!DELTA_KINDS.some((kind) => delta[kind] !== undefined) && Object.keys(delta).length > 0) this.keepItem(delta, { choice: 0 });
    const toolUse = this.object(delta['toolUse'], 'contentBlockDelta.delta.toolUse');
    if (toolUse !== undefined) {
      const call = this.calls.get(block);
      if (call === undefined)
        throw this.protocolError(`a toolUse delta for block ${block}, which is no open toolUse block`, 'invalid-tool-call');
      const fragment = this.text(toolUse['input'], 'contentBlockDelta.delta.toolUse', 'input');
      if (fragment) this.emit({ type: 'tool-call-delta', choice: 0, index: call, arguments: fragment });
    }
    const reasoning = this.object(delta['reasoningContent'], 'contentBlockDelta.delta.reasoningContent');
    if (reasoning !== undefined) {
      const where = 'contentBlockDelta.delta.reasoningContent';
      const thought = this.text(reasoning['text'], where, 'text');
      if (thought) this.emit({ type: 'reasoning', choice: 0, text: thought });
      const signature = this.text(reasoning['signature'], where, 'signature');
      if (signature) this.emit({ type: 'reasoning-signature', choice: 0, signature });
      const redacted = this.text(reasoning['redactedContent'], where, 'redactedContent');
      if (redacted) this.emit({ type: 'reasoning-signature', choice: 0, signature: redacted });
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
