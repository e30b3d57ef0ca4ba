import { Observable, Subscription, defer, from, identity, map, of, switchMap } from 'rxjs';
import { LlmStreamError } from '../errors/errors.js';
import { requestFailure } from './requestFailure.js';
import type { ToolFailure, ToolOutput, ToolResult } from '../next-turn/ToolResult.js';
import { CompletionTracker } from '../reply/CompletionTracker.js';
import { type ToolValidator, type Verdict, checkCall, refusal } from '../reply/checkToolCall.js';
import { groupToolCallsByIndex } from '../reply/groupToolCallsByIndex.js';
import { isCompletionSnapshot } from '../reply/isCompletionSnapshot.js';
import type { Completion, CompletionSnapshot } from '../types/completion.js';
import type { JsonValue, ToolCall } from '../types/replyParts.js';
import { CallSchedule } from './CallSchedule.js';
import type { LoopTool, LoopTools } from './LoopTool.js';
import { ToolLoopError } from './ToolLoopError.js';
import type { ToolErrorReason, ToolLoopEvent, ToolLoopPartial, ToolLoopStep, ToolLoopStepFinish } from './ToolLoopEvent.js';
import type { ToolLoopFormat } from './ToolLoopFormat.js';
import { approvalAnswer, toolOutput } from './toolOutcome.js';
import type { ToolLoopTelemetry } from '../telemetry/ToolLoopTelemetry.js';

/** How many steps a loop makes by default before it gives up with a `ToolLoopError` (`max-steps`). */
export const DEFAULT_MAX_STEPS = 10;

/**
 * What the loop gives `request` beside the conversation: the step's number and a signal aborted when
 * the loop no longer wants the reply (pass it to `fetch`).
 *
 * @example
 * ```ts
 * import type { ToolLoopRequestContext } from 'rxjs-llm-stream';
 *
 * const init = (body: string, { signal }: ToolLoopRequestContext): RequestInit => ({ method: 'POST', body, signal });
 * ```
 */
export interface ToolLoopRequestContext {
  readonly step: number;
  readonly signal: AbortSignal;
}

/**
 * A call that waits for the app: its step and the call, arguments checked.
 *
 * @example
 * ```ts
 * import type { ApprovalRequest } from 'rxjs-llm-stream';
 *
 * const approve = ({ call }: ApprovalRequest) => window.confirm(`Run ${call.name}(${call.arguments})?`);
 * ```
 */
export interface ApprovalRequest {
  readonly step: number;
  readonly call: ToolCall;
}

/**
 * Options of {@link toolLoop}.
 *
 * @example
 * ```ts
 * import { openaiChatLoop, type ToolLoopOptions } from 'rxjs-llm-stream';
 *
 * declare const options: ToolLoopOptions<{ role: 'user'; content: string }, never, { add: { a: number; b: number } }>;
 * options.maxSteps; // 10 when absent
 * ```
 */
export interface ToolLoopOptions<Message, Turn, Tools> {
  /** The provider: how its body is read and how the next request's messages are built (`openaiChatLoop`, `anthropicLoop`, ...). */
  readonly format: ToolLoopFormat<Turn>;
  /**
   * The request of one step: the conversation so far (in the provider's message shape) to the body of
   * the provider's streamed answer, over any transport (`fetch` with `fromResponse`, Angular's
   * `HttpClient`, Node's `http`). Unsubscribing from it must cancel the request.
   */
  readonly request: (conversation: readonly (Message | Turn)[], context: ToolLoopRequestContext) => Observable<Uint8Array>;
  /** The messages the loop starts from, as the provider takes them. */
  readonly conversation: readonly Message[];
  /** The program's tools by name. A call to a tool not here goes back to the model as an error result. */
  readonly tools: LoopTools<Tools>;
  /** How many calls run at once; default no limit. Checks and approvals do not count. */
  readonly concurrency?: number;
  /** The most steps (requests) one loop makes; default {@link DEFAULT_MAX_STEPS}. */
  readonly maxSteps?: number;
  /** After a step whose calls all have results: `true` ends the loop there (`loop-finish`, reason `stop-when`). */
  readonly stopWhen?: (finished: ToolLoopStepFinish<Message | Turn>, steps: readonly ToolLoopStep[]) => boolean;
  /** The app's answer for a call that needs approval (`true` approves; anything else, or an Observable that completes empty, denies). */
  readonly approve?: (request: ApprovalRequest) => Observable<boolean> | PromiseLike<boolean> | boolean;
  /** A tool's error: an error result the model reads (`'result'`, the default), or the end of the loop (`'end'`, a `ToolLoopError`). */
  readonly onToolError?: 'result' | 'end';
  /** Start each call at its `tool-call` event, while the rest of the reply still streams; default `false` (at the reply's end). */
  readonly eager?: boolean;
  /**
   * Told what the loop had when its subscriber leaves before it ended (not after its finish or an
   * error): the conversation as of the last finished step, every step begun, the current reply so far.
   * Called during the unsubscribe: what it throws is thrown there (RxJS's `UnsubscriptionError`).
   */
  readonly onCancel?: (had: ToolLoopPartial<Message | Turn>) => void;
  /** Watches each run of the loop: its steps' events and its tools' executions (`genAiToolLoop` for OpenTelemetry). */
  readonly telemetry?: ToolLoopTelemetry;
}

