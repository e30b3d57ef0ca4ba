import { Usage } from '../../src/types/events';
import { mergeUsage } from '../../src/internal/mergeUsage';

describe('mergeUsage', () => {
  const start: Usage = { promptTokens: 20, completionTokens: 1, totalTokens: null, cachedPromptTokens: 8, cacheWritePromptTokens: 5 };

  it.each<[string, Usage | null, Usage, Usage]>([
    ['the first report as it is', null, start, start],
    [
      'a later count replacing an earlier one, the details it lacks kept (Anthropic: message_start, then message_delta)',
      start,
      { promptTokens: null, completionTokens: 42, totalTokens: null },
      { promptTokens: 20, completionTokens: 42, totalTokens: null, cachedPromptTokens: 8, cacheWritePromptTokens: 5 },
    ],
    [
      'later details replacing earlier ones, never summed',
      start,
      { promptTokens: 20, completionTokens: 42, totalTokens: 62, cachedPromptTokens: 9, cacheWritePromptTokens: 0, reasoningTokens: 12 },
      { promptTokens: 20, completionTokens: 42, totalTokens: 62, cachedPromptTokens: 9, cacheWritePromptTokens: 0, reasoningTokens: 12 },
    ],
  ])('keeps %s', (_name, previous, next, merged) => {
    expect(mergeUsage(previous, next)).toEqual(merged);
  });
});
