import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError } from '../../errors/errors.js';
import type { FinishReasonTable, JsonValue } from '../../types/replyParts.js';
import { JsonObject, copyJson, nonEmptyString } from '../../internal/json.js';
import { DialectOptions, defineDialect } from '../Dialect.js';
import { ChatEvent } from '../../types/events.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { finalByType, isErrorFrame } from '../base/finalFrames.js';
import { describeValue, hasError } from '../base/payloadValues.js';
import { buildUsage } from '../base/usage.js';
import { MistralContentHost, readMistralContent } from './mistralContent.js';

/** The event types of the Conversations stream: the SDK's `SSETypes` (`@mistralai/mistralai` 2.x). */
const EVENT_TYPES: ReadonlySet<string> = new Set([
  'conversation.response.started',
  'conversation.response.done',
  'conversation.response.error',
  'message.output.delta',
  'tool.execution.started',
  'tool.execution.delta',
  'tool.execution.done',
  'agent.handoff.started',
  'agent.handoff.done',
  'function.call.delta',
]);

/** The stream says no finish reason: its end, `conversation.response.done`, is the finish's raw value. */
export const MISTRAL_CONVERSATIONS_DONE = 'conversation.response.done';

/**
 * The finishes of the Conversations stream: it has one, its end, `stop` (and `tool_calls` after the
 * reply's function calls, which the program must now answer with `function.result` entries).
 *
 * @example
 * ```ts
 * MISTRAL_CONVERSATIONS_FINISH_REASONS['conversation.response.done']; // 'stop'
 * ```
 */
export const MISTRAL_CONVERSATIONS_FINISH_REASONS: FinishReasonTable = { [MISTRAL_CONVERSATIONS_DONE]: 'stop' };

/**
 * The fields read at each event, or known to carry nothing: every other is kept as
 * `providerMetadata.mistral` (of the reply; a function call's of the call). `created_at` is each
 * event's own time, `id` the entry's (`msg_`, `tool_exec_`, `fc_`: not the reply's), `output_index`
 * and `content_index` its place, `role` always the assistant's.
 */
const MAPPED_STARTED: ReadonlySet<string> = new Set(['type', 'created_at', 'conversation_id']);
const MAPPED_MESSAGE: ReadonlySet<string> = new Set([
  'type',
  'created_at',
  'output_index',
  'id',
  'content_index',
  'model',
  'role',
  'content',
]);
const MAPPED_CALL: ReadonlySet<string> = new Set([
  'type',
  'created_at',
  'output_index',
  'id',
  'model',
  'name',
  'tool_call_id',
  'arguments',
]);
const MAPPED_EXECUTION: ReadonlySet<string> = new Set(['type', 'created_at', 'output_index', 'id', 'model', 'name', 'arguments', 'info']);
const MAPPED_DONE: ReadonlySet<string> = new Set(['type', 'created_at', 'usage']);
/** `usage` (`ConversationUsageInfo`): `connector_tokens` and the per-connector `connectors` are kept. */
const MAPPED_USAGE: ReadonlySet<string> = new Set(['prompt_tokens', 'completion_tokens', 'total_tokens']);

/** The reply itself as a place, one object. */
const REPLY: MetadataPlace = {};

/** A built-in tool Mistral runs (`tool.execution.*`): its name and the argument text so far. */
interface Execution {
  readonly name: string;
  args: string;
}

