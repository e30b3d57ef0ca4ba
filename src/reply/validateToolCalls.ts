import { MonoTypeOperatorFunction, Observable } from 'rxjs';
import { CompletionTracker } from './CompletionTracker.js';
import { ToolCallCheck, ToolValidator, checkCall } from './checkToolCall.js';
import { checkCompletion, checkEvent } from './checkToolCalls.js';
import { isCompletionSnapshot } from './isCompletionSnapshot.js';
import { LlmStreamError } from '../errors/errors.js';
import { ChatEvent, Completion } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Options of {@link validateToolCalls}.
 *
 * @example
 * ```ts
 * import { validateToolCalls, type ValidateToolCallsOptions } from 'rxjs-llm-stream';
 *
 * const options: ValidateToolCallsOptions = { allowUnknownTools: true }; // e.g. tools checked elsewhere
 * events$.pipe(groupToolCallsByIndex(), validateToolCalls(tools, options));
 * ```
 */
export interface ValidateToolCallsOptions {
  /**
   * Lets a call to a tool that `tools` does not name through unchecked. Default `false`: a model
   * that calls a tool nobody declared gets a `ToolArgumentsError`, not an unchecked call.
   */
  readonly allowUnknownTools?: boolean;
}

/** A value waiting for its own check, or for the checks of values before it, to settle. */
interface Waiting<T> {
  state: 'pending' | 'ready' | 'failed';
  value: T | undefined;
  error: unknown;
}

/**
 * Checks the arguments of every whole tool call against the tool's validator before the call goes
 * on, so that no call reaches the code that runs tools unchecked.
 *
 * Place it after `groupToolCallsByIndex()`, over events, or after `finalizeCompletion()`, over the
 * `Completion`. Over events, each `tool-call` is checked before it is passed on and every other
 * event passes as it is (`tool-call-delta` included: fragments are never executed, and a truncated
 * call never becomes a `tool-call`, so it is never checked as if it were whole). Over a
 * `Completion`, every call of every choice is checked, then the completion is passed on.
 *
 * A refused call (a schema's issues, a predicate that did not answer `true`, a tool `tools` does not
 * name) is a `ToolArgumentsError` with the `call`, its `choice`, the `issues` and, as `partial`, the
 * completion as passed on before the refused call (over events) or the completion (over a
 * `Completion`). Nothing after a refused call is passed on. The validated value
 * replaces `args`: a schema's defaults and transforms (zod `.default`, `.transform`) reach the
 * consumer, while `arguments` keeps the text the model wrote. (The value is typed `JsonValue`; a
 * transform that makes something else, a `Date`, puts that there.) `finalizeCompletion` after this
 * operator takes the checked calls as they are, transformed `args` included. Errors from upstream
 * pass through; over events, one whose `partial` is not yet a completion (the text of a lower
 * layer) gets the completion as passed on. A validator that throws or rejects ends the stream with
 * what it threw.
 *
 * Asynchronous checks (a schema with async refinements, a predicate that returns a promise) keep
 * the order of the stream: every event after a call whose check is pending waits for it, fragments
 * of other calls included, then follows in order, so the output is always the input in its order.
 * Checks themselves run concurrently. When the source errors or the subscriber leaves while a check
 * is pending, nothing is emitted afterwards (an upstream error is passed on at once, not after the
 * checks). Synchronous checks emit synchronously.
 *
 * ```
 * events:  --delta--call(async)--finish--|
 * checks:          |-------ok|
 * out:     --delta-----------(call finish)|
 * ```
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { assembleChunks, groupToolCallsByIndex, validateToolCalls, ToolArgumentsError } from 'rxjs-llm-stream';
 *
 * const tools = {
 *   get_weather: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).default('celsius') }),
 *   get_time: (args: unknown) => typeof args === 'object' && args !== null,
 * };
 * frames$.pipe(assembleChunks(), groupToolCallsByIndex(), validateToolCalls(tools)).subscribe({
 *   next: (event) => { if (event.type === 'tool-call') runTool(event.call.name, event.call.args); },
 *   error: (err) => { if (err instanceof ToolArgumentsError) reportToModel(err.call, err.issues); },
 * });
 * ```
 *
 * @param tools From tool name to its validator: a Standard Schema, or a predicate over the parsed
 *   arguments. Only the record's own properties count (a tool named `toString` is unknown).
 * @param options `allowUnknownTools`: let calls to tools not in `tools` through unchecked.
 * @returns An operator that passes events (or completions) on once their calls are checked.
 */
