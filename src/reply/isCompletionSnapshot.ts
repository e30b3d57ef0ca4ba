import type { CompletionSnapshot } from '../types/events.js';

/**
 * True when `value` is a `CompletionSnapshot`: what `scanCompletion` emits, and what the trackers
 * (`finalizeCompletion`, `scanCompletion`, `validateToolCalls`) put in the `partial` of every error
 * passing through them. Narrows an
 * error's `partial` (typed `unknown`, since which layer filled it depends on the pipeline) to the
 * completion so far, so that reading it is checked by the compiler.
 *
 * The check is structural (the fields a snapshot always has, of the right kinds), so it also
 * accepts a snapshot that crossed a realm or a wire as JSON.
 *
 * @example
 * ```ts
 * import { StreamClosedEarlyError, isCompletionSnapshot } from 'rxjs-llm-stream';
 *
 * if (err instanceof StreamClosedEarlyError && isCompletionSnapshot(err.partial)) {
 *   console.warn('cut off after', err.partial.content?.length ?? 0, 'characters');
 * }
 * ```
 *
 * @param value Anything, usually an error's `partial`.
 * @returns True for a completion snapshot.
 */
export function isCompletionSnapshot(value: unknown): value is CompletionSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const snapshot = value as { readonly [field: string]: unknown };
  return (
    Array.isArray(snapshot['choices']) &&
    Array.isArray(snapshot['toolCalls']) &&
    typeof snapshot['finished'] === 'boolean' &&
    typeof snapshot['inReasoning'] === 'boolean' &&
    typeof snapshot['reasoningTokens'] === 'number' &&
    isTextOrNull(snapshot['content']) &&
    isTextOrNull(snapshot['reasoning']) &&
    isTextOrNull(snapshot['refusal'])
  );
}

function isTextOrNull(value: unknown): boolean {
  return value === null || typeof value === 'string';
}
