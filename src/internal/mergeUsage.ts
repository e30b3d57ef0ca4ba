import { Usage } from '../types/events.js';

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
  const cacheWrite = next.cacheWritePromptTokens ?? previous.cacheWritePromptTokens;
  const reasoning = next.reasoningTokens ?? previous.reasoningTokens;
  const audioPrompt = next.audioPromptTokens ?? previous.audioPromptTokens;
  const audioCompletion = next.audioCompletionTokens ?? previous.audioCompletionTokens;
  if (cached !== undefined) merged.cachedPromptTokens = cached;
  if (cacheWrite !== undefined) merged.cacheWritePromptTokens = cacheWrite;
  if (reasoning !== undefined) merged.reasoningTokens = reasoning;
  if (audioPrompt !== undefined) merged.audioPromptTokens = audioPrompt;
  if (audioCompletion !== undefined) merged.audioCompletionTokens = audioCompletion;
  return merged;
}
