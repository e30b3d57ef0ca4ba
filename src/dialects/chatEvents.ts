import { SseFrame } from '../core/SseParser.js';
import { StreamClosedEarlyError } from '../errors.js';
import { ChatEvent, FinishReason, JsonValue } from '../events.js';
import { JsonObject, isJsonObject } from '../internal/json.js';
import { errorFromStreamErrorData } from '../streamErrorData.js';
import { DialectFactory } from './Dialect.js';
import { JsonDialectParser, describeValue, isIndex } from './JsonDialectParser.js';

const FINISH_REASONS: ReadonlySet<string> = new Set<FinishReason>(['stop', 'length', 'tool_calls', 'content_filter', 'error', 'other']);

/**
 * This library's own events on the wire, as `toMessageEvents` writes them for a server's clients
 * (a NestJS `@Sse()` endpoint): one SSE event per `ChatEvent`, `event:` its type, `data:` the event
 * as JSON, ending with the `done` event, or with an `error` event whose data is a
 * `StreamErrorData`.
 *
 * Each event is checked field by field and passed on as the server folded it, so a client folds it
 * again into the same `Completion`. An `error` event is rebuilt as the error the server met, the same
 * class with the same message (see `errorFromStreamErrorData`); the operators after this one give it
 * the completion so far as `partial`. A stream that ends without `done` or `error` (the server died,
 * a proxy cut the response) is a `StreamClosedEarlyError`; an event that is not a `ChatEvent`, or
 * whose type differs from its SSE event name, a `ProtocolError`. Event types this version does not
 * know are ignored (under `strict`, a `ProtocolError`), as are frames after `done`.
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * // The client of a server whose @Sse() endpoint returns `...pipe(assembleChunks(), toMessageEvents())`:
 * const completion$ = fromFetch('/chat', { selector: (r) => fromResponse(r) }).pipe(
 *   decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'chat-events' }), finalizeCompletion(),
 * );
 * ```
 */
export class ChatEventsParser extends JsonDialectParser {
  private done = false;

  push(frame: SseFrame): void {
    this.frameCount++;
    if (this.done) {
      if (this.strict) throw this.protocolError('a frame arrived after the done event');
      return;
    }
    if (frame.event === 'error') {
      const error = errorFromStreamErrorData(this.parseJson(frame.data));
      throw error;
    }
    const payload = this.parseObject(frame.data);
    const type = payload['type'];
    if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
    if (frame.event !== 'message' && frame.event !== type) {
      throw this.protocolError(`an event named ${JSON.stringify(frame.event)} carries a ${JSON.stringify(type)} event`);
    }
    const event = this.read(type, payload);
    if (event === undefined) {
      if (this.strict) throw this.protocolError(`unknown event type ${JSON.stringify(type)}`);
      return; // a type newer than this reader
    }
    if (event.type === 'done') this.done = true;
    this.emit(event);
  }

  end(): void {
    if (this.done) return;
    throw new StreamClosedEarlyError(
      `the stream ended without its done event after ${this.frameCount} frame${this.frameCount === 1 ? '' : 's'}`,
      { position: { event: this.frameCount } },
    );
  }

