import type { JsonPath, JsonValue } from '../types/replyParts.js';
import { PartialJson } from '../json/PartialJson.js';
import type { PartialJsonOptions } from '../json/PartialJson.js';

/**
 * Options of a {@link StructuredJson}: the bounds of a preview, and which array's elements to count.
 *
 * @example
 * ```ts
 * import { StructuredJson, type StructuredJsonOptions } from 'rxjs-llm-stream/core';
 *
 * const options: StructuredJsonOptions = { elementsAt: ['items'], maxSize: 4 * 1024 * 1024 };
 * const reader = new StructuredJson(options);
 * ```
 */
export interface StructuredJsonOptions extends PartialJsonOptions {
  /** The path of an array (`[]`: the root) whose elements are counted as each one closes. */
  readonly elementsAt?: JsonPath;
}

/**
 * A {@link PartialJson} that also says which parts of the value so far are final, and which
 * elements of a list are whole: the reader behind structured output, where a UI renders a field
 * once it is complete and a program takes each element of a list as soon as it closes.
 *
 * Both answers cost nothing while reading: JSON is written in order, so at any moment every value
 * that has appeared is complete except those on one path, from the root to the innermost value
 * still open ({@link openPath}); and the elements of the watched array close one after another.
 *
 * ```
 * push('{"title":"Pl')           openPath ['title']     isComplete(['title']) false
 * push('an","steps":["a","b')    openPath ['steps', 1]  isComplete(['title']) true, (['steps', 0]) true
 * push('"]}')                    openPath null          everything complete
 * ```
 *
 * @example
 * ```ts
 * import { StructuredJson } from 'rxjs-llm-stream/core';
 *
 * const reader = new StructuredJson({ elementsAt: ['steps'] });
 * reader.push('{"title":"Plan","steps":[{"do":"a"},{"do":');
 * reader.isComplete(['title']); // true
 * reader.elements.finished; // 1: reader.elements.array[0] is { do: 'a' }, final
 * ```
 */
export class StructuredJson extends PartialJson {
  constructor(options: StructuredJsonOptions = {}) {
    super(options);
    if (options.elementsAt !== undefined) this.tree.watch(options.elementsAt);
  }

  /**
   * The path of the innermost value still open (a string being read, an array or object not yet
   * closed), `null` when none is. Every value in `value` off that path is complete and will not
   * change. Once the preview stopped (`stopped`), the path open then: those values never complete.
   */
  get openPath(): JsonPath | null {
    return this.tree.openPath(this.inStringValue());
  }

  /**
   * With `elementsAt`, the array at that path (`undefined` until it has begun; the same array
   * throughout) and how many of its first elements are whole: those are final.
   */
  get elements(): { readonly array: readonly JsonValue[] | undefined; readonly finished: number } {
    return { array: this.tree.watched, finished: this.tree.finishedElements };
  }

  /**
   * True when the value at `path` has appeared and is final: a closed string, array or object, or a
   * number or literal (which appear only when whole). The root is complete once all of it is read.
   */
  isComplete(path: JsonPath): boolean {
    return isCompleteAt(this.value, this.openPath, path);
  }
}

/**
 * True when the value at `path` of `value` has appeared and is final, given the path that was open
 * (`StructuredJson.openPath`): for snapshots, which answer for their own moment. Not exported from
 * the package.
 */
export function isCompleteAt(value: JsonValue | undefined, open: JsonPath | null, path: JsonPath): boolean {
  if (!has(value, path)) return false;
  if (open === null || path.length > open.length) return true;
  for (let i = 0; i < path.length; i++) if (path[i] !== open[i]) return true;
  return false; // on the open path: still being written
}

/** The value at `path` of `value`, `undefined` when there is none (own properties only, as JSON makes them). */
export function valueAt(value: JsonValue | undefined, path: JsonPath): JsonValue | undefined {
  let here: JsonValue | undefined = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    if (Array.isArray(here) ? typeof key !== 'number' || key >= here.length : !Object.hasOwn(here, key)) return undefined;
    here = (here as { readonly [key: string]: JsonValue })[key];
  }
  return here;
}

function has(value: JsonValue | undefined, path: JsonPath): boolean {
  return valueAt(value, path) !== undefined;
}
