import { Observable, OperatorFunction, Subscriber } from 'rxjs';
import { CallAssembler, CallState } from './CallAssembler.js';
import type { ArgumentsPreview, ToolCallPreviews } from './toolCallPreviews.js';
import { ChatEvent, ToolCall, ToolCallDeltaEvent } from '../types/events.js';
import { CallMetadata } from './parts/CallMetadata.js';
import { deltaWithCall } from '../internal/deltaWithCall.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Options of {@link groupToolCallsByIndex}.
 *
 * @example
 * ```ts
 * import { groupToolCallsByIndex, toolCallPreviews, type GroupToolCallsByIndexOptions } from 'rxjs-llm-stream';
 *
 * const options: GroupToolCallsByIndexOptions = { previews: toolCallPreviews({ maxSize: 256 * 1024 }) };
 * events$.pipe(groupToolCallsByIndex(options));
 * ```
 */
export interface GroupToolCallsByIndexOptions {
  /**
   * With `toolCallPreviews()`, adds `call.preview` to each `tool-call-delta`: the arguments so far
   * as a value, open strings, arrays and objects closed (see `PartialJson` for the rules and the
   * bounds, which `toolCallPreviews`'s options set). Display only. Default none (`false` says the
   * same): previews cost a pass over every fragment, and the preview is one object updated in
   * place, which event logs and serializers (`toMessageEvents` would send the whole value again
   * with every fragment) should not get unasked. A function to pass, not a flag, so that the
   * reader stays out of the bundles of apps that show no preview.
   */
  readonly previews?: ToolCallPreviews | false;
}

/**
 * Joins tool-call fragments into whole calls, by choice and index, and passes every event through.
 *
 * Each `tool-call-delta` is re-emitted with `call`: the call as far as it has arrived (for "Calling
 * get_weather..." in a UI; a prefix that parses may still be growing, so never execute it). When a
 * call closes, at its `tool-call-end` or else when its choice finishes, one `tool-call` event with the
 * complete `ToolCall` (arguments parsed) is emitted just before the event that closed it, so a
 * consumer reacting to `finish` already has every call. Interleaved calls stay separate. A call that
 * never got an id or a name, or whose arguments do not parse, is a `ProtocolError`, except the last
 * call of a choice that finished by the token limit (`length`): the limit cut it, and it comes as one
 * `tool-call-incomplete` event with its text, never as a `tool-call` to run. A custom (free-form)
 * call's text is raw input, never parsed.
 *
 * It holds only the calls (a `CallAssembler`), not the text: `finalizeCompletion` and
 * `scanCompletion` after it take each `tool-call` as the close of its call, so each call's arguments
 * are parsed once in the whole pipeline. Its errors carry no `partial` of their own: the operators
 * after it give them the completion so far.
 *
 * With `{ previews: toolCallPreviews() }`, `call.preview` also holds the arguments so far as a value
 * (`{ city: 'Zü' }` while `{"city":"Zü` has arrived), read incrementally: each fragment is
 * examined once, never the text so far again. The preview is the same object for every fragment of
 * a call, updated in place: do not mutate it, and copy it to keep a snapshot.
 *
 * ```
 * events: --delta(0,'{"ci')--delta(1,'{}')--delta(0,'ty":1}')--finish--|
 * out:    --delta'-----------delta'---------delta'-------------(call0 call1 finish)--|
 * ```
 *
 * @example
 * ```ts
 * import { assembleChunks, groupToolCallsByIndex, toolCallPreviews } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks(), groupToolCallsByIndex({ previews: toolCallPreviews() })).subscribe((event) => {
 *   if (event.type === 'tool-call-delta') showDraft(event.call?.name, event.call?.preview);
 *   if (event.type === 'tool-call') runTool(event.call.name, event.call.args);
 * });
 * ```
 *
 * @param options `previews`: `toolCallPreviews()` to add `call.preview` to each fragment (default none).
 * @returns An operator from `ChatEvent`s to `ChatEvent`s with `tool-call` events added.
 */
