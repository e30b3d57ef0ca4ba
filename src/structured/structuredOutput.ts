/**
 * The types of structured output: where the JSON comes from, the value so far as it streams, and
 * the completion with its validated value.
 */
import type { PartialJsonStop } from '../json/PartialJsonOptions.js';
import type { Completion } from '../types/completion.js';
import type { JsonPath, JsonValue } from '../types/replyParts.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';

/**
 * Where a reply's structured output is: its content (OpenAI `response_format` and Responses
 * `text.format`, Gemini `responseSchema`, Ollama `format`, Bedrock), or the arguments of a forced
 * tool call (Anthropic's tool as output, and any provider where the schema was sent as a tool):
 * `{ tool: name }`, the first call to that tool.
 *
 * @example
 * ```ts
 * import type { OutputSource } from 'rxjs-llm-stream';
 *
 * const fromContent: OutputSource = 'content';
 * const fromForcedTool: OutputSource = { tool: 'record_summary' };
 * ```
 */
export type OutputSource = 'content' | { readonly tool: string };

/**
 * Options shared by the structured-output operators: the schema, where the output is, and the
 * preview's bounds.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { StructuredOutputOptions } from 'rxjs-llm-stream';
 *
 * const options: StructuredOutputOptions<typeof Plan> = { schema: Plan, from: { tool: 'make_plan' } };
 * ```
 */
export interface StructuredOutputOptions<S extends StandardSchemaV1 = StandardSchemaV1> {
  /** A Standard Schema (zod, valibot, ArkType, ...) for the output: it types the values, and checks the result. */
  readonly schema?: S;
  /** Where the output is: the content (default) or a forced tool call's arguments, `{ tool: name }`. */
  readonly from?: OutputSource;
  /** Which choice: default 0. */
  readonly choice?: number;
  /** Containers nested deeper than this are not previewed. Default 64. */
  readonly maxDepth?: number;
  /** Characters previewed at most. Default {@link DEFAULT_STRUCTURED_MAX_CHARS} (16 MiB). */
  readonly maxSize?: number;
}

/**
 * The default size bound of a structured output's preview: 16 MiB of text (16,777,216 characters),
 * more than a tool call's preview (1 MiB), since a structured output is often the whole answer.
 *
 * @example
 * ```ts
 * import { scanStructuredOutput, DEFAULT_STRUCTURED_MAX_CHARS } from 'rxjs-llm-stream';
 *
 * events$.pipe(scanStructuredOutput({ maxSize: 4 * DEFAULT_STRUCTURED_MAX_CHARS }));
 * ```
 */
export const DEFAULT_STRUCTURED_MAX_CHARS = 16 * 1024 * 1024;

/**
 * A value as it streams: every property optional, at every depth; arrays hold the elements so far.
 *
 * @example
 * ```ts
 * import type { DeepPartial } from 'rxjs-llm-stream';
 *
 * type Plan = { title: string; steps: { do: string }[] };
 * const soFar: DeepPartial<Plan> = { title: 'Pl', steps: [{}] };
 * ```
 */
export type DeepPartial<T> = T extends string | number | boolean | bigint | symbol | null | undefined | Date | RegExp
  ? T
  : T extends (...args: never[]) => unknown
    ? T
    : T extends readonly (infer E)[]
      ? DeepPartial<E>[]
      : { [K in keyof T]?: DeepPartial<T[K]> };

/**
 * The type of an output so far: a {@link DeepPartial} of the schema's output, or any JSON value
 * when no schema typed it.
 *
 * @example
 * ```ts
 * import type { PartialOutput } from 'rxjs-llm-stream';
 *
 * const soFar: PartialOutput<{ title: string }> = {}; // the title has not begun
 * ```
 */
export type PartialOutput<T> = unknown extends T ? JsonValue : DeepPartial<T>;

/**
 * What a Standard Schema's output type is, or `unknown` for none: the type of a structured output.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { OutputOf } from 'rxjs-llm-stream';
 *
 * type Plan = OutputOf<typeof planSchema>; // z.output<typeof planSchema>
 * ```
 */
export type OutputOf<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/**
 * The structured output so far, after each event that changed it (`scanStructuredOutput`).
 *
 * The value is built in place, as `PartialJson` builds it: it never flickers (a string only grows,
 * an array only gains elements, a number or literal appears only when whole), and it is the same
 * object from one snapshot to the next, updated. Render it, or copy it (`structuredClone`) to keep
 * it; a new snapshot object comes with every change, so `signal.set(snapshot)` and `distinctUntilChanged`
 * see each one. `isComplete` reads the value as it is when called: ask it of the snapshot just
 * emitted (as a UI does), not of one kept from earlier.
 *
 * @example
 * ```ts
 * import type { StructuredOutputSnapshot } from 'rxjs-llm-stream';
 *
 * function render(snapshot: StructuredOutputSnapshot<{ title: string; steps: string[] }>): void {
 *   title.textContent = snapshot.value?.title ?? '';
 *   title.classList.toggle('final', snapshot.isComplete(['title']));
 * }
 * ```
 */
export interface StructuredOutputSnapshot<T = unknown> {
  /** The value so far: `undefined` until it has begun. */
  readonly value: PartialOutput<T> | undefined;
  /** The output's text so far, as the model wrote it. */
  readonly text: string;
  /**
   * The path of the innermost value still being written, `null` when none is: everything in
   * `value` off this path is final.
   */
  readonly openPath: JsonPath | null;
  /** True when the value at `path` has appeared and is final (a closed string, array or object, a number, a literal). */
  isComplete(path: JsonPath): boolean;
  /** The output is whole: its choice finished, or its tool call closed. The last snapshot has it. */
  readonly done: boolean;
  /**
   * Why the preview stopped following the text (`invalid-json` at the first character that breaks
   * JSON, `max-depth`, `max-size`), or `null`. No error here: the final check reports it.
   */
  readonly stopped: PartialJsonStop | null;
}

/**
 * A structured output that passed its checks: the value (the schema's output, with its defaults and
 * transforms) beside the text the model wrote, and where it came from.
 *
 * @example
 * ```ts
 * import type { StructuredOutput } from 'rxjs-llm-stream';
 *
 * const output: StructuredOutput<{ n: number }> = { value: { n: 1 }, text: '{"n":1}', from: 'content' };
 * ```
 */
export interface StructuredOutput<T = unknown> {
  readonly value: T;
  readonly text: string;
  readonly from: OutputSource;
}

/**
 * A `Completion` whose structured output was parsed and validated (`finalizeCompletion({ schema })`).
 *
 * @example
 * ```ts
 * import type { StructuredCompletion } from 'rxjs-llm-stream';
 *
 * function show(completion: StructuredCompletion<{ title: string }>): void {
 *   heading.textContent = completion.output.value.title;
 * }
 * ```
 */
export interface StructuredCompletion<T = unknown> extends Completion {
  readonly output: StructuredOutput<T>;
}
