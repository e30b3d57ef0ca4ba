/**
 * How one tool call's arguments are checked: the validators a caller gives (a Standard Schema or a
 * predicate), the dispatch from a call to its tool's validator, its verdict, and the
 * `ToolArgumentsError` a refused call becomes.
 */
import { ToolArgumentsError } from '../errors/errors.js';
import { JsonValue, ToolCall } from '../types/events.js';
import { StandardSchemaV1, StandardSchemaV1Issue, StandardSchemaV1Result, isStandardSchema } from '../types/standardSchema.js';

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

/** The outcome of one check, before it becomes a value or an error. */
export type Verdict =
  | { readonly passed: true; readonly args: JsonValue }
  | { readonly passed: false; readonly issues: readonly StandardSchemaV1Issue[]; readonly unknownTool?: true };

/** A check of one call, with the tools and options it runs under already bound. */
export type ToolCallCheck = (call: ToolCall) => Verdict | Promise<Verdict>;

/**
 * What `tools` say of one call's arguments: its tool's Standard Schema or predicate, run on `args`,
 * or a refusal when no tool of that name was declared (unless `allowUnknownTools`). Answers through
 * a promise when the validator does. Throws when the tool's validator is neither a schema nor a
 * function, and whatever a validator throws.
 */
export function checkCall(
  tools: Readonly<Record<string, ToolValidator>>,
  allowUnknownTools: boolean,
  call: ToolCall,
): Verdict | Promise<Verdict> {
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
    answer === true
      ? { passed: true, args: call.args }
      : { passed: false, issues: [{ message: `the predicate of tool ${JSON.stringify(call.name)} refused these arguments` }] },
  );
}

/** Applies `then` now to a plain value, or when a promise (or thenable) settles. */
export function settle<V, R>(value: V | PromiseLike<V>, then: (value: V) => R): R | Promise<R> {
  if (isThenable(value)) return Promise.resolve(value).then(then);
  return then(value);
}

function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The `ToolArgumentsError` of a refused call, its message naming the call and its first issues. */
export function refusal(choice: number, call: ToolCall, verdict: Extract<Verdict, { passed: false }>): ToolArgumentsError {
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
    const path = (issue.path ?? [])
      .map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment))
      .join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return shown.length === 0 ? 'no issue given' : shown.join('; ');
}