export function groupToolCallsByIndex(options: GroupToolCallsByIndexOptions = {}): OperatorFunction<ChatEvent, ChatEvent> {
  const previews = options.previews === false ? undefined : options.previews;
  // `{ previews: true }` (or bounds, or null) from JavaScript: say what to write instead of showing no preview.
  if (previews !== undefined && typeof (previews as { readonly open?: unknown } | null)?.open !== 'function')
    throw new TypeError('groupToolCallsByIndex: previews takes toolCallPreviews(), as in { previews: toolCallPreviews() }');
  return (source) =>
    new Observable<ChatEvent>((subscriber) => {
      subscribeLinked(source, subscriber, new ToolCallGrouper(subscriber, previews));
    });
}

/**
 * One subscription's state and its handlers, in one object: a gateway holds one per open reply, and
 * a closure per handler with their shared context took several times its size.
 */
class ToolCallGrouper {
  readonly #calls = new CallAssembler();
  /** One reader per open call, by choice and index, kept here: the assembler serves trackers that pay for no preview. */
  #previews: Map<number, Map<number, ArgumentsPreview>> | undefined = undefined;
  /** Where the readers come from, when previews were asked for. */
  readonly #previewSource: ToolCallPreviews | undefined;
  /** What the provider sent with each call that no field names: the call it emits carries it too. */
  #metadata: CallMetadata | undefined = undefined;

  readonly #subscriber: Subscriber<ChatEvent>;

  constructor(subscriber: Subscriber<ChatEvent>, previewSource: ToolCallPreviews | undefined) {
    this.#subscriber = subscriber;
    this.#previewSource = previewSource;
  }

  next(event: ChatEvent): void {
    const subscriber = this.#subscriber;
    // Text passes straight through: nearly every event of a reply is one.
    if (event.type === 'content') {
      subscriber.next(event);
      return;
    }
    switch (event.type) {
      case 'tool-call':
      case 'tool-call-incomplete':
        return; // ours to emit; an upstream copy would be a duplicate
      case 'tool-call-delta':
        subscriber.next(this.#withCall(event, this.#calls.addFragment(event)));
        return;
      case 'tool-call-end': {
        const call = this.#calls.end(event.choice, event.index);
        if (call !== undefined) {
          this.#previews?.get(event.choice)?.delete(call.index); // a closed call gets no more fragments
          subscriber.next({ type: 'tool-call', choice: event.choice, call: this.#closed(event.choice, call) });
        }
        break;
      }
      case 'finish': {
        const finished = this.#calls.finish(event.choice, event.reason);
        for (const { choice, call } of finished.closed) {
          this.#previews?.get(choice)?.delete(call.index);
          subscriber.next({ type: 'tool-call', choice, call: this.#closed(choice, call) });
        }
        for (const { choice, call } of finished.incomplete) {
          this.#previews?.get(choice)?.delete(call.index);
          subscriber.next({ type: 'tool-call-incomplete', choice, call });
        }
        break;
      }
      case 'provider-metadata':
        if (event.call !== undefined) (this.#metadata ??= new CallMetadata()).apply(event);
    }
    // The event itself, after the calls it closed.
    subscriber.next(event);
  }

  #closed(choice: number, call: ToolCall): ToolCall {
    return this.#metadata === undefined ? call : this.#metadata.shownOne(choice, call);
  }

  #withCall(event: ToolCallDeltaEvent, state: CallState): ToolCallDeltaEvent {
    const call = { id: state.id ?? null, name: state.name ?? null, arguments: state.arguments };
    const source = this.#previewSource;
    if (source === undefined) return deltaWithCall(event, call);
    const reader = previewReader((this.#previews ??= new Map()), event.choice, event.index, source);
    reader.push(event.arguments);
    const preview = reader.value;
    return deltaWithCall(event, preview === undefined ? call : { id: call.id, name: call.name, arguments: call.arguments, preview });
  }
}

function previewReader(
  previews: Map<number, Map<number, ArgumentsPreview>>,
  choice: number,
  index: number,
  source: ToolCallPreviews,
): ArgumentsPreview {
  let calls = previews.get(choice);
  if (calls === undefined) previews.set(choice, (calls = new Map()));
  let reader = calls.get(index);
  if (reader === undefined) calls.set(index, (reader = source.open()));
  return reader;
}
