import { OperatorFunction } from 'rxjs';
import { ChatEvent, Completion } from './events.js';
import { foldCompletion } from './foldCompletion.js';

/**
 * Options of {@link finalizeCompletion}.
 *
 * @example
 * ```ts
 * import { finalizeCompletion, type FinalizeCompletionOptions } from 'rxjs-llm-stream';
 *
 * const options: FinalizeCompletionOptions = { estimateUsage: true };
 * events$.pipe(finalizeCompletion(options));
 * ```
 */
export interface FinalizeCompletionOptions {
  /**
   * When the stream carried no usage, fill `usage` with an estimate from the text (see
   * `estimateTokenUsage`), marked `estimated: true`; also in the `partial` of an error. Usage
   * that did arrive, even in part, is never replaced. Default `false`: `usage` stays `null`.
   */
  readonly estimateUsage?: boolean;
}

/**
 * Folds `ChatEvent`s into one `Completion`, emitted when the source completes.
 *
 * The `Completion` has the shape of a non-streaming reply: text, reasoning, refusal, tool calls with
 * parsed arguments (in index order), the normalized finish reason with the raw one, usage, timings,
 * and every choice. Works with or without `groupToolCallsByIndex` in front. A source that completes
 * before every choice finished errors with `StreamClosedEarlyError`; any error of this library
 * passing through gets the completion so far as its `partial`, so nothing that arrived is lost.
 *
 * `usage` is `null` when the stream carried none; with `{ estimateUsage: true }` it is then an
 * estimate from the text instead (about 4 characters per token, marked `estimated: true`; see
 * `estimateTokenUsage`), in the completion and in the `partial` of an error.
 *
 * ```
 * events:     --content--tool-call-delta--finish--usage--done--|
 * completion: ---------------------------------------------------(c|)
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion = await lastValueFrom(
 *   bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion({ estimateUsage: true })),
 * );
 * console.log(completion.content, completion.toolCalls, completion.usage); // usage.estimated if none came
 * ```
 *
 * @param options `estimateUsage`: estimate `usage` from the text when the stream carried none.
 * @returns An operator from `ChatEvent`s to exactly one `Completion`.
 */
export function finalizeCompletion(options: FinalizeCompletionOptions = {}): OperatorFunction<ChatEvent, Completion> {
  return foldCompletion('reduce', options.estimateUsage === true);
}
