import type * as otel from './otelTypes.js';
import { Observable, type Subscriber } from 'rxjs';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import type { ReplyTimings } from './ReplyClock.js';
import type { GenAiRequest } from './InferenceRecord.js';
import type { GenAiTelemetry } from './genAiTelemetry.js';
import type { ToolLoopOutput, ToolLoopTelemetry, ToolLoopWatch } from './ToolLoopTelemetry.js';
import { CANCELLED_ERROR_TYPE, genAiErrorType } from './errorType.js';
import { withGenAiTelemetry } from './withGenAiTelemetry.js';

/**
 * Options of {@link genAiToolLoop}: the request's attributes (each step is one inference), and the
 * loop's own.
 *
 * @example
 * ```ts
 * import type { GenAiToolLoopOptions } from 'rxjs-llm-stream';
 *
 * const options: GenAiToolLoopOptions = { provider: 'openai', model: 'gpt-5', agentName: 'weather' };
 * ```
 */
export interface GenAiToolLoopOptions extends GenAiRequest {
  /** `gen_ai.agent.name`, in the loop span's name (`invoke_agent weather`). */
  readonly agentName?: string;
  /** Told each step's reply figures once the step's reply ended. */
  readonly onTimings?: (step: number, timings: ReplyTimings) => void;
  /** The span to put the loop's span under; default the active context's. */
  readonly parent?: otel.Context;
}

/**
 * OpenTelemetry for `toolLoop` (its `telemetry` option), after the GenAI semantic conventions: one
 * `invoke_agent` span (INTERNAL) per run of the loop, and under it an inference span per step (what
 * {@link withGenAiTelemetry} records, metrics included) and an `execute_tool` span per tool execution
 * (`gen_ai.tool.name`, `gen_ai.tool.call.id`, the arguments and result only under `captureContent`),
 * with `gen_ai.execute_tool.duration`. A loop that fails, or is left, ends its span as ERROR with
 * `error.type`; so does a tool that throws (its error goes back to the model, or ends the loop, as
 * the loop's `onToolError` says).
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { genAiTelemetry, genAiToolLoop, openaiChatLoop, toolLoop, type LoopTools } from 'rxjs-llm-stream';
 * import type { Observable } from 'rxjs';
 *
 * declare const request: (messages: unknown) => Observable<Uint8Array>;
 * declare const tools: LoopTools<{ get_weather: { city: string } }>;
 * const telemetry = genAiTelemetry(otel);
 * const loop$ = toolLoop({
 *   format: openaiChatLoop,
 *   request,
 *   conversation: [{ role: 'user', content: 'Weather in Oslo?' }],
 *   tools,
 *   telemetry: genAiToolLoop(telemetry, { provider: 'openai', model: 'gpt-5', agentName: 'weather' }),
 * });
 * ```
 *
 * @param telemetry What `genAiTelemetry(otel)` made, once per app.
 * @param options The request's attributes, the agent's name, `onTimings`, the parent context.
 */
export function genAiToolLoop(telemetry: GenAiTelemetry, options: GenAiToolLoopOptions): ToolLoopTelemetry {
  const { api, tracer } = telemetry;
  // Each step's request is the conversation so far, in the provider's shape: the app's input
  // messages are the first step's only, so no step records them.
  const { onTimings, agentName, parent: outer, inputMessages: _first, ...request } = options;
  return {
    run: <E>(subscriber: Subscriber<E>) => {
      const attributes: otel.Attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': options.provider };
      if (options.model !== undefined) attributes['gen_ai.request.model'] = options.model;
      if (agentName !== undefined) attributes['gen_ai.agent.name'] = agentName;
      const name = agentName === undefined ? 'invoke_agent' : `invoke_agent ${agentName}`;
      const parent = outer ?? api.context.active();
      const span = tracer.startSpan(name, { kind: api.SpanKind.INTERNAL, attributes }, parent);
      const inside = api.trace.setSpan(parent, span);
      let ended = false;
      const end = (error: unknown, cancelled: boolean): void => {
        if (ended) return;
        ended = true;
        if (cancelled || error !== undefined) {
          span.setAttribute('error.type', cancelled ? CANCELLED_ERROR_TYPE : genAiErrorType(error));
          const message = cancelled ? 'the subscriber left before the loop ended' : messageOf(error);
          span.setStatus({ code: api.SpanStatusCode.ERROR, message });
        }
        span.end();
      };
      // Also runs after a complete or an error, which ended the span first: only a subscriber that left is a cancel.
      subscriber.add(() => end(undefined, true));
      const output: ToolLoopOutput<E> = {
        next: (event) => subscriber.next(event),
        error: (error) => {
          end(error, false);
          subscriber.error(error);
        },
        complete: () => {
          end(undefined, false);
          subscriber.complete();
        },
        get closed() {
          return subscriber.closed;
        },
      };
      const watch: ToolLoopWatch = {
        step: (step) =>
          withGenAiTelemetry(telemetry, {
            ...request,
            parent: inside,
            ...(onTimings === undefined ? {} : { onTimings: (timings: ReplyTimings) => onTimings(step, timings) }),
          }),
        tool: (_step, call, execution) => toolSpan(telemetry, inside, call, execution),
      };
      return { output, watch };
    },
  };
}

/** One tool execution under an `execute_tool` span, with its duration recorded. */
function toolSpan<T>(telemetry: GenAiTelemetry, parent: otel.Context, call: ToolLoopCall, execution: Observable<T>): Observable<T> {
  const { api, tracer, instruments } = telemetry;
  return new Observable<T>((subscriber) => {
    const attributes: otel.Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
      'gen_ai.tool.type': 'function',
    };
    if (telemetry.captureContent) attributes['gen_ai.tool.call.arguments'] = call.arguments;
    const span = tracer.startSpan(`execute_tool ${call.name}`, { kind: api.SpanKind.INTERNAL, attributes }, parent);
    const start = telemetry.now();
    let ended = false;
    const end = (error: unknown, cancelled: boolean): void => {
      if (ended) return;
      ended = true;
      const metric: otel.Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name };
      if (cancelled || error !== undefined) {
        const type = cancelled ? CANCELLED_ERROR_TYPE : genAiErrorType(error);
        span.setAttribute('error.type', type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: cancelled ? 'the tool was cancelled' : messageOf(error) });
        metric['error.type'] = type;
      }
      span.end();
      instruments.toolDuration.record((telemetry.now() - start) / 1000, metric);
    };
    subscribeLinked(execution, subscriber, {
      // The execution's one value is its result: the tool is done, whatever the loop does next (it
      // may tear this down at once, as the step it finished ends).
      next: (value) => {
        if (telemetry.captureContent) span.setAttribute('gen_ai.tool.call.result', JSON.stringify(value) ?? 'null');
        end(undefined, false);
        subscriber.next(value);
      },
      error: (error) => {
        end(error, false);
        subscriber.error(error);
      },
      complete: () => {
        end(undefined, false);
        subscriber.complete();
      },
    });
    return () => end(undefined, true);
  });
}

/** What a tool span reads of a call. */
interface ToolLoopCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