export function validateToolCalls<T extends ChatEvent | Completion>(
  tools: Readonly<Record<string, ToolValidator>>,
  options: ValidateToolCallsOptions = {},
): MonoTypeOperatorFunction<T> {
  const allowUnknownTools = options.allowUnknownTools === true;
  const check: ToolCallCheck = (call) => checkCall(tools, allowUnknownTools, call);
  return (source) =>
    new Observable<T>((subscriber) => {
      // What has been passed on, folded, for the `partial` of a refused call over events.
      const tracker = new CompletionTracker();
      // Values that arrived while a check before them (or their own) was pending, in arrival order.
      let waiting: Waiting<T>[] = [];
      let sourceDone = false;
      let closed = false;

      const emit = (value: T): void => {
        if (isChatEvent(value)) tracker.apply(value);
        subscriber.next(value);
      };
      // Over events: whether any came, so that errors get the completion as passed on.
      let overEvents = false;
      const raise = (error: unknown): void => {
        // Unless a layer before already gave the error the completion so far (over a `Completion`,
        // `finalizeCompletion` did; a refusal carries the completion it refused).
        if (overEvents && error instanceof LlmStreamError && !isCompletionSnapshot(error.partial)) error.partial = tracker.snapshot();
        closed = true;
        waiting = [];
        subscriber.error(error);
      };
      // Emits the values at the head of the queue whose checks (and those before them) have
      // settled; stops at the first still pending.
      const drain = (): void => {
        try {
          while (!closed) {
            const head = waiting[0];
            if (head === undefined) {
              if (sourceDone) subscriber.complete();
              return;
            }
            if (head.state === 'pending') return;
            if (head.state === 'failed') return raise(head.error);
            waiting.shift();
            emit(head.value as T);
          }
        } catch (error) {
          raise(error);
        }
      };

      subscribeLinked(source, subscriber, {
        next(value) {
          let outcome: T | Promise<T>;
          if (isChatEvent(value)) overEvents = true;
          try {
            outcome = isChatEvent(value)
              ? (checkEvent(value, check) as T | Promise<T>)
              : (checkCompletion(value as Completion, check) as T | Promise<T>);
          } catch (error) {
            // Refused synchronously. With nothing waiting, this is the stream's next value: fail now
            // (subscribeLinked routes the throw to `error` below). Otherwise it waits its turn.
            if (waiting.length === 0) throw error;
            waiting.push({ state: 'failed', value: undefined, error });
            return;
          }
          if (!(outcome instanceof Promise)) {
            if (waiting.length === 0) emit(outcome);
            else waiting.push({ state: 'ready', value: outcome, error: undefined });
            return;
          }
          const entry: Waiting<T> = { state: 'pending', value: undefined, error: undefined };
          waiting.push(entry);
          // Both handlers are attached at once, so that a rejection is never reported as unhandled,
          // even when the stream has ended meanwhile; after the end they change nothing.
          outcome.then(
            (checked) => {
              if (closed) return;
              entry.state = 'ready';
              entry.value = checked;
              drain();
            },
            (error: unknown) => {
              if (closed) return;
              entry.state = 'failed';
              entry.error = error;
              drain();
            },
          );
        },
        // From upstream (with its own partial), or thrown above: at once, even with checks pending,
        // whose results must not be emitted after an error.
        error: raise,
        complete() {
          if (waiting.length === 0) subscriber.complete();
          else sourceDone = true;
        },
      });
      return () => {
        closed = true;
        waiting = []; // drop the buffered events with the subscription
      };
    });
}

function isChatEvent(value: ChatEvent | Completion): value is ChatEvent {
  return typeof (value as { type?: unknown }).type === 'string';
}
