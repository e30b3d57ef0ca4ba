import { Observable, OperatorFunction } from 'rxjs';
import { validateOutput } from './checkStructuredOutput.js';
import { describeOutput } from './describeOutput.js';
import { finishStructuredOutput } from './finishStructuredOutput.js';
import { StructuredOutputReader } from './StructuredOutputReader.js';
import { LlmStreamError } from '../errors/errors.js';
import { ChatEvent } from '../types/events.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import type { StandardSchemaV1 } from '../types/standardSchema.js';
import type { OutputOf, StructuredOutputOptions, StructuredOutputSnapshot } from './structuredOutput.js';

/**
 * After each event that changed the structured output, emits the output so far: the value as far
 * as it has arrived, for a UI to render while the model writes it, and which parts of it are final.
 *
 * The output is the reply's content (OpenAI `response_format`, Gemini `responseSchema`, Ollama
 * `format`, Bedrock), or with `from: { tool }` the arguments of a forced tool call (Anthropic's tool
 * as output): the same snapshots either way. Each character is read once, however the reply is cut,
 * so a long output costs time linear in its length (re-parsing the whole text at every chunk, as
 * `partialParse` and `parsePartialJson` do, is quadratic).
 *
 * The value never flickers: a string only grows, an array only gains elements, a number or literal
 * appears only when whole, so a value once shown stays (`[1, 2` shows `[1]` only once the `2` is
 * whole, never `[1]` then `[12]`). `isComplete(path)` says which fields are final, so a finished
 * field can be rendered as final before the reply ends. The value is built in place (see
 * `StructuredOutputSnapshot`): a new snapshot object per change, the same value object, updated.
 *
 * The last snapshot (`done: true`) comes when the output is whole. The stream then completes only
 * if the output is what it should be: parsed, checked by `schema` when one is given; otherwise it
 * errors as `finalizeCompletion({ schema })` would (`IncompleteOutputError` for `length` and
 * `content_filter`, `StructuredOutputError` for the rest), with the last snapshot as `partial`. At
 * the first character that breaks JSON the preview stops (`stopped: 'invalid-json'`) without an
 * error, and the final check reports it.
 *
 * ```
 * events:    --content'{"a":"x'--content'y","b":[1'--content',2]}'--finish--|
 * snapshots: --{a:'x'}-----------{a:'xy',b:[]}--------{a:'xy',b:[1,2]}--(done)--|
 * ```
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { decodeUtf8, sseFrames, assembleChunks, scanStructuredOutput } from 'rxjs-llm-stream';
 *
 * const Recipe = z.object({ title: z.string(), steps: z.array(z.string()) });
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanStructuredOutput({ schema: Recipe })).subscribe((snapshot) => {
 *   view.title = snapshot.value?.title ?? '';
 *   view.titleDone = snapshot.isComplete(['title']);
 *   view.steps = snapshot.value?.steps ?? [];
 * });
 * ```
 *
 * @param options `schema` (types the snapshots, checks the result), `from`, `choice`, and the
 *   preview's bounds `maxDepth` and `maxSize`.
 * @returns An operator from `ChatEvent`s to the output's snapshots.
 */
export function scanStructuredOutput<S extends StandardSchemaV1>(
  options: StructuredOutputOptions<S> & { readonly schema: S },
): OperatorFunction<ChatEvent, StructuredOutputSnapshot<OutputOf<S>>>;
export function scanStructuredOutput(options?: StructuredOutputOptions): OperatorFunction<ChatEvent, StructuredOutputSnapshot>;
// The snapshots' value type is the overloads' business.
export function scanStructuredOutput(options: StructuredOutputOptions = {}): OperatorFunction<ChatEvent, unknown> {
  return (source) =>
    new Observable<StructuredOutputSnapshot<never>>((subscriber) => {
      const reader = new StructuredOutputReader(options);
      let last: StructuredOutputSnapshot<never> | undefined;
      const fail = (error: unknown): void => {
        if (error instanceof LlmStreamError && error.partial === undefined) error.partial = last ?? reader.snapshot();
        subscriber.error(error);
      };
      subscribeLinked(source, subscriber, {
        next(event) {
          if (reader.apply(event)) subscriber.next((last = reader.snapshot<never>()));
        },
        error: (error) => subscriber.error(error),
        complete() {
          let checked: unknown;
          try {
            const value = finishStructuredOutput(reader);
            const what = describeOutput(reader.from, reader.choice);
            checked = options.schema === undefined ? value : validateOutput(options.schema, value, reader.text, what);
          } catch (error) {
            return fail(error);
          }
          if (!(checked instanceof Promise)) return subscriber.complete();
          checked.then(
            () => subscriber.complete(),
            (error: unknown) => fail(error),
          );
        },
      });
    });
}
