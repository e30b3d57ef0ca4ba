import { Timings, Usage } from '../events.js';
import { JsonObject, finiteNumber, isJsonObject } from '../internal/json.js';

/**
 * Reads an OpenAI-shaped usage object (`prompt_tokens`, `completion_tokens`, `total_tokens`, with
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`). Returns
 * undefined when the object carries no count at all.
 */
export function readOpenAiUsage(usage: JsonObject): Usage | undefined {
  const promptDetails = isJsonObject(usage['prompt_tokens_details']) ? usage['prompt_tokens_details'] : undefined;
  const completionDetails = isJsonObject(usage['completion_tokens_details'])
    ? usage['completion_tokens_details']
    : undefined;
  return buildUsage(
    finiteNumber(usage['prompt_tokens']),
    finiteNumber(usage['completion_tokens']),
    finiteNumber(usage['total_tokens']),
    promptDetails && finiteNumber(promptDetails['cached_tokens']),
    completionDetails && finiteNumber(completionDetails['reasoning_tokens']),
  );
}

/** A `Usage` from the counts a dialect found; undefined when it found none. */
export function buildUsage(
  promptTokens: number | undefined,
  completionTokens: number | undefined,
  totalTokens: number | undefined,
  cachedPromptTokens?: number,
  reasoningTokens?: number,
): Usage | undefined {
  if (
    promptTokens === undefined &&
    completionTokens === undefined &&
    totalTokens === undefined &&
    cachedPromptTokens === undefined &&
    reasoningTokens === undefined
  ) {
    return undefined;
  }
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
    promptTokens: promptTokens ?? null,
    completionTokens: completionTokens ?? null,
    totalTokens: totalTokens ?? null,
  };
  if (cachedPromptTokens !== undefined) usage.cachedPromptTokens = cachedPromptTokens;
  if (reasoningTokens !== undefined) usage.reasoningTokens = reasoningTokens;
  return usage;
}

/**
 * Merges usage reports field by field: a later value replaces an earlier one, a field the later
 * report lacks keeps its value. Never sums (every provider reports totals, not increments).
 */
export function mergeUsage(previous: Usage | null, next: Usage): Usage {
  if (previous === null) return next;
  const merged: { -readonly [K in keyof Usage]: Usage[K] } = {
    promptTokens: next.promptTokens ?? previous.promptTokens,
    completionTokens: next.completionTokens ?? previous.completionTokens,
    totalTokens: next.totalTokens ?? previous.totalTokens,
  };
  const cached = next.cachedPromptTokens ?? previous.cachedPromptTokens;
  const reasoning = next.reasoningTokens ?? previous.reasoningTokens;
  if (cached !== undefined) merged.cachedPromptTokens = cached;
  if (reasoning !== undefined) merged.reasoningTokens = reasoning;
  return merged;
}

/** llama.cpp's `timings` object: every finite number it holds, under its own name. */
export function readTimings(raw: JsonObject): Timings {
  const timings: [string, number][] = [];
  for (const key of Object.keys(raw)) {
    const value = finiteNumber(raw[key]);
    if (value !== undefined) timings.push([key, value]);
  }
  // Defined, not assigned: `timings[key] = value` with the key `__proto__` would drop the field.
  return Object.fromEntries(timings);
}
