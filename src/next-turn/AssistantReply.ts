import type { Completion, CompletionSnapshot, PartialToolCall } from '../types/completion.js';
import type { JsonValue, OpaqueItem, ToolCall } from '../types/replyParts.js';

/**
 * What a turn is built from: a whole reply (`Completion`), or a reply so far (`CompletionSnapshot`,
 * the `partial` of a `StreamClosedEarlyError`). Choice 0's parts are read: the next turn continues one
 * choice.
 *
 * @example
 * ```ts
 * import type { AssistantReply, Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const reply: AssistantReply = completion;
 * ```
 */
export type AssistantReply = Completion | CompletionSnapshot;

/** A call the next turn may carry: a whole `ToolCall`, whose `kind` is always said. */
export type SentCall = Omit<ToolCall, 'kind'> & { readonly kind: 'function' | 'custom' };

/**
 * True when `reply` is a reply so far that never finished (a cut stream's `partial`): its last block
 * may be unfinished, its last call unclosed.
 *
 * @example
 * ```ts
 * isCutReply(error.partial); // true for the partial of a StreamClosedEarlyError
 * ```
 */
export function isCutReply(reply: AssistantReply): boolean {
  return 'finished' in reply && !reply.finished;
}

/**
 * The calls the next turn may carry, in index order: every call of a `Completion`; of a snapshot, only
 * the calls that closed (an id, a name and parsed arguments). A call the token limit cut is never one.
 *
 * @example
 * ```ts
 * sentCalls(completion).map((call) => call.id);
 * ```
 */
export function sentCalls(reply: AssistantReply): SentCall[] {
  const calls: SentCall[] = [];
  for (const call of reply.toolCalls as readonly (ToolCall | PartialToolCall)[]) {
    if ('complete' in call && !call.complete) continue;
    if (call.id === null || call.name === null || call.args === undefined) continue;
    const namespace = 'namespace' in call ? call.namespace : undefined;
    calls.push({
      kind: call.kind ?? 'function',
      index: call.index,
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      args: call.args,
      ...(namespace === undefined ? {} : { namespace }),
      ...(call.providerMetadata === undefined ? {} : { providerMetadata: call.providerMetadata }),
    });
  }
  return calls;
}

/**
 * The calls the next turn carries (`sentCalls`), handed out in order as a turn is built: the calls
 * that began before a tool the provider ran go before it (`before`, given the tool's `at.calls`), the
 * others at the end (`rest`).
 *
 * @example
 * ```ts
 * const calls = new CallsInOrder(completion);
 * calls.before(tool.at.calls); // the calls that began before the tool, not handed out yet
 * calls.rest(); // every call not handed out yet
 * ```
 */
export class CallsInOrder {
  readonly #calls: readonly SentCall[];
  /** Each call's place among the reply's calls, by its index: what `at.calls` counts. */
  readonly #places = new Map<number, number>();
  #next = 0;

  constructor(reply: AssistantReply) {
    this.#calls = sentCalls(reply);
    reply.toolCalls.forEach((call, place) => this.#places.set(call.index, place));
  }

  /** The calls not handed out yet among the first `count` calls of the reply. */
  before(count: number): SentCall[] {
    const start = this.#next;
    while (this.#next < this.#calls.length && (this.#places.get(this.#calls[this.#next]!.index) ?? Infinity) < count) this.#next++;
    return this.#calls.slice(start, this.#next);
  }

  /** Every call not handed out yet. */
  rest(): SentCall[] {
    const rest = this.#calls.slice(this.#next);
    this.#next = this.#calls.length;
    return rest;
  }
}

/** The opaque items of `provider` that belong to the call numbered `call`, in arrival order. */
export function callItems(reply: AssistantReply, call: number, provider: string): OpaqueItem[] {
  return (reply.opaqueItems ?? []).filter((item) => item.part === 'tool-call' && item.call === call && item.provider === provider);
}

/**
 * True for a JSON object (not null, not an array): a call's `args` that a provider takes as an object.
 *
 * @example
 * ```ts
 * isJsonRecord({ city: 'Oslo' }); // true
 * isJsonRecord('raw text'); // false
 * ```
 */
export function isJsonRecord(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
