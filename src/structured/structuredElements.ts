import { Observable, OperatorFunction } from 'rxjs';
import { validateOutput } from './checkStructuredOutput.js';
import { describeOutput } from './describeOutput.js';
import { finishStructuredOutput } from './finishStructuredOutput.js';
import { StructuredOutputReader } from './StructuredOutputReader.js';
import { valueAt } from './StructuredJson.js';
import { LlmStreamError } from '../errors/errors.js';
import { ChatEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { StructuredOutputError } from './outputErrors.js';
import type { JsonPath, JsonValue } from '../types/replyParts.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';
import type { OutputOf, StructuredOutputOptions } from './structuredOutput.js';

/**
 * Options of {@link structuredElements}: where the array is, and the schema of one element.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { structuredElements, type StructuredElementsOptions } from 'rxjs-llm-stream';
 *
 * const options: StructuredElementsOptions<typeof Step> = { path: ['steps'], schema: Step };
 * events$.pipe(structuredElements(options));
 * ```
 */
export interface StructuredElementsOptions<S extends StandardSchemaV1 = StandardSchemaV1> extends StructuredOutputOptions<S> {
  /** The path of the array in the output: default `[]`, the output itself. */
  readonly path?: JsonPath;
  /** The schema of ONE element: each is checked (and transformed) by it before it is emitted. */
  readonly schema?: S;
}

/**
 * Emits each element of an array in the structured output exactly once, as soon as it is whole,
 * parsed, and checked by the element `schema` when one is given, in order: the list of results a
 * UI shows one by one, or the tasks a program starts before the model has written the rest.
 *
 * The array is the output itself, or the one at `path` (`['items']` for `{"items": [...]}`). The
 * text is read once, each character once (`StructuredJson`), so the cost is linear in the length of
 * the output, not in the number of chunks times its length. An element is emitted when the
 * character that closes it arrives (its `}` or `]`, or for a string or number the `,` or `]` after
 * it); an asynchronous schema keeps the order: a later element waits for the check of one before it.
 *
 * The stream completes only when the output is whole and the elements emitted are all of the
 * array's: an output cut by `length` or `content_filter` errors with `IncompleteOutputError` after
 * the elements that were whole (those were whole, and are kept); text that breaks JSON, no array at
 * `path`, or an element that fails its schema errors with `StructuredOutputError` (its `issues`, and
 * the element's JSON as `text`); nothing is emitted after an error.
 *
 * ```
 * events:   --content'[{"n":1},{"n'--content'":2}]'--finish--|
 * elements: --{n:1}--------------------{n:2}----------------------|
 * ```
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { assembleChunks, structuredElements } from 'rxjs-llm-stream';
 *
 * const Hotel = z.object({ name: z.string(), stars: z.number().int() });
 * frames$.pipe(assembleChunks(), structuredElements({ path: ['hotels'], schema: Hotel })).subscribe((hotel) => list.push(hotel));
 * ```
 *
 * @param options `path` of the array, element `schema`, `from`, `choice`, and the reader's bounds.
 * @returns An operator from `ChatEvent`s to the array's elements.
 */
export function structuredElements<S extends StandardSchemaV1>(
  options: StructuredElementsOptions<S> & { readonly schema: S },
): OperatorFunction<ChatEvent, OutputOf<S>>;
export function structuredElements(options?: StructuredElementsOptions): OperatorFunction<ChatEvent, JsonValue>;
export function structuredElements(options: StructuredElementsOptions = {}): OperatorFunction<ChatEvent, unknown> {
  const path = options.path ?? [];
  const schema = options.schema;
  return (source) =>
    new Observable<unknown>((subscriber) => {
      const reader = new StructuredOutputReader({ ...options, elementsAt: path });
      const what = describeOutput(reader.from, reader.choice);
      let emitted = 0; // elements taken from the reader (emitted, or waiting for their check)
      // The checks still pending, in order; `null` when none is, so synchronous checks emit at once.
      let pending: Promise<void> | null = null;
      const fail = (error: unknown): void => {
        if (subscriber.closed) return;
        if (error instanceof LlmStreamError && error.partial === undefined) error.partial = reader.snapshot();
        subscriber.error(error);
      };
      // Runs `step` now, or after the checks before it when any is pending.
      const inTurn = (step: () => void | Promise<void>): void => {
        if (pending === null) {
          const result = step();
          if (result !== undefined) pending = track(result);
        } else pending = track(pending.then(step));
      };
      const track = (work: Promise<void>): Promise<void> => {
        const tracked: Promise<void> = work.then(
          () => {
            if (pending === tracked) pending = null;
          },
          (error: unknown) => {
            fail(error);
            return new Promise<void>(() => {}); // nothing runs after an error
          },
        );
        return tracked;
      };
      const take = (element: JsonValue, index: number): void | Promise<void> => {
        if (schema === undefined) return void subscriber.next(element);
        const checked = validateOutput(schema, element, JSON.stringify(element), `element ${index} of ${what}`);
        if (!(checked instanceof Promise)) return void subscriber.next(checked);
        return checked.then((value) => {
          if (!subscriber.closed) subscriber.next(value);
        });
      };
      subscribeLinked(source, subscriber, {
        next(event) {
          if (!reader.apply(event)) return;
          const { array, finished } = reader.json.elements;
          while (emitted < finished) {
            const index = emitted++;
            const element = array![index]!;
            inTurn(() => take(element, index));
          }
        },
        error: fail,
        complete() {
          inTurn(() => {
            const value = valueAt(finishStructuredOutput(reader), path);
            if (!Array.isArray(value)) {
              const where = path.length === 0 ? 'the output' : `${JSON.stringify(path)} of the output`;
              throw new StructuredOutputError(`${what}: ${where} is not an array`, { reason: 'missing', text: reader.text });
            }
            if (value.length !== emitted) {
              // Only a duplicate key can make the last array at the path differ from the one read.
              throw new StructuredOutputError(`${what}: the array has ${value.length} elements, ${emitted} were read`, {
                reason: 'invalid-json',
                text: reader.text,
              });
            }
            subscriber.complete();
          });
        },
      });
    });
}
