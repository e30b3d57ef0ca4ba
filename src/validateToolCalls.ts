import { MonoTypeOperatorFunction, Observable } from 'rxjs';
import { CompletionTracker } from './core/CompletionTracker.js';
import { isCompletionSnapshot } from './core/isCompletionSnapshot.js';
import { LlmStreamError, ToolArgumentsError } from './errors.js';
import { ChatEvent, Completion, CompletionChoice, JsonValue, ToolCall } from './events.js';
import { subscribeLinked } from './internal/subscribeLinked.js';
import { StandardSchemaV1, StandardSchemaV1Issue, StandardSchemaV1Result, isStandardSchema } from './standardSchema.js';

/**
 * A check written by hand: `true` lets the arguments through, anything else refuses them. May
 * answer through a promise.
 *
 * @example
 * ```ts
 * import type { ToolArgumentsPredicate } from 'rxjs-llm-stream';
 *
 * const hasQuery: ToolArgumentsPredicate = (args) =>
 *   typeof args === 'object' && args !== null && !Array.isArray(args) && typeof args.query === 'string';
 * ```
 */
export type ToolArgumentsPredicate = (args: JsonValue) => boolean | PromiseLike<boolean>;

/**
 * How one tool's arguments are checked: a Standard Schema (zod, valibot, ArkType, ...) or a predicate.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import type { ToolValidator } from 'rxjs-llm-stream';
 *
 * const tools: Record<string, ToolValidator> = { get_time: v.object({ tz: v.string() }), ping: () => true };
 * ```
 */
export type ToolValidator = StandardSchemaV1 | ToolArgumentsPredicate;

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

/** The outcome of one check, before it becomes a value or an error. */
type Verdict =
  | { readonly passed: true; readonly args: JsonValue }
  | { readonly passed: false; readonly issues: readonly StandardSchemaV1Issue[]; readonly unknownTool?: true };

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
  const check = (call: ToolCall): Verdict | Promise<Verdict> => checkCall(tools, allowUnknownTools, call);
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
            outcome = isChatEvent(value) ? (checkEvent(value, check) as T | Promise<T>) : (checkCompletion(value as Completion, check) as T | Promise<T>);
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

/** An event as it may go on: the same event, or a `tool-call` whose arguments the schema transformed. */
function checkEvent(event: ChatEvent, check: (call: ToolCall) => Verdict | Promise<Verdict>): ChatEvent | Promise<ChatEvent> {
  if (event.type === 'tool-call-delta' && event.call === undefined) {
    // Without groupToolCallsByIndex in front, no `tool-call` ever comes, and a finalizeCompletion
    // further on would assemble calls that nothing checked.
    throw new TypeError('validateToolCalls() over events needs groupToolCallsByIndex() before it: a tool-call-delta arrived without `call`');
  }
  if (event.type !== 'tool-call') return event;
  return settle(check(event.call), (verdict) => {
    if (!verdict.passed) throw refusal(event.choice, event.call, verdict);
    return verdict.args === event.call.args ? event : { ...event, call: { ...event.call, args: verdict.args } };
  });
}

