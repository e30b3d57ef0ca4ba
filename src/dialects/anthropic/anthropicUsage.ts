import { Usage } from '../../types/events.js';

/** The counts one Anthropic usage object reported (each undefined when it did not report it). */
export interface AnthropicCounts {
  readonly input: number | undefined;
  readonly cacheRead: number | undefined;
  readonly cacheWrite: number | undefined;
  readonly output: number | undefined;
  /** `output_tokens_details.thinking_tokens`: a part of `output`. */
  readonly thinking: number | undefined;
}

/**
 * Anthropic's usage in OpenAI's meaning. Anthropic splits the input three ways: `input_tokens` is
 * only what was neither read from nor written to the cache, beside `cache_read_input_tokens` and
 * `cache_creation_input_tokens` (its docs: the total input is the sum of the three). `promptTokens`
 * is that sum, so `cachedPromptTokens` and `cacheWritePromptTokens` are parts of it, as everywhere.
 *
 * `message_start` reports the input and a first small `output_tokens`; `message_delta` reports
 * totals: the output always, the input counts in newer API versions (and from gateways that sent 0
 * at the start). Usage events merge field by field, so each event carries only what its frame
 * changed: `promptTokens` (with the latest cache counts beside it) when the frame reported any input
 * count, summed from the latest value of each of the three; `completionTokens` when it reported the
 * output; `totalTokens` once both sides are known. An input count never reported adds 0, so a cached
 * count is never more than the prompt it is part of.
 */
export class AnthropicUsage {
  private input: number | undefined = undefined;
  private cacheRead: number | undefined = undefined;
  private cacheWrite: number | undefined = undefined;
  private output: number | undefined = undefined;

  /** The usage event for one frame's counts; undefined when the frame counted nothing. */
  update(counts: AnthropicCounts): Usage | undefined {
    const inputReported = counts.input !== undefined || counts.cacheRead !== undefined || counts.cacheWrite !== undefined;
    if (!inputReported && counts.output === undefined && counts.thinking === undefined) return undefined;
    this.input = counts.input ?? this.input;
    this.cacheRead = counts.cacheRead ?? this.cacheRead;
    this.cacheWrite = counts.cacheWrite ?? this.cacheWrite;
    this.output = counts.output ?? this.output;
    const prompt = this.prompt();
    const changed = inputReported || counts.output !== undefined;
    const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
      promptTokens: inputReported ? (prompt ?? null) : null,
      completionTokens: counts.output ?? null,
      totalTokens: changed && prompt !== undefined && this.output !== undefined ? prompt + this.output : null,
    };
    if (inputReported && this.cacheRead !== undefined) usage.cachedPromptTokens = this.cacheRead;
    if (inputReported && this.cacheWrite !== undefined) usage.cacheWritePromptTokens = this.cacheWrite;
    if (counts.thinking !== undefined) usage.reasoningTokens = counts.thinking;
    return usage;
  }

  /** All input: the three parts as last reported (one never reported counts 0); undefined before any. */
  private prompt(): number | undefined {
    if (this.input === undefined && this.cacheRead === undefined && this.cacheWrite === undefined) return undefined;
    return (this.input ?? 0) + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0);
  }
}
