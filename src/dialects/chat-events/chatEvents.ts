import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError } from '../../errors/errors.js';
import { ChatEvent, FinishReason, ProviderMetadata } from '../../types/events.js';
import { JsonObject, copyJson, isJsonObject } from '../../internal/json.js';
import { errorFromStreamErrorData } from '../../errors/streamErrorData.js';
import { defineDialect } from '../Dialect.js';
import {
  EventFields,
  MAPPED_EVENT,
  MAPPED_INCOMPLETE_CALL,
  MAPPED_PROVIDER_TOOL_CALL,
  MAPPED_TOOL_CALL,
  MAPPED_TOOL_REQUEST,
  MAPPED_OPAQUE_ITEM,
} from './EventFields.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';
import { readReplyPartEvent } from './chatEventParts.js';

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
 * know are ignored (under `strict`, a `ProtocolError`), as are frames after `done`. Fields this
 * version does not know in a known event (a newer server's) are kept as
 * `providerMetadata['chat-events']` of the event's call, choice or reply; the provider's own metadata
 * arrives in its `provider-metadata` events, under the provider's name, as the server had it.
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
  protected readonly endSignal = 'its done event';
  protected override readonly provider = 'chat-events';
  protected override readonly endedBy = 'the done event';
  private readonly fields = new EventFields((what) => this.protocolError(what));
  /** The calls seen in each choice, so that `maxToolCalls` holds here too. */
  private readonly calls = new Map<number, Set<number>>();

  /** The server's error, as the same class: the frame is the last one. */
  protected override errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    return frame.event === 'error' ? errorFromStreamErrorData(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['type'];
    if (typeof type !== 'string') throw this.protocolError(`type is ${describeValue(type)}`);
    if (frame.event !== 'message' && frame.event !== type) {
      throw this.protocolError(`an event named ${JSON.stringify(frame.event)} carries a ${JSON.stringify(type)} event`);
    }
    const event = this.readEvent(type, payload);
    if (event === undefined) {
      if (this.strict) throw this.protocolError(`unknown event type ${JSON.stringify(type)}`, 'strict');
      this.unknown(payload, frame); // a type newer than this reader
      return;
    }
    if (event.type === 'done') {
      this.keepUnmapped(payload, MAPPED_EVENT.done);
      this.endStream();
      return;
    }
    if (event.type === 'tool-call-delta') this.countCall(event.choice, event.index);
    // Kept after the event, but before a call's end: groupToolCallsByIndex shows the call's metadata
    // on the tool-call it emits there.
    const endsCall = event.type === 'tool-call-end';
    if (endsCall) this.keepNewerFields(event, payload);
    this.emit(event);
    if (!endsCall) this.keepNewerFields(event, payload);
  }

  /**
   * Keeps the fields of an event that this version does not know (a newer server's) where the event
   * belongs: its call, its choice, or the reply. They are the relay's format's own, not the provider's:
   * namespaced `chat-events`, apart from the `provider-metadata` events the server relays as they came.
   */
  private keepNewerFields(event: ChatEvent, payload: JsonObject): void {
    switch (event.type) {
      case 'tool-call-delta':
      case 'tool-call-end':
        return this.keepUnmapped(payload, MAPPED_EVENT[event.type], { choice: event.choice, call: event.index });
      case 'tool-call':
      case 'tool-call-incomplete': {
        const place = { choice: event.choice, call: event.call.index };
        this.keepUnmapped(payload, MAPPED_EVENT[event.type], place);
        // Checked by `readEvent`: an object.
        return this.keepUnmapped(
          payload['call'] as JsonObject,
          event.type === 'tool-call' ? MAPPED_TOOL_CALL : MAPPED_INCOMPLETE_CALL,
          place,
        );
      }
      case 'provider-tool-call': {
        const place = { choice: event.choice };
        this.keepUnmapped(payload, MAPPED_EVENT[event.type], place);
        return this.keepUnmapped(payload['call'] as JsonObject, MAPPED_PROVIDER_TOOL_CALL, place);
      }
      case 'tool-request': {
        const place = { choice: event.choice };
        this.keepUnmapped(payload, MAPPED_EVENT[event.type], place);
        return this.keepUnmapped(payload['request'] as JsonObject, MAPPED_TOOL_REQUEST, place);
      }
      case 'opaque-item': {
        const place = { choice: event.choice };
        this.keepUnmapped(payload, MAPPED_EVENT[event.type], place);
        return this.keepUnmapped(payload['item'] as JsonObject, MAPPED_OPAQUE_ITEM, place);
      }
      case 'provider-metadata': {
        const { choice, call } = event;
        return this.keepUnmapped(
          payload,
          MAPPED_EVENT[event.type],
          choice === undefined ? {} : call === undefined ? { choice } : { choice, call },
        );
      }
      default: {
        const place: MetadataPlace = 'choice' in event && event.choice !== undefined ? { choice: event.choice } : {};
        return this.keepUnmapped(payload, MAPPED_EVENT[event.type], place);
      }
    }
  }

  /** A call's `providerMetadata` (what `groupToolCallsByIndex` showed on it): an object of objects, copied. */
  private providerMetadata(call: JsonObject): ProviderMetadata {
    const metadata = this.fields.objectField(call, 'call.providerMetadata');
    for (const [provider, fields] of Object.entries(metadata)) {
      if (!isJsonObject(fields)) throw this.protocolError(`call.providerMetadata.${provider} is ${describeValue(fields)}, not an object`);
    }
    return copyJson(metadata) as ProviderMetadata;
  }

  /** Counts a call the first time it is seen, against `maxToolCalls`. */
  private countCall(choice: number, index: number): void {
    let seen = this.calls.get(choice);
    if (seen === undefined) this.calls.set(choice, (seen = new Set()));
    if (seen.has(index)) return;
    seen.add(index);
    this.newCall(choice);
  }

  /** The event, checked field by field; undefined for a type this reader does not know. */
  private readEvent(type: string, payload: JsonObject): ChatEvent | undefined {
    switch (type) {
      case 'start':
        return { type, id: this.fields.textField(payload, 'id'), model: this.fields.textOrNullField(payload, 'model') };
      case 'progress': {
        const progress = this.fields.objectField(payload, 'progress');
        return {
          type,
          progress: {
            total: this.fields.numberField(progress, 'progress.total'),
            cache: this.fields.numberField(progress, 'progress.cache'),
            processed: this.fields.numberField(progress, 'progress.processed'),
            timeMs: this.fields.numberField(progress, 'progress.timeMs'),
          },
        };
      }
      case 'reasoning': {
        const tokens = payload['reasoningTokens'];
        return {
          type,
          choice: this.fields.indexField(payload, 'choice'),
          text: this.fields.textField(payload, 'text'),
          ...(tokens === undefined ? {} : { reasoningTokens: this.fields.numberField(payload, 'reasoningTokens') }),
        };
      }
      case 'reasoning-signature':
        return { type, choice: this.fields.indexField(payload, 'choice'), signature: this.fields.textField(payload, 'signature') };
      case 'content':
      case 'refusal':
        return { type, choice: this.fields.indexField(payload, 'choice'), text: this.fields.textField(payload, 'text') };
      case 'tool-call-delta': {
        const id = payload['id'];
        const name = payload['name'];
        return {
          type,
          choice: this.fields.indexField(payload, 'choice'),
          index: this.fields.indexField(payload, 'index'),
          ...(id === undefined ? {} : { id: this.fields.textField(payload, 'id') }),
          ...(name === undefined ? {} : { name: this.fields.textField(payload, 'name') }),
          arguments: this.fields.textField(payload, 'arguments'),
          ...(payload['kind'] === 'custom' ? { kind: 'custom' as const } : {}),
          ...this.fields.optional(payload, 'namespace', this.fields.textField),
        };
      }
      case 'retract':
        return {
          type,
          choice: this.fields.indexField(payload, 'choice'),
          content: this.fields.indexField(payload, 'content'),
          reasoning: this.fields.indexField(payload, 'reasoning'),
        };
      case 'tool-call-end':
        return { type, choice: this.fields.indexField(payload, 'choice'), index: this.fields.indexField(payload, 'index') };
      case 'tool-call': {
        const call = this.fields.objectField(payload, 'call');
        return {
          type,
          choice: this.fields.indexField(payload, 'choice'),
          call: {
            ...(call['kind'] === 'custom' ? { kind: 'custom' as const } : {}),
            index: this.fields.indexField(call, 'call.index'),
            id: this.fields.textField(call, 'call.id'),
            name: this.fields.textField(call, 'call.name'),
            arguments: this.fields.textField(call, 'call.arguments'),
            // A copy: the payload's objects are reused for the next frame.
            args: copyJson(call['args'] ?? {}),
            ...(call['namespace'] === undefined ? {} : { namespace: this.fields.textField(call, 'call.namespace') }),
            ...(call['providerMetadata'] === undefined ? {} : { providerMetadata: this.providerMetadata(call) }),
          },
        };
      }
      case 'finish': {
        const reason = payload['reason'];
        if (typeof reason !== 'string' || !FINISH_REASONS.has(reason))
          throw this.protocolError(`finish.reason is ${describeValue(reason)}`);
        return {
          type,
          choice: this.fields.indexField(payload, 'choice'),
          reason: reason as FinishReason,
          raw: this.fields.textField(payload, 'raw'),
        };
      }
      case 'usage': {
        const usage = this.fields.objectField(payload, 'usage');
        const optional = (
          field: 'cachedPromptTokens' | 'cacheWritePromptTokens' | 'reasoningTokens' | 'audioPromptTokens' | 'audioCompletionTokens',
        ) => (usage[field] === undefined ? {} : { [field]: this.fields.numberField(usage, `usage.${field}`) });
        return {
          type,
          usage: {
            promptTokens: this.fields.countField(usage, 'usage.promptTokens'),
            completionTokens: this.fields.countField(usage, 'usage.completionTokens'),
            totalTokens: this.fields.countField(usage, 'usage.totalTokens'),
            ...optional('cachedPromptTokens'),
            ...optional('cacheWritePromptTokens'),
            ...optional('reasoningTokens'),
            ...optional('audioPromptTokens'),
            ...optional('audioCompletionTokens'),
            ...(usage['estimated'] === true ? { estimated: true as const } : {}),
          },
        };
      }
      case 'timings': {
        const timings = this.fields.objectField(payload, 'timings');
        for (const [field, value] of Object.entries(timings)) {
          if (typeof value !== 'number') throw this.protocolError(`timings.${field} is ${describeValue(value)}, not a number`);
        }
        return { type, timings: timings as { readonly [field: string]: number } };
      }
      case 'reply-timings': {
        // What the server measured of its own reply (`measureReply` before `toMessageEvents`).
        const timings = this.fields.objectField(payload, 'timings');
        const orNull = (field: string) => this.fields.countField(timings, `timings.${field}`);
        return {
          type,
          timings: {
            timeToFirstChunkMs: orNull('timeToFirstChunkMs'),
            chunks: this.fields.numberField(timings, 'timings.chunks'),
            gapP50Ms: orNull('gapP50Ms'),
            gapMaxMs: orNull('gapMaxMs'),
            durationMs: this.fields.numberField(timings, 'timings.durationMs'),
            outputTokens: orNull('outputTokens'),
            outputTokensPerSecond: orNull('outputTokensPerSecond'),
          },
        };
      }
      case 'done':
        return { type };
      default:
        return readReplyPartEvent(type, payload, this.fields);
    }
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
export const chatEvents = defineDialect({
  name: 'chat-events',
  create: (emit, options) => new ChatEventsParser(emit, options),
  isFinal: isFinal,
});

/** The end of this library's own stream: the `done` event. */
function isFinal(frame: SseFrame): boolean {
  return frame.event === 'done' && frame.data === DONE_DATA;
}

/** The data of the `done` event, as `toMessageEvents` writes it. */
const DONE_DATA = JSON.stringify({ type: 'done' });
