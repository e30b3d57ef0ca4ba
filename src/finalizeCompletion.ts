import { Observable, OperatorFunction } from 'rxjs';
import { CompletionTracker } from './core/CompletionTracker.js';
import { LlmStreamError } from './errors.js';
import { ChatEvent, Completion, Usage } from './events.js';
import { fillPartial } from './internal/fillPartial.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

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
   * {@link estimateTokenUsage}), marked `estimated: true`; also in the `partial` of an error. Usage
   * that did arrive, even in part, is never replaced. Default `false`: `usage` stays `null`.
   */
  readonly estimateUsage?: boolean;
}

/**
 * What an estimate reads: the text of every choice (a `Completion` or a `CompletionSnapshot`).
 *
 * @example
 * ```ts
 * import { estimateTokenUsage, type UsageEstimateSource } from 'rxjs-llm-stream';
 *
 * const reply: UsageEstimateSource = { choices: [{ content: 'Hi there', reasoning: null, refusal: null, toolCalls: [] }] };
 * estimateTokenUsage(reply).completionTokens; // 2
 * ```
 */
export interface UsageEstimateSource {
  readonly choices: ReadonlyArray<{
    readonly content: string | null;
    readonly reasoning: string | null;
    readonly refusal: string | null;
    readonly toolCalls: ReadonlyArray<{ readonly arguments: string }>;
  }>;
}

/** The rough rule of thumb for English text with OpenAI-style tokenizers. */
const CHARACTERS_PER_TOKEN = 4;

/**
 * Estimates the completion tokens of a reply from its text, for a stream that never reported usage
 * (the provider was not asked for it, or the stream was cut off): about 4 characters per token, the
 * usual rule of thumb for English. Rough: code, other languages and other tokenizers differ, often
 * by a factor of two (Chinese or Japanese text runs near one token per character), and formatting
 * tokens the model spent around tool calls are not seen. Good for a budget or a "≈" in a UI, not
 * for billing.
 *
 * Counts the characters (UTF-16 code units) of the content, reasoning, refusal and tool-call
 * arguments of every choice; reasoning signatures are opaque and not counted. The prompt is not in
 * the stream, so `promptTokens` and `totalTokens` stay `null`.
 *
 * @example
 * ```ts
 * import { StreamClosedEarlyError, estimateTokenUsage } from 'rxjs-llm-stream';
 *
 * if (err instanceof StreamClosedEarlyError && err.partial) budget.add(estimateTokenUsage(err.partial));
 * // { promptTokens: null, completionTokens: 37, totalTokens: null, estimated: true }
 * ```
 *
 * @param completion A `Completion` or a `CompletionSnapshot`.
 * @returns `{ promptTokens: null, completionTokens: ceil(characters / 4), totalTokens: null, estimated: true }`.
 */
export function estimateTokenUsage(completion: UsageEstimateSource): Usage {
  let characters = 0;
  for (const choice of completion.choices) {
    characters += (choice.content?.length ?? 0) + (choice.reasoning?.length ?? 0) + (choice.refusal?.length ?? 0);
    for (const call of choice.toolCalls) characters += call.arguments.length;
  }
  return { promptTokens: null, completionTokens: Math.ceil(characters / CHARACTERS_PER_TOKEN), totalTokens: null, estimated: true };
}

/** `completion` with an estimated `usage` when it has none; as it is otherwise. */
function withEstimatedUsage<C extends UsageEstimateSource & { readonly usage: Usage | null }>(completion: C): C {
  return completion.usage === null ? { ...completion, usage: estimateTokenUsage(completion) } : completion;
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
  const estimate = options.estimateUsage === true;
  return (source) =>
    new Observable<Completion>((subscriber) => {
      const tracker = new CompletionTracker();
      subscribeLinked(source, subscriber, {
        next: (event) => void tracker.apply(event),
        error(error) {
          fillPartial(error, tracker);
          if (estimate && error instanceof LlmStreamError) error.partial = withEstimatedUsage(tracker.snapshot());
          subscriber.error(error);
        },
        complete() {
          const completion = tracker.complete();
          subscriber.next(estimate ? withEstimatedUsage(completion) : completion);
          subscriber.complete();
        },
      });
    });
}
