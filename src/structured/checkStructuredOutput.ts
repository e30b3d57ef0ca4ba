import type { Completion } from '../types/completion.js';
import { IncompleteOutputError, StructuredOutputError } from './outputErrors.js';
import type { FinishReason, JsonValue } from '../types/replyParts.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';
import type { OutputSource } from './structuredOutput.js';
import { describeOutput, excerptOf } from './describeOutput.js';

/**
 * What the final check of a structured output looks at: its text (`null` when the reply had none),
 * how its choice finished, and any refusal. Read from the events (`StructuredOutputReader`) or from
 * a `Completion` ({@link outputStateOf}).
 */
export interface OutputState {
  readonly from: OutputSource;
  readonly choice: number;
  readonly text: string | null;
  readonly finishReason: FinishReason | null;
  readonly refusal: string | null;
}

/** The output of a completion's choice: its content, or the arguments of its first call to the tool (a cut one included). */
export function outputStateOf(completion: Completion, from: OutputSource, choice: number): OutputState {
  const found = completion.choices.find((candidate) => candidate.index === choice);
  if (found === undefined) return { from, choice, text: null, finishReason: null, refusal: null };
  let text: string | null;
  if (from === 'content') text = found.content;
  else {
    const call =
      found.toolCalls.find((candidate) => candidate.name === from.tool) ?? found.incompleteToolCalls?.find((c) => c.name === from.tool);
    text = call === undefined ? null : call.arguments;
  }
  return { from, choice, text, finishReason: found.finishReason, refusal: found.refusal };
}

/**
 * The parsed output, or the error that refuses it: a reply cut by `length` or stopped by
 * `content_filter` ({@link IncompleteOutputError}, checked first: a cut object may still parse), a
 * refusal, no output at all, text that is not JSON. The schema's check is {@link validateOutput}.
 */
export function parseOutput(state: OutputState): JsonValue {
  const what = describeOutput(state.from, state.choice);
  const text = state.text ?? '';
  const reason = state.finishReason;
  if (reason === 'length' || reason === 'content_filter') {
    const why = reason === 'length' ? 'the token limit cut it' : "the provider's content filter stopped it";
    throw new IncompleteOutputError(`${what} is incomplete: ${why} after ${text.length} characters`, { text, finishReason: reason });
  }
  if (state.text === null || state.text.trim() === '') {
    if (state.refusal !== null && state.refusal !== '') {
      throw new StructuredOutputError(`the model refused instead of writing ${what}: ${excerptOf(state.refusal)}`, {
        reason: 'refusal',
        text: state.refusal,
      });
    }
    const none = state.from === 'content' ? 'the reply has no content' : `the reply has no call to ${state.from.tool}`;
    throw new StructuredOutputError(`${none}, where ${what} was expected`, { reason: 'missing', text });
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw new StructuredOutputError(`${what} is not valid JSON: ${excerptOf(text)}`, { reason: 'invalid-json', text, cause });
  }
}

/**
 * The schema's output for a parsed value (its defaults and transforms applied), or a
 * `StructuredOutputError` with the schema's issues; through a promise when the schema checks
 * asynchronously. `what` names the value in the message ("the output", "element 3 of the output").
 */
export function validateOutput<T>(schema: StandardSchemaV1<unknown, T>, value: unknown, text: string, what: string): T | Promise<T> {
  const result = schema['~standard'].validate(value);
  if (isPromise(result)) return result.then((settled) => accepted(settled, text, what));
  return accepted(result, text, what);
}

function accepted<T>(result: Awaited<ReturnType<StandardSchemaV1<unknown, T>['~standard']['validate']>>, text: string, what: string): T {
  if (result.issues === undefined) return result.value;
  const first = result.issues[0];
  const where = first?.path === undefined || first.path.length === 0 ? '' : ` at ${first.path.map(segmentOf).join('.')}`;
  const more = result.issues.length > 1 ? ` (and ${result.issues.length - 1} more)` : '';
  throw new StructuredOutputError(`${what} does not match its schema${where}: ${first?.message ?? 'refused'}${more}`, {
    reason: 'schema',
    text,
    issues: result.issues,
  });
}

function segmentOf(segment: PropertyKey | { readonly key: PropertyKey }): string {
  return String(typeof segment === 'object' ? segment.key : segment);
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}