  /** The event, checked field by field; undefined for a type this reader does not know. */
  private read(type: string, payload: JsonObject): ChatEvent | undefined {
    switch (type) {
      case 'start':
        return { type, id: this.text(payload, 'id'), model: this.textOrNull(payload, 'model') };
      case 'progress': {
        const progress = this.object(payload, 'progress');
        return {
          type,
          progress: {
            total: this.number(progress, 'progress.total'),
            cache: this.number(progress, 'progress.cache'),
            processed: this.number(progress, 'progress.processed'),
            timeMs: this.number(progress, 'progress.timeMs'),
          },
        };
      }
      case 'reasoning': {
        const tokens = payload['reasoningTokens'];
        return {
          type,
          choice: this.index(payload, 'choice'),
          text: this.text(payload, 'text'),
          ...(tokens === undefined ? {} : { reasoningTokens: this.number(payload, 'reasoningTokens') }),
        };
      }
      case 'reasoning-signature':
        return { type, choice: this.index(payload, 'choice'), signature: this.text(payload, 'signature') };
      case 'content':
      case 'refusal':
        return { type, choice: this.index(payload, 'choice'), text: this.text(payload, 'text') };
      case 'tool-call-delta': {
        const id = payload['id'];
        const name = payload['name'];
        return {
          type,
          choice: this.index(payload, 'choice'),
          index: this.index(payload, 'index'),
          ...(id === undefined ? {} : { id: this.text(payload, 'id') }),
          ...(name === undefined ? {} : { name: this.text(payload, 'name') }),
          arguments: this.text(payload, 'arguments'),
        };
      }
      case 'tool-call-end':
        return { type, choice: this.index(payload, 'choice'), index: this.index(payload, 'index') };
      case 'tool-call': {
        const call = this.object(payload, 'call');
        return {
          type,
          choice: this.index(payload, 'choice'),
          call: {
            index: this.index(call, 'call.index'),
            id: this.text(call, 'call.id'),
            name: this.text(call, 'call.name'),
            arguments: this.text(call, 'call.arguments'),
            args: (call['args'] ?? {}) as JsonValue,
          },
        };
      }
      case 'finish': {
        const reason = payload['reason'];
        if (typeof reason !== 'string' || !FINISH_REASONS.has(reason)) throw this.protocolError(`finish.reason is ${describeValue(reason)}`);
        return { type, choice: this.index(payload, 'choice'), reason: reason as FinishReason, raw: this.text(payload, 'raw') };
      }
      case 'usage': {
        const usage = this.object(payload, 'usage');
        const optional = (field: 'cachedPromptTokens' | 'reasoningTokens') =>
          usage[field] === undefined ? {} : { [field]: this.number(usage, `usage.${field}`) };
        return {
          type,
          usage: {
            promptTokens: this.count(usage, 'usage.promptTokens'),
            completionTokens: this.count(usage, 'usage.completionTokens'),
            totalTokens: this.count(usage, 'usage.totalTokens'),
            ...optional('cachedPromptTokens'),
            ...optional('reasoningTokens'),
            ...(usage['estimated'] === true ? { estimated: true as const } : {}),
          },
        };
      }
      case 'timings': {
        const timings = this.object(payload, 'timings');
        for (const [field, value] of Object.entries(timings)) {
          if (typeof value !== 'number') throw this.protocolError(`timings.${field} is ${describeValue(value)}, not a number`);
        }
        return { type, timings: timings as { readonly [field: string]: number } };
      }
      case 'done':
        return { type };
      default:
        return undefined;
    }
  }

  private field(payload: JsonObject, path: string): unknown {
    return payload[path.slice(path.lastIndexOf('.') + 1)];
  }

  private text(payload: JsonObject, path: string): string {
    const value = this.field(payload, path);
    if (typeof value !== 'string') throw this.protocolError(`${path} is ${describeValue(value)}, not text`);
    return value;
  }

  private textOrNull(payload: JsonObject, path: string): string | null {
    return this.field(payload, path) === null ? null : this.text(payload, path);
  }

  private number(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.protocolError(`${path} is ${describeValue(value)}, not a number`);
    return value;
  }

  private count(payload: JsonObject, path: string): number | null {
    return this.field(payload, path) === null ? null : this.number(payload, path);
  }

  private index(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (!isIndex(value)) throw this.protocolError(`${path} is ${describeValue(value)}, not an index`);
    return value;
  }

  private object(payload: JsonObject, path: string): JsonObject {
    const value = this.field(payload, path);
    if (!isJsonObject(value)) throw this.protocolError(`${path} is ${describeValue(value)}, not an object`);
    return value;
  }
}

/**
 * The `chat-events` dialect: this library's own `ChatEvent`s as `toMessageEvents` sends them.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, chatEvents } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: chatEvents }), finalizeCompletion());
 * ```
 */
export const chatEvents: DialectFactory = (emit, options) => new ChatEventsParser(emit, options);