/** A call's result with the event that reports it. */
interface Settled {
  readonly result: ToolResult;
  readonly event: ToolLoopEvent<never>;
}

/**
 * The tool loop as an Observable: streams a step (its events pass on live, tagged with the step),
 * checks each call's arguments against its tool's schema, asks the app's approval where a tool needs
 * it, runs the calls (in parallel, up to `concurrency`), appends the assistant's turn and the results
 * in call order (whatever order they finished in) and requests again, until a step makes no call,
 * `stopWhen` says so, or `maxSteps` is reached (a `ToolLoopError`, reason `max-steps`).
 *
 * What goes back to the model as an error result: arguments the schema refuses, a tool nobody
 * declared, a denied call, and (unless `onToolError: 'end'`) a tool's own error, as its message.
 * Unsubscribing at any moment cancels the request in flight (its signal aborted, its Observable
 * unsubscribed) and every running tool (an Observable tool unsubscribed, a Promise tool's signal
 * aborted). An error of this library that ends the loop (a cut stream's `StreamClosedEarlyError`, a
 * `ProviderError`, ...) has as `partial` a {@link ToolLoopPartial}: the conversation so far, the usage of
 * every step, and the failed step's reply so far (what was the partial before). Only choice 0 of a
 * reply is continued.
 *
 * ```
 * step 1:  step-start, event..., (approval-request), tool-result | tool-error (call order), step-finish
 * step 2:  step-start, event..., step-finish, loop-finish|
 * ```
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { from, switchMap } from 'rxjs';
 * import { fromResponse, openaiChatLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * const loop$ = toolLoop({
 *   format: openaiChatLoop,
 *   request: (messages, { signal }) =>
 *     from(fetch(url, { method: 'POST', body: JSON.stringify({ model: 'gpt-5', stream: true, messages }), signal })).pipe(
 *       switchMap((response) => fromResponse(response)),
 *     ),
 *   conversation: [{ role: 'user', content: 'Weather in Oslo?' }],
 *   tools: { get_weather: { schema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, temperature: 21 }) } },
 * });
 * loop$.subscribe((event) => { if (event.type === 'event' && event.event.type === 'content') render(event.event.text); });
 * ```
 *
 * @param options The format, the request, the conversation, the tools and the loop's limits.
 * @returns The loop's events; it completes after `loop-finish`.
 */
