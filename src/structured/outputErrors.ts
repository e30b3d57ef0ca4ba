import { LlmStreamError, type LlmStreamErrorOptions } from '../errors/errors.js';
import type { FinishReason } from '../types/replyParts.js';
import type { StandardSchemaV1Issue } from '../types/standardSchema.js';
import type { StructuredOutputReason } from '../errors/structuredOutputReasons.js';

/**
 * Options of {@link StructuredOutputError}.
 *
 * @example
 * ```ts
 * import { StructuredOutputError, type StructuredOutputErrorOptions } from 'rxjs-llm-stream';
 *
 * const issues = [{ message: 'Expected number', path: ['n'] }];
 * const options: StructuredOutputErrorOptions = { reason: 'schema', text: '{"n":"x"}', issues };
 * throw new StructuredOutputError('the output does not match its schema', options);
 * ```
 */
export interface StructuredOutputErrorOptions extends LlmStreamErrorOptions<StructuredOutputReason> {
  /** The output's text as the model wrote it (what arrived, for a cut one). */
  readonly text: string;
  /** The schema's issues (reason `schema`), or none. */
  readonly issues?: ReadonlyArray<StandardSchemaV1Issue>;
}

/**
 * A structured output that cannot be passed on as the value it should be: not JSON, refused by its
 * schema, absent, or refused by the model. `text` is what the model wrote, `issues` the schema's
 * own issues (to send back to the model as they are), `partial` the completion so far.
 *
 * @example
 * ```ts
 * import { StructuredOutputError } from 'rxjs-llm-stream';
 *
 * if (err instanceof StructuredOutputError && err.reason === 'schema') askModelToFix(err.text, err.issues);
 * ```
 */
export class StructuredOutputError extends LlmStreamError {
  override readonly name: string = 'StructuredOutputError';
  readonly reason: StructuredOutputReason;
  readonly text: string;
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;

  constructor(message: string, options: StructuredOutputErrorOptions) {
    super(message, options);
    this.reason = options.reason ?? 'invalid-json';
    this.text = options.text;
    this.issues = options.issues ?? [];
  }
}

/**
 * A structured output whose reply ended by the token limit (`length`) or the provider's content
 * filter (`content_filter`): the object is incomplete, so it is never passed as valid, even when
 * the part that arrived happens to parse or to pass the schema. `text` holds what arrived, and the
 * previews before it showed it: the error only refuses to call it the result.
 *
 * @example
 * ```ts
 * import { IncompleteOutputError } from 'rxjs-llm-stream';
 *
 * if (err instanceof IncompleteOutputError && err.finishReason === 'length') retryWithHigherLimit();
 * ```
 */
export class IncompleteOutputError extends StructuredOutputError {
  override readonly name: string = 'IncompleteOutputError';
  readonly finishReason: Extract<FinishReason, 'length' | 'content_filter'>;

  constructor(
    message: string,
    options: Omit<StructuredOutputErrorOptions, 'reason' | 'issues'> & { readonly finishReason: 'length' | 'content_filter' },
  ) {
    super(message, { ...options, reason: options.finishReason === 'length' ? 'length' : 'content-filter' });
    this.finishReason = options.finishReason;
  }
}
