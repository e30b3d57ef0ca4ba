// Apart from `StructuredOutputError` so that the base's union of every reason names it without
// importing the class that extends the base.

/**
 * Why a structured output was refused (`StructuredOutputError.reason`):
 *
 * - `invalid-json`: the text is not JSON (the preview stopped at the first character that breaks it; the final check says so);
 * - `schema`: JSON that the schema refused (`issues` has the schema's own issues);
 * - `missing`: the reply has no such output: no content, or no call to the named tool;
 * - `refusal`: the model refused (OpenAI's `refusal` channel) instead of answering under the schema;
 * - `length` / `content-filter`: the reply was cut by the token limit / stopped by the provider's filter
 *   ({@link IncompleteOutputError}): the text is a part of an object, never passed as one.
 */
export type StructuredOutputReason = (typeof STRUCTURED_OUTPUT_REASONS)[number];

/**
 * Every {@link StructuredOutputReason}.
 *
 * @example
 * ```ts
 * import { STRUCTURED_OUTPUT_REASONS, StructuredOutputError } from 'rxjs-llm-stream';
 *
 * const known = (error: StructuredOutputError) => STRUCTURED_OUTPUT_REASONS.includes(error.reason);
 * ```
 */
export const STRUCTURED_OUTPUT_REASONS = ['invalid-json', 'schema', 'missing', 'refusal', 'length', 'content-filter'] as const;