export function toolLoop<Message, Turn, Tools>(options: ToolLoopOptions<Message, Turn, Tools>): Observable<ToolLoopEvent<Message | Turn>> {
  type Conversation = readonly (Message | Turn)[];
  // Each tool is typed by its own arguments outside; inside, arguments are what the schema made of them.
  const tools = options.tools as unknown as Readonly<Record<string, LoopTool<unknown>>>;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new RangeError(`toolLoop: maxSteps must be a whole number of at least 1, not ${maxSteps}`);
  const concurrency = options.concurrency ?? Infinity;
  new CallSchedule(concurrency); // throws now, not at the first call, on a concurrency below 1
  const names = Object.keys(tools);
  const waiting = names.filter((name) => (tools[name]?.needsApproval ?? false) !== false);
  if (options.approve === undefined && waiting.length > 0) {
    throw new TypeError(`toolLoop: tool ${JSON.stringify(waiting[0])} may need approval, and no approve function was given`);
  }
  // Own properties only (fromEntries defines them, `__proto__` included), as checkCall reads them.
  const validators: Readonly<Record<string, ToolValidator>> = Object.fromEntries(
    names.map((name) => [name, tools[name]?.schema ?? (() => true)] as const),
  );
  const endOnToolError = options.onToolError === 'end';
  const eager = options.eager === true;

  return new Observable<ToolLoopEvent<Message | Turn>>((downstream) => {
    // Telemetry sees the loop's end through the output it hands back, and its steps and tools through `watch`.
    const watched = options.telemetry?.run(downstream);
    const subscriber = watched?.output ?? downstream;
    const watch = watched?.watch;
    const loop = new Subscription();
    const steps: ToolLoopStep[] = [];
    /** What the loop has now, for `onCancel`: the current step's partial. */
    let had: (() => ToolLoopPartial<Message | Turn>) | undefined;
    /** Set when the loop completes or errors: a teardown after that is no cancel. */
    let ended = false;

    const runStep = (step: number, conversation: Conversation): void => {
      const own = new Subscription();
      loop.add(own);
      const tracker = new CompletionTracker();
      const schedule = new CallSchedule<Settled>(concurrency);
      const calls: ToolCall[] = [];
      const argsOf = new Map<number, unknown>();
      const request = new AbortController();
      let completion: Completion | undefined;
      let finished = false;
      own.add(() => {
        if (!finished) request.abort();
      });

      /** The loop's partial at this step: the conversation before it, every step with this one last. */
      const partialWith = (reply: CompletionSnapshot | Completion): ToolLoopPartial<Message | Turn> => ({
        conversation,
        steps: [...steps, stepOf(step, reply)],
        reply,
      });
      had = () => partialWith(completion ?? tracker.snapshot());
      // Not marked finished: the teardown that follows aborts the request in flight. A second error
      // (a tool's, after the reply's) finds the subscriber closed.
      const fail = (error: unknown): void => {
        if (error instanceof LlmStreamError && !(error instanceof ToolLoopError)) {
          error.partial = partialWith(isCompletionSnapshot(error.partial) ? error.partial : tracker.snapshot());
        }
        ended = true;
        subscriber.error(error);
      };
      /** Runs `body`, routing what it throws to the loop's error. */
      const guard = (body: () => void): void => {
        try {
          body();
        } catch (error) {
          fail(error);
        }
      };

      const finishStep = (reply: Completion): void => {
        finished = true;
        own.unsubscribe();
        loop.remove(own);
        const results = schedule.results().map((settled) => settled.result);
        steps.push(stepOf(step, reply, results.length));
        const next = [...conversation, ...options.format.nextTurn(reply, results)];
        const stepFinish: ToolLoopStepFinish<Message | Turn> = {
          type: 'step-finish',
          step,
          completion: reply,
          results,
          conversation: next,
        };
        subscriber.next(stepFinish);
        const done = (reason: 'no-calls' | 'stop-when'): void => {
          subscriber.next({ type: 'loop-finish', reason, completion: reply, conversation: next, steps: [...steps] });
          ended = true;
          subscriber.complete();
        };
        if (results.length === 0) return done('no-calls');
        if (options.stopWhen?.(stepFinish, [...steps]) === true) return done('stop-when');
        if (step >= maxSteps) {
          const message = `the model still asked for calls after ${maxSteps} step${maxSteps === 1 ? '' : 's'} (maxSteps)`;
          ended = true;
          subscriber.error(new ToolLoopError(message, { reason: 'max-steps', partial: { conversation: next, steps: [...steps], reply } }));
          return;
        }
        runStep(step + 1, next);
      };
      const maybeFinish = (): void => {
        if (completion !== undefined && schedule.settled && !finished) guard(() => finishStep(completion!));
      };

      const settle = (slot: number, settled: Settled): void => {
        for (const released of schedule.settle(slot, settled)) subscriber.next(released.event);
        start();
        maybeFinish();
      };
      const failure = (slot: number, reason: ToolErrorReason, error: string, cause?: unknown): void => {
        const call = calls[slot]!;
        const result: ToolFailure = { callId: call.id, name: call.name, ...kindOf(call), error };
        settle(slot, { result, event: { type: 'tool-error', step, call, result, reason, ...(cause === undefined ? {} : { cause }) } });
      };
      const output = (slot: number, value: JsonValue): void => {
        const call = calls[slot]!;
        const result: ToolOutput = { callId: call.id, name: call.name, ...kindOf(call), output: value };
        settle(slot, { result, event: { type: 'tool-result', step, call, result } });
      };

      /** Runs the calls the limit leaves room for. */
      const start = (): void => {
        for (const slot of schedule.start()) {
          const call = calls[slot]!;
          const tool = tools[call.name]!;
          const signal = new AbortController();
          let settled = false;
          const run = defer(() => toolOutput(tool.execute(argsOf.get(slot), { signal: signal.signal, callId: call.id, step, call })));
          own.add(() => {
            if (!settled) signal.abort();
          });
          own.add(
            (watch === undefined ? run : watch.tool(step, call, run)).subscribe({
              next: (value) => {
                settled = true;
                guard(() => output(slot, value));
              },
              error: (error: unknown) => {
                settled = true;
                if (endOnToolError) {
                  const reply = completion ?? tracker.snapshot();
                  const which = `tool call ${call.index} (${call.name}, ${call.id}) of step ${step}`;
                  fail(
                    new ToolLoopError(`${which} failed: ${messageOf(error)}`, {
                      reason: 'tool-failed',
                      cause: error,
                      partial: partialWith(reply),
                    }),
                  );
                  return;
                }
                guard(() => failure(slot, 'failed', messageOf(error), error));
              },
            }),
          );
        }
      };

      /** A call of the reply: checked, approved where its tool needs it, then queued to run. */
      const addCall = (call: ToolCall): void => {
        const slot = schedule.add();
        calls[slot] = call;
        const verdict$ = defer(() => {
          const verdict = checkCall(validators, false, call);
          return verdict instanceof Promise ? from(verdict) : of(verdict);
        });
        const ready$ = verdict$.pipe(
          switchMap((verdict: Verdict) => {
            if (!verdict.passed) return of({ refused: verdict });
            const tool = tools[call.name]!;
            const needs = tool.needsApproval;
            const asks = needs === true || (typeof needs === 'function' && needs(verdict.args, call) === true);
            if (!asks) return of({ args: verdict.args as unknown, approved: true });
            subscriber.next({ type: 'approval-request', step, call });
            return approvalAnswer(options.approve!({ step, call })).pipe(map((approved) => ({ args: verdict.args as unknown, approved })));
          }),
        );
        own.add(
          ready$.subscribe({
            next: (ready) =>
              guard(() => {
                if ('refused' in ready) {
                  const reason = ready.refused.unknownTool === true ? 'unknown-tool' : 'invalid-arguments';
                  return failure(slot, reason, refusal(0, call, ready.refused).message);
                }
                if (!ready.approved) return failure(slot, 'denied', `the user denied this call of ${call.name}`);
                argsOf.set(slot, ready.args);
                schedule.queue(slot);
                start();
              }),
            error: fail,
          }),
        );
      };

      subscriber.next({ type: 'step-start', step, conversation });
      if (subscriber.closed) return;
      const reply$ = defer(() => options.request(conversation, { step, signal: request.signal })).pipe(
        options.format.read(),
        groupToolCallsByIndex(),
        watch === undefined ? identity : watch.step(step),
      );
      own.add(
        reply$.subscribe({
          next: (event) =>
            guard(() => {
              tracker.apply(event);
              subscriber.next({ type: 'event', step, event });
              if (eager && event.type === 'tool-call' && event.choice === 0) addCall(event.call);
            }),
          // What the request itself failed with becomes one of the library's errors, with the partial.
          error: (error: unknown) => fail(requestFailure(error)),
          complete: () =>
            guard(() => {
              const reply = tracker.complete();
              if (!eager) for (const call of reply.toolCalls) addCall(call);
              completion = reply;
              maybeFinish();
            }),
        }),
      );
    };

    runStep(1, options.conversation);
    return () => {
      loop.unsubscribe();
      if (!ended && had !== undefined) options.onCancel?.(had());
    };
  });
}

/** The step as the loop counts it, from its reply (whole, or so far). */
function stepOf(step: number, reply: CompletionSnapshot | Completion, calls = reply.toolCalls.length): ToolLoopStep {
  return { step, usage: reply.usage, finishReason: reply.finishReason, toolCalls: calls };
}

/** `kind: 'custom'` for a custom call's result (the Responses API answers it with another item). */
function kindOf(call: ToolCall): { kind?: 'custom' } {
  return call.kind === 'custom' ? { kind: 'custom' } : {};
}

/** What the model reads of a tool's error: its message. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