/**
 * Mistral's Conversations and Agents stream (`POST /v1/conversations`, `/v1/conversations/{id}`,
 * `.../restart` with `stream: true`; the SDK's `beta.conversations.startStream`): named SSE events
 * whose payload's `type` repeats the name. `conversation.response.started` (the conversation id),
 * then the entries of the turn as they are made: `message.output.delta` (the text of a message,
 * as a string or a content chunk), `function.call.delta` (a call of a function the program runs, its
 * `arguments` in pieces, each repeating `tool_call_id` and `name`), `tool.execution.started`,
 * `.delta` and `.done` (a built-in tool Mistral runs itself: `web_search`, `code_interpreter`,
 * `image_generation`, `document_library`, a connector), `agent.handoff.started` and `.done` (one agent
 * passing the conversation to another), and last `conversation.response.done` with the usage, or
 * `conversation.response.error`.
 *
 * Events: `start` at `conversation.response.started` (the `conversation_id`: what the next request
 * appends to), and again at the first event that names the `model`; `content`, `reasoning` and
 * `source` from the message content (`readMistralContent`); per `tool_call_id` a `tool-call-delta`
 * with its id and name, then one per argument piece (calls numbered 0, 1, 2 in order of arrival); a
 * built-in tool's run as a `provider-tool-call` (type `tool.execution`, input its arguments parsed
 * as JSON, or their text when they are not) and its `provider-tool-result` (the `info` of
 * `tool.execution.done`), never a call for the program; each handoff event kept whole under the
 * choice's `items`; at `conversation.response.done` `finish` (raw `conversation.response.done`: the
 * stream says no reason; `tool_calls` after calls), `usage` (`prompt_tokens`, `completion_tokens`,
 * `total_tokens` as sent, which counts the connectors' tokens too) and `done`.
 *
 * Errors: `conversation.response.error` (`message`, `code`) and any error payload are a
 * `ProviderError`; a stream without `conversation.response.done` is a `StreamClosedEarlyError`; a
 * call without its `tool_call_id` or `name`, or a field of the wrong type, a `ProtocolError`.
 *
 * Quirks absorbed by default: events before `conversation.response.started`, a `[DONE]` from a
 * gateway, a `tool.execution.done` whose start never came, events after the end (ignored). `strict`
 * refuses each. Unknown event types are skipped, or passed on as `unknown` events with
 * `unknownEvents`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, mistralConversations } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: mistralConversations }));
 * ```
 */
export class MistralConversationsParser extends JsonDialectParser {
  protected readonly endSignal = 'conversation.response.done';
  protected override readonly provider = 'mistral';
  protected override readonly finishReasons = MISTRAL_CONVERSATIONS_FINISH_REASONS;
  protected override readonly doneFrame = 'foreign';
  protected override readonly formatName = 'Mistral Conversations';

