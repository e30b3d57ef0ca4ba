import { Usage } from '../types/events.js';

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
 * import { StreamClosedEarlyError, estimateTokenUsage, isCompletionSnapshot } from 'rxjs-llm-stream';
 *
 * if (err instanceof StreamClosedEarlyError && isCompletionSnapshot(err.partial)) budget.add(estimateTokenUsage(err.partial));
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

/**
 * `completion` with an estimated `usage` when it has none; as it is otherwise. The estimate reads the
 * lengths of the strings, not their characters, so a snapshot still costs the same however long the
 * text is.
 */
export function withEstimatedUsage<C extends UsageEstimateSource & { readonly usage: Usage | null }>(completion: C): C {
  return completion.usage === null ? { ...completion, usage: estimateTokenUsage(completion) } : completion;
}
