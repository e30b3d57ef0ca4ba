import { PartialJson } from '../json/PartialJson.js';
import type { PartialJsonOptions } from '../json/PartialJsonOptions.js';
import type { JsonValue } from '../types/replyParts.js';

/**
 * A reader of one tool call's arguments as they arrive: each fragment is pushed once, and `value`
 * is the arguments so far as a value. `PartialJson` is the one {@link toolCallPreviews} makes.
 *
 * @example
 * ```ts
 * import type { ArgumentsPreview } from 'rxjs-llm-stream';
 *
 * function show(reader: ArgumentsPreview, fragment: string) {
 *   reader.push(fragment);
 *   render(reader.value);
 * }
 * ```
 */
export interface ArgumentsPreview {
  /** Reads the next fragment of the arguments' text. */
  push(fragment: string): void;
  /** The arguments so far as a value, `undefined` until one has begun. */
  readonly value: JsonValue | undefined;
}

/**
 * Live previews of tool-call arguments, as `groupToolCallsByIndex({ previews })` takes them: it
 * opens one reader per call and puts its value on every fragment, as `call.preview`.
 *
 * @example
 * ```ts
 * import { groupToolCallsByIndex, toolCallPreviews, type ToolCallPreviews } from 'rxjs-llm-stream';
 *
 * const previews: ToolCallPreviews = toolCallPreviews({ maxSize: 256 * 1024 });
 * events$.pipe(groupToolCallsByIndex({ previews }));
 * ```
 */
export interface ToolCallPreviews {
  /** A new reader, for the arguments of one call. */
  readonly open: () => ArgumentsPreview;
}

/**
 * Turns on `call.preview` in `groupToolCallsByIndex`: the arguments so far as a value, open
 * strings, arrays and objects closed (`{ city: 'Zü' }` while `{"city":"Zü` has arrived), read by a
 * `PartialJson` per call, each fragment examined once. `options` are its bounds (`maxDepth`,
 * `maxSize`; see `PartialJsonOptions`).
 *
 * A function of its own, not a flag of the operator, so that an app that shows no preview does not
 * bundle the reader (about 5 KB minified).
 *
 * @example
 * ```ts
 * import { groupToolCallsByIndex, toolCallPreviews } from 'rxjs-llm-stream';
 *
 * events$.pipe(groupToolCallsByIndex({ previews: toolCallPreviews() })).subscribe((event) => {
 *   if (event.type === 'tool-call-delta') showDraft(event.call?.name, event.call?.preview);
 * });
 * ```
 *
 * @param options The bounds of each call's reader (default: `DEFAULT_PREVIEW_MAX_DEPTH` levels, `DEFAULT_PREVIEW_MAX_CHARS` characters).
 * @returns What `groupToolCallsByIndex`'s `previews` option takes.
 */
export function toolCallPreviews(options: PartialJsonOptions = {}): ToolCallPreviews {
  return { open: () => new PartialJson(options) };
}
