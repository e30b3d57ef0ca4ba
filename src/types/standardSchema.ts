/**
 * The Standard Schema interface (https://standardschema.dev, version 1), written out here so that
 * the library depends on no schema package: zod (3.24+, 4), valibot (1), ArkType and others
 * implement it, and any of their schemas can be given to `validateToolCalls` as it is.
 */

/**
 * A schema that implements Standard Schema version 1: everything under one `~standard` property.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { StandardSchemaV1 } from 'rxjs-llm-stream';
 *
 * const weather: StandardSchemaV1 = z.object({ city: z.string() });
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/**
 * The `~standard` property of a Standard Schema.
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1Props } from 'rxjs-llm-stream';
 *
 * const positive: StandardSchemaV1Props<unknown, number> = {
 *   version: 1,
 *   vendor: 'hand-written',
 *   validate: (value) => (typeof value === 'number' && value > 0 ? { value } : { issues: [{ message: 'not a positive number' }] }),
 * };
 * ```
 */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  readonly version: 1;
  /** Which library made the schema (`'zod'`, `'valibot'`, ...). */
  readonly vendor: string;
  /** Checks a value: synchronously, or through a promise when the schema has asynchronous checks. */
  readonly validate: (value: unknown) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  /** Types only, never present at run time. */
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/**
 * What a Standard Schema's `validate` returns: the value (possibly transformed), or the issues.
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1Result } from 'rxjs-llm-stream';
 *
 * const failed: StandardSchemaV1Result<never> = { issues: [{ message: 'Required', path: ['city'] }] };
 * ```
 */
export type StandardSchemaV1Result<Output> = StandardSchemaV1Success<Output> | StandardSchemaV1Failure;

/**
 * A value that passed; `value` is the schema's output (defaults filled in, transforms applied).
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1Success } from 'rxjs-llm-stream';
 *
 * const passed: StandardSchemaV1Success<{ city: string }> = { value: { city: 'Pune' } };
 * ```
 */
export interface StandardSchemaV1Success<Output> {
  readonly value: Output;
  readonly issues?: undefined;
}

/**
 * A value that failed, with at least one issue.
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1Failure } from 'rxjs-llm-stream';
 *
 * const failed: StandardSchemaV1Failure = { issues: [{ message: 'Expected string', path: ['city'] }] };
 * ```
 */
export interface StandardSchemaV1Failure {
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;
}

/**
 * One problem a schema found, with where it is (`['items', 0, 'name']`, or segments as `{ key }`).
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1Issue } from 'rxjs-llm-stream';
 *
 * const issue: StandardSchemaV1Issue = { message: 'Too small', path: ['days', { key: 0 }] };
 * ```
 */
export interface StandardSchemaV1Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardSchemaV1PathSegment> | undefined;
}

/**
 * A path segment given as an object (some libraries attach more to it than the key).
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1PathSegment } from 'rxjs-llm-stream';
 *
 * const segment: StandardSchemaV1PathSegment = { key: 'city' };
 * ```
 */
export interface StandardSchemaV1PathSegment {
  readonly key: PropertyKey;
}

/**
 * True for a value that carries a version 1 Standard Schema interface. A schema may itself be a
 * function (ArkType's are), so this is checked before treating a validator as a predicate.
 *
 * @example
 * ```ts
 * import { isStandardSchema } from 'rxjs-llm-stream';
 *
 * if (isStandardSchema(validator)) await validator['~standard'].validate(args);
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}
