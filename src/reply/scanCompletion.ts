import { OperatorFunction } from 'rxjs';
import { ChatEvent, CompletionSnapshot } from '../types/events.js';
import { foldCompletion } from './foldCompletion.js';

/**
 * Options of {@link scanCompletion}.
 *
 * @example
 * ```ts
 * import { scanCompletion, type ScanCompletionOptions } from 'rxjs-llm-stream';
 *
 * const options: ScanCompletionOptions = { estimateUsage: true };
 * events$.pipe(scanCompletion(options)).subscribe((snapshot) => (tokens.textContent = `≈ ${snapshot.usage?.completionTokens}`));
 * ```
 */
export interface ScanCompletionOptions {
  /**
   * While the stream has carried no usage, give each snapshot (and the `partial` of an error) an
   * estimate from its text, marked `estimated: true` (see `estimateTokenUsage`). Default `false`.
   */
  readonly estimateUsage?: boolean;
}

/**
 * After each event, emits the completion so far: the "text so far" a chat UI renders, with
 * `inReasoning` (is the model still thinking?) and `finished`.
 *
 * Text is appended as it arrives, never re-joined, so the cost of a snapshot does not grow with the
 * text. A source that completes before every choice finished errors with `StreamClosedEarlyError`,
 * and every error of this library passing through carries the last snapshot as `partial`.
 *
 * With `{ estimateUsage: true }`, a snapshot whose stream has carried no usage (yet) has an
 * estimate from its text instead of `null` (about 4 characters per token, `estimated: true`; see
 * `estimateTokenUsage`), for a live "≈ N tokens"; the provider's figures replace it once they come.
 *
 * ```
 * events:    --content"Hel"--content"lo"--finish--|
 * snapshots: --{"Hel"}-------{"Hello"}----{"Hello",finished}--|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, scanCompletion } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), scanCompletion()).subscribe((snapshot) => {
 *   view.text = snapshot.content ?? '';
 *   view.thinking = snapshot.inReasoning;
 * });
 * ```
 *
 * @param options `estimateUsage`: estimate `usage` from the text while the stream has carried none.
 * @returns An operator from `ChatEvent`s to `CompletionSnapshot`s.
 */
export function scanCompletion(options: ScanCompletionOptions = {}): OperatorFunction<ChatEvent, CompletionSnapshot> {
  return foldCompletion('scan', options.estimateUsage === true);
}
