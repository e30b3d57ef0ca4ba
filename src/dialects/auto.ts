import { SseFrame } from '../core/SseParser.js';
import { ProtocolError, StreamClosedEarlyError } from '../errors.js';
import { ChatEvent } from '../events.js';
import { excerpt, isJsonObject } from '../internal/json.js';
import { CONVERSE_EVENTS } from './bedrockConverse.js';
import { DialectFactory, DialectOptions, DialectParser } from './Dialect.js';
import { providerErrorFrom } from './providerError.js';

/**
 * Which dialect a payload belongs to, or `undefined` when it says nothing either way (a keep-alive,
 * a bare `[DONE]`). The rules, in order (docs/dialects.md has them with their reasons): a `type` that
 * Anthropic, OpenAI Responses or the typed events use; Gemini's `candidates` or `usageMetadata`; an
 * OpenAI chat chunk (`object` or a `choices` array); Ollama's `done` with `message` or `response`;
 * llama.cpp's `stop` with `content`. Before those, the frame's event name when it is given: a
 * ConverseStream event (`messageStart`, `contentBlockDelta`, ...) is `bedrock-converse`, a `chunk`
 * whose payload has `bytes` is `bedrock-invoke` (the two Bedrock replies `awsEventStreamFrames` reads).
 */
export function detectDialect(payload: unknown, event?: string): string | undefined {
  if (!isJsonObject(payload)) return undefined;
  if (event !== undefined) {
    if (CONVERSE_EVENTS.has(event)) return 'bedrock-converse';
    if (event === 'chunk' && typeof payload['bytes'] === 'string') return 'bedrock-invoke';
  }
  const type = payload['type'];
  if (typeof type === 'string') {
    if (type === 'message_start' || type === 'ping' || type.startsWith('content_block_') || type.startsWith('message_')) {
      return 'anthropic';
    }
    if (type.startsWith('response.')) return 'openai-responses';
    if (type === 'text' || type.startsWith('tool_call_')) return 'typed-events';
    if (type === 'keepalive') return undefined;
  }
  if ('candidates' in payload || 'usageMetadata' in payload) return 'gemini';
  if (payload['object'] === 'chat.completion.chunk' || Array.isArray(payload['choices'])) return 'openai-chat';
  if (typeof payload['done'] === 'boolean' && ('message' in payload || 'response' in payload)) return 'ollama';
  if (typeof payload['stop'] === 'boolean' && 'content' in payload) return 'llamacpp-completion';
  return undefined;
}

/**
 * The `auto` dialect: waits for the first frame that says which format this is, then hands that frame
 * and every later one to the chosen dialect's parser, fixed for the rest of the stream. An error
 * payload before that is a `ProviderError`; a JSON object that matches no dialect is a
 * `ProtocolError` naming what it saw.
 */
export class AutoDialectParser implements DialectParser {
  private parser: DialectParser | undefined = undefined;
  private frameCount = 0;
  /** Frames that said nothing yet (a `[DONE]`, a keep-alive), replayed to the parser once chosen. */
  private waiting: SseFrame[] = [];

  constructor(
    private readonly dialects: Readonly<Record<string, DialectFactory>>,
    private readonly emit: (event: ChatEvent) => void,
    private readonly options: DialectOptions,
  ) {}

  push(frame: SseFrame): void {
    if (this.parser !== undefined) {
      this.parser.push(frame);
      return;
    }
    this.frameCount++;
    let payload: unknown;
    try {
      payload = JSON.parse(frame.data);
    } catch (cause) {
      if (frame.data === '[DONE]') {
        this.waiting.push(frame);
        return;
      }
      throw new ProtocolError(`frame ${this.frameCount}: data is not JSON: ${excerpt(frame.data)}`, {
        reason: 'invalid-json',
        cause,
        position: { event: this.frameCount },
      });
    }
    const name = detectDialect(payload, frame.event);
    if (name === undefined) {
      if (frame.event === 'error' || (isJsonObject(payload) && payload['error'] !== undefined && payload['error'] !== null)) {
        throw providerErrorFrom(payload, `frame ${this.frameCount}`, this.frameCount);
      }
      if (isJsonObject(payload) && payload['type'] === 'keepalive') {
        this.waiting.push(frame);
        return;
      }
      throw new ProtocolError(`frame ${this.frameCount} matches no dialect: ${describePayload(payload)}`, {
        reason: 'unknown-format',
        position: { event: this.frameCount },
      });
    }
    const factory = this.dialects[name];
    if (factory === undefined) {
      throw new ProtocolError(`frame ${this.frameCount} looks like ${name}, which is not available`, { reason: 'unknown-format' });
    }
    this.parser = factory(this.emit, this.options);
    for (const waiting of this.waiting) this.parser.push(waiting);
    this.waiting = [];
    // The deciding frame is already parsed: a dialect that can take the parse is spared a second one.
    this.parser.usePreparsed?.(frame.data, payload);
    this.parser.push(frame);
  }

  end(): void {
    if (this.parser !== undefined) {
      this.parser.end();
      return;
    }
    if (this.waiting.length > 0) {
      throw new ProtocolError(
        `the stream ended after ${this.frameCount} frame${this.frameCount === 1 ? '' : 's'} ` +
          `that name${this.frameCount === 1 ? 's' : ''} no dialect`,
        { reason: 'unknown-format' },
      );
    }
    throw new StreamClosedEarlyError('the stream ended before any frame arrived', { reason: 'no-end-signal' });
  }
}

function describePayload(payload: unknown): string {
  if (!isJsonObject(payload)) return `a JSON ${Array.isArray(payload) ? 'array' : typeof payload}`;
  const keys = Object.keys(payload).slice(0, 8);
  const type = typeof payload['type'] === 'string' ? ` (type ${excerpt(payload['type'] as string, 40)})` : '';
  return `an object with keys ${keys.join(', ') || '(none)'}${type}`;
}