/** A completion as it may go on, once every call of every choice passed. */
function checkCompletion(completion: Completion, check: (call: ToolCall) => Verdict | Promise<Verdict>): Completion | Promise<Completion> {
  // A hand-made completion without choices still has its top-level calls, which are choice 0's.
  const choices: readonly CompletionChoice[] =
    completion.choices.length > 0
      ? completion.choices
      : [{ index: 0, content: completion.content, reasoning: completion.reasoning, refusal: completion.refusal, toolCalls: completion.toolCalls, finishReason: completion.finishReason, rawFinishReason: completion.rawFinishReason }];
  const calls = choices.flatMap((choice) => choice.toolCalls.map((call) => ({ choice: choice.index, call })));
  if (calls.length === 0) return completion;
  const verdicts = calls.map(({ call }) => check(call));
  const decide = (settled: readonly Verdict[]): Completion => {
    // The first refusal in choice and index order is the one reported.
    for (const [i, verdict] of settled.entries()) {
      if (verdict.passed) continue;
      const { choice, call } = calls[i]!;
      const error = refusal(choice, call, verdict);
      error.partial = completion;
      throw error;
    }
    let at = 0;
    const checked = choices.map((choice) => ({
      ...choice,
      toolCalls: choice.toolCalls.map((call) => {
        const verdict = settled[at++]!;
        return verdict.passed && verdict.args !== call.args ? { ...call, args: verdict.args } : call;
      }),
    }));
    return { ...completion, toolCalls: checked[0]!.toolCalls, ...(completion.choices.length > 0 ? { choices: checked } : {}) };
  };
  if (!verdicts.some((verdict) => verdict instanceof Promise)) return decide(verdicts as Verdict[]);
  // Run concurrently, read in order: awaiting one after another means the first refusal or throw
  // in call order is the one reported, whichever settles first. Each promise already has handlers,
  // so one left unread after an earlier refusal is not an unhandled rejection.
  const outcomes = verdicts.map((verdict) =>
    Promise.resolve(verdict).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
  );
  return (async () => {
    const settled: Verdict[] = [];
    for (const outcome of outcomes) {
      const result = await outcome;
      if ('error' in result) throw result.error;
      settled.push(result.value);
    }
    return decide(settled);
  })();
}

function checkCall(tools: Readonly<Record<string, ToolValidator>>, allowUnknownTools: boolean, call: ToolCall): Verdict | Promise<Verdict> {
  // Own properties only: a model that calls "constructor" or "toString" must not reach
  // Object.prototype's functions and have them taken for predicates.
  if (!Object.hasOwn(tools, call.name)) {
    if (allowUnknownTools) return { passed: true, args: call.args };
    return { passed: false, unknownTool: true, issues: [{ message: `no tool named ${JSON.stringify(call.name)} was declared` }] };
  }
  const validator = tools[call.name];
  // Checked first: a schema may itself be a function (ArkType's are).
  if (isStandardSchema(validator)) {
    return settle(validator['~standard'].validate(call.args), (result: StandardSchemaV1Result<unknown>): Verdict =>
      result.issues !== undefined ? { passed: false, issues: result.issues } : { passed: true, args: result.value as JsonValue },
    );
  }
  if (typeof validator !== 'function') {
    throw new TypeError(`the validator of tool ${JSON.stringify(call.name)} is neither a Standard Schema nor a function`);
  }
  return settle(validator(call.args), (answer): Verdict =>
    // Only `true`: a truthy value that is not (an object, a forgotten `await`) refuses.
    answer === true ? { passed: true, args: call.args } : { passed: false, issues: [{ message: `the predicate of tool ${JSON.stringify(call.name)} refused these arguments` }] },
  );
}

/** Applies `then` now to a plain value, or when a promise (or thenable) settles. */
function settle<V, R>(value: V | PromiseLike<V>, then: (value: V) => R): R | Promise<R> {
  if (isThenable(value)) return Promise.resolve(value).then(then);
  return then(value);
}

function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function refusal(choice: number, call: ToolCall, verdict: Extract<Verdict, { passed: false }>): ToolArgumentsError {
  const which = `tool call ${call.index} of choice ${choice} (${call.name}, ${call.id})`;
  return new ToolArgumentsError(`the arguments of ${which} were refused: ${describeIssues(verdict.issues)}`, {
    reason: verdict.unknownTool === true ? 'unknown-tool' : 'invalid-arguments',
    call,
    choice,
    issues: verdict.issues,
  });
}

/** The first few issues, with their paths, for a message that does not grow with the input. */
function describeIssues(issues: readonly StandardSchemaV1Issue[]): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment)).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return shown.length === 0 ? 'no issue given' : shown.join('; ');
}
