/**
 * The bounds of a `PartialJson` preview, their defaults, and the reasons it may stop. Apart from the
 * reader so that its file holds the reader alone; `PartialJson.ts` re-exports all of it, and the
 * package exports it from there.
 */

/**
 * Bounds of a `PartialJson`; past either, the preview stops updating (no error: it is display only).
 *
 * @example
 * ```ts
 * import { type PartialJsonOptions } from 'rxjs-llm-stream';
 * import { PartialJson } from 'rxjs-llm-stream/core';
 *
 * const options: PartialJsonOptions = { maxDepth: 16, maxSize: 64 * 1024 };
 * const preview = new PartialJson(options);
 * ```
 */
export interface PartialJsonOptions {
  /** Containers nested deeper than this are not followed. Default {@link DEFAULT_PREVIEW_MAX_DEPTH} (64). */
  readonly maxDepth?: number;
  /** Characters (UTF-16 code units) read at most. Default {@link DEFAULT_PREVIEW_MAX_CHARS} (1 MiB). */
  readonly maxSize?: number;
}

/**
 * Why a `PartialJson` stopped updating its preview: the text is not JSON, or it went past `maxDepth`
 * or `maxSize`.
 *
 * @example
 * ```ts
 * import type { PartialJsonStop } from 'rxjs-llm-stream';
 *
 * const notes: Record<PartialJsonStop, string> = { 'invalid-json': 'malformed', 'max-depth': 'too deep', 'max-size': 'too long' };
 * ```
 */
export type PartialJsonStop = 'invalid-json' | 'max-depth' | 'max-size';

/**
 * The default nesting bound of a preview: 64 containers.
 *
 * @example
 * ```ts
 * import { DEFAULT_PREVIEW_MAX_DEPTH } from 'rxjs-llm-stream';
 * import { PartialJson } from 'rxjs-llm-stream/core';
 *
 * const shallow = new PartialJson({ maxDepth: DEFAULT_PREVIEW_MAX_DEPTH / 4 });
 * ```
 */
export const DEFAULT_PREVIEW_MAX_DEPTH = 64;
/**
 * The default size bound of a preview, in characters: 1 MiB (1,048,576).
 *
 * @example
 * ```ts
 * import { DEFAULT_PREVIEW_MAX_CHARS } from 'rxjs-llm-stream';
 * import { PartialJson } from 'rxjs-llm-stream/core';
 *
 * const roomy = new PartialJson({ maxSize: 4 * DEFAULT_PREVIEW_MAX_CHARS });
 * ```
 */
export const DEFAULT_PREVIEW_MAX_CHARS = 1024 * 1024;
