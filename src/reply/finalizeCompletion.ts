import { OperatorFunction } from 'rxjs';
import { outputStateOf, parseOutput, validateOutput } from '../structured/checkStructuredOutput.js';
import { describeOutput } from '../structured/describeOutput.js';
import { ChatEvent, Completion } from '../types/events.js';
import { foldCompletion, type Settle } from './foldCompletion.js';
import type { JsonValue } from '../types/replyParts.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';
import type { OutputOf, OutputSource, StructuredCompletion, StructuredOutputOptions } from '../structured/structuredOutput.js';

/**
 * Options of {@link finalizeCompletion}.
 *
 * @example
 * ```ts
 * import { finalizeCompletion, type FinalizeCompletionOptions } from 'rxjs-llm-stream';
 *
 * const options: FinalizeCompletionOptions = { estimateUsage: true };
 * events$.pipe(finalizeCompletion(options));
 * ```
 */
export interface FinalizeCompletionOptions {
  /**
   * When the stream carried no usage, fill `usage` with an estimate from the text (see
   * `estimateTokenUsage`), marked `estimated: true`; also in the `partial` of an error. Usage
   * that did arrive, even in part, is never replaced. Default `false`: `usage` stays `null`.
   */
  readonly estimateUsage?: boolean;
}

/**
 * Options of {@link finalizeCompletion} for a structured output: with `schema` (or `from`), the
 * completion carries the output parsed and checked, as `output`.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { finalizeCompletion, type FinalizeStructuredOptions } from 'rxjs-llm-stream';
 *
 * const options: FinalizeStructuredOptions<typeof Plan> = { schema: Plan, from: { tool: 'make_plan' } };
 * events$.pipe(finalizeCompletion(options)); // Observable<StructuredCompletion<z.output<typeof Plan>>>
 * ```
 */
export interface FinalizeStructuredOptions<S extends StandardSchemaV1 = StandardSchemaV1>
  extends FinalizeCompletionOptions, Pick<StructuredOutputOptions<S>, 'schema' | 'from' | 'choice'> {}

/**
 * Folds `ChatEvent`s into one `Completion`, emitted when the source completes.
 *
 * The `Completion` has the shape of a non-streaming reply: text, reasoning, refusal, tool calls with
 * parsed arguments (in index order), the normalized finish reason with the raw one, usage, timings,
 * and every choice. Works with or without `groupToolCallsByIndex` in front. A source that completes
 * before every choice finished errors with `StreamClosedEarlyError`; any error of this library
 * passing through gets the completion so far as its `partial`, so nothing that arrived is lost.
 *
 * `usage` is `null` when the stream carried none; with `{ estimateUsage: true }` it is then an
 * estimate from the text instead (about 4 characters per token, marked `estimated: true`; see
 * `estimateTokenUsage`), in the completion and in the `partial` of an error.
 *
 * **Structured output.** With a Standard Schema (`{ schema }`; zod, valibot, ArkType, ...), the
 * completion also has `output`: the value, parsed from the content (or, with `from: { tool }`, from
 * the arguments of the first call to that tool) and checked by the schema, its defaults and
 * transforms applied, beside the text the model wrote. The output is refused with a typed error
 * carrying its `text`: an `IncompleteOutputError` when the choice finished by `length` or
 * `content_filter` (a cut object is never passed as valid, even one that parses), a
 * `StructuredOutputError` for a refusal, no output, text that is not JSON, or the schema's
 * `issues`. (A forced tool's arguments that are not JSON are refused earlier, as every tool call's
 * are: a `ProtocolError` with reason `invalid-tool-call`.) An asynchronous schema is awaited.
 *
 * ```
 * events:     --content--tool-call-delta--finish--usage--done--|
 * completion: ---------------------------------------------------(c|)
 * ```
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const Plan = z.object({ title: z.string(), steps: z.array(z.string()).default([]) });
 * const completion = await lastValueFrom(bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion({ schema: Plan })));
 * completion.output.value.steps; // string[], checked
 * ```
 *
 * @param options `estimateUsage`: estimate `usage` from the text when the stream carried none;
 *   `schema`, `from`, `choice`: parse and check the structured output.
 * @returns An operator from `ChatEvent`s to exactly one `Completion` (a `StructuredCompletion` with `schema` or `from`).
 */
export function finalizeCompletion<S extends StandardSchemaV1>(
  options: FinalizeStructuredOptions<S> & { readonly schema: S },
): OperatorFunction<ChatEvent, StructuredCompletion<OutputOf<S>>>;
export function finalizeCompletion(
  options: FinalizeStructuredOptions & { readonly from: OutputSource },
): OperatorFunction<ChatEvent, StructuredCompletion<JsonValue>>;
export function finalizeCompletion(options?: FinalizeCompletionOptions): OperatorFunction<ChatEvent, Completion>;
export function finalizeCompletion(options: FinalizeStructuredOptions = {}): OperatorFunction<ChatEvent, Completion> {
  const structured = options.schema !== undefined || options.from !== undefined;
  return foldCompletion('reduce', options.estimateUsage === true, structured ? settleOutput(options) : undefined);
}

/** The structured output's check, as the fold's last step: the completion with its `output`, or the error. */
function settleOutput(options: FinalizeStructuredOptions): Settle {
  const from = options.from ?? 'content';
  const choice = options.choice ?? 0;
  const schema = options.schema;
  return (completion) => {
    const state = outputStateOf(completion, from, choice);
    const parsed = parseOutput(state);
    const text = state.text ?? '';
    // A copy with its getters kept (the lazy `logprobs`), not a spread that would read them all.
    const withOutput = (value: unknown): StructuredCompletion =>
      Object.defineProperties(
        {},
        {
          ...Object.getOwnPropertyDescriptors(completion),
          output: { value: { value, text, from }, enumerable: true },
        },
      ) as StructuredCompletion;
    if (schema === undefined) return withOutput(parsed);
    const checked = validateOutput(schema, parsed, text, describeOutput(from, choice));
    return checked instanceof Promise ? checked.then(withOutput) : withOutput(checked);
  };
}