  #conversationId: string | undefined = undefined;
  #started = false;
  #modelNamed = false;
  /** Function calls by `tool_call_id`: their dense index. */
  readonly #calls = new Map<string, number>();
  /** Built-in tool runs by their entry `id`. */
  readonly #executions = new Map<string, Execution>();
  readonly #host: MistralContentHost;

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
    const failed = frame.event === 'error' || payload['type'] === 'conversation.response.error' || hasError(payload);
    return failed ? this.providerError(payload) : undefined;
  }

  protected read(payload: JsonObject, frame: SseFrame): void {
    const type = payload['type'];
    if (typeof type !== 'string') throw this.protocolError(`the event's type is ${describeValue(type)}`);
    if (type === 'conversation.response.started') return this.readStarted(payload);
    if (!this.#started && this.strict && EVENT_TYPES.has(type))
      throw this.protocolError(`${type} before conversation.response.started`, 'strict');
    switch (type) {
      case 'message.output.delta':
        this.keepUnmapped(payload, MAPPED_MESSAGE, REPLY);
        this.noteModel(payload);
        return readMistralContent(this.#host, payload['content'], 'message.output.delta.content');
      case 'function.call.delta':
        this.noteModel(payload);
        return this.readCall(payload);
      case 'tool.execution.started':
      case 'tool.execution.delta':
      case 'tool.execution.done':
        this.keepUnmapped(payload, MAPPED_EXECUTION, REPLY);
        this.noteModel(payload);
        return this.readExecution(type, payload);
      case 'agent.handoff.started':
      case 'agent.handoff.done':
        // An entry of the turn no event names: kept as it came, in order, on the choice.
        return this.keepItem(payload, { choice: 0 });
      case 'conversation.response.done':
        return this.readResponseDone(payload);
      default:
        this.unknown(payload, frame);
    }
  }

  private readStarted(payload: JsonObject): void {
    this.keepUnmapped(payload, MAPPED_STARTED, REPLY);
    const id = this.optionalString(payload['conversation_id'], 'conversation.response.started.conversation_id');
    if (this.#started) {
      if (this.strict) throw this.protocolError('conversation.response.started arrived twice', 'strict');
      return;
    }
    this.#started = true;
    this.#conversationId = id;
    if (id !== undefined) this.emit({ type: 'start', id, model: null });
  }

  /** The model, named by the output events only: a second `start` at the first that names it. */
  private noteModel(payload: JsonObject): void {
    if (this.#modelNamed) return;
    const model = nonEmptyString(payload['model']);
    if (model === undefined) return;
    this.#modelNamed = true;
    this.emit({ type: 'start', id: this.#conversationId ?? '', model });
  }

  private readCall(payload: JsonObject): void {
    const id = nonEmptyString(payload['tool_call_id']);
    if (id === undefined)
      throw this.protocolError(`function.call.delta has tool_call_id ${describeValue(payload['tool_call_id'])}`, 'invalid-tool-call');
    const text = this.text(payload['arguments'], 'function.call.delta', 'arguments') ?? '';
    let index = this.#calls.get(id);
    if (index === undefined) {
      const name = nonEmptyString(payload['name']);
      if (name === undefined)
        throw this.protocolError(`function call ${id} has name ${describeValue(payload['name'])}`, 'invalid-tool-call');
      index = this.newCall(0);
      this.#calls.set(id, index);
      this.emit({ type: 'tool-call-delta', choice: 0, index, id, name, arguments: text });
    } else {
      this.emit({ type: 'tool-call-delta', choice: 0, index, arguments: text });
    }
    // Kept once the call exists: `confirmation_status` (a call that waits for the user's approval) travels with it.
    this.keepUnmapped(payload, MAPPED_CALL, { choice: 0, call: index });
  }

  private readExecution(type: string, payload: JsonObject): void {
    const id = nonEmptyString(payload['id']);
    if (id === undefined) throw this.protocolError(`${type} has id ${describeValue(payload['id'])}`);
    const name = this.optionalString(payload['name'], `${type}.name`) ?? '';
    const text = this.text(payload['arguments'], type, 'arguments') ?? '';
    let execution = this.#executions.get(id);
    if (type === 'tool.execution.started') {
      if (execution !== undefined) throw this.protocolError(`tool execution ${id} started twice`);
      this.#executions.set(id, { name, args: text });
      return;
    }
    if (execution === undefined) {
      if (this.strict) throw this.protocolError(`${type} for tool execution ${id}, which never started`, 'strict');
      this.#executions.set(id, (execution = { name, args: '' }));
    }
    if (type === 'tool.execution.delta') {
      execution.args += text;
      return;
    }
    this.#executions.delete(id);
    const call = { id, name: execution.name || name, type: 'tool.execution', input: executionInput(execution.args) };
    this.emit({ type: 'provider-tool-call', choice: 0, call });
    const info = this.object(payload['info'], 'tool.execution.done.info');
    this.emit({ type: 'provider-tool-result', choice: 0, id, result: info === undefined ? {} : copyJson(info) });
  }

  private readResponseDone(payload: JsonObject): void {
    this.keepUnmapped(payload, MAPPED_DONE, REPLY);
    this.finish(0, MISTRAL_CONVERSATIONS_DONE);
    const usage = this.object(payload['usage'], 'conversation.response.done.usage');
    if (usage !== undefined) {
      this.keepUnmapped(usage, MAPPED_USAGE, REPLY);
      const where = 'conversation.response.done.usage';
      const read = buildUsage(
        this.count(usage['prompt_tokens'], where, 'prompt_tokens'),
        this.count(usage['completion_tokens'], where, 'completion_tokens'),
        this.count(usage['total_tokens'], where, 'total_tokens'),
      );
      if (read !== undefined) this.emit({ type: 'usage', usage: read });
    }
    this.endStream();
  }
}

/** A built-in tool's arguments: the JSON they hold, their text when they are not JSON, `{}` when empty. */
function executionInput(text: string): JsonValue {
  if (text === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The end of a Conversations stream: `conversation.response.done` or `.error`, by its type or its event name. */
const endsAtDone = finalByType(new Set([MISTRAL_CONVERSATIONS_DONE, 'conversation.response.error']));

/**
 * The `mistral-conversations` dialect: Mistral's Conversations and Agents stream (`/v1/conversations`
 * with `stream: true`). `auto` picks it from a payload whose `type` is one of the stream's event
 * types (`conversation.response.*`, `message.output.delta`, `function.call.delta`, `tool.execution.*`,
 * `agent.handoff.*`), which no other format uses. Mistral's chat completions (`/v1/chat/completions`)
 * are `openai-chat`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion, mistralConversations } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: mistralConversations }), finalizeCompletion());
 * ```
 */
export const mistralConversations = defineDialect({
  name: 'mistral-conversations',
  create: (emit, options) => new MistralConversationsParser(emit, options),
  isFinal: (frame) => endsAtDone(frame) || isErrorFrame(frame),
  recognizes: (payload) => {
    const type = payload['type'];
    return typeof type === 'string' && EVENT_TYPES.has(type);
  },
  finishReasons: MISTRAL_CONVERSATIONS_FINISH_REASONS,
});
