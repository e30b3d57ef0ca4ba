import { PromptProgress, Timings, Usage } from '../../types/events.js';
import { JsonObject, finiteNumber, isJsonObject } from '../../internal/json.js';

/** The field names of one family of usage objects. */
interface UsageFields {
  readonly prompt: string;
  readonly completion: string;
  readonly promptDetails: string;
  readonly completionDetails: string;
}

const CHAT_FIELDS: UsageFields = {
  prompt: 'prompt_tokens',
  completion: 'completion_tokens',
  promptDetails: 'prompt_tokens_details',
  completionDetails: 'completion_tokens_details',
};

const RESPONSES_FIELDS: UsageFields = {
  prompt: 'input_tokens',
  completion: 'output_tokens',
  promptDetails: 'input_tokens_details',
  completionDetails: 'output_tokens_details',
};

/** The Realtime API's `RealtimeResponseUsage`: `input_token_details`, `output_token_details`, one `token` where Responses has `tokens`. */
const REALTIME_FIELDS: UsageFields = {
  prompt: 'input_tokens',
  completion: 'output_tokens',
  promptDetails: 'input_token_details',
  completionDetails: 'output_token_details',
};

/**
 * Reads a usage object of OpenAI's shape under the given field names; undefined when it counts
 * nothing. Beside the totals: the cached and cache-written prompt tokens (`cached_tokens`,
 * `cache_write_tokens`), the reasoning tokens, and the audio tokens of each side (`audio_tokens`).
 */
function readUsage(usage: JsonObject, fields: UsageFields): Usage | undefined {
  const promptDetails = usage[fields.promptDetails];
  const completionDetails = usage[fields.completionDetails];
  const prompt = isJsonObject(promptDetails) ? promptDetails : undefined;
  const completion = isJsonObject(completionDetails) ? completionDetails : undefined;
  const read = buildUsage(
    finiteNumber(usage[fields.prompt]),
    finiteNumber(usage[fields.completion]),
    finiteNumber(usage['total_tokens']),
    prompt === undefined ? undefined : finiteNumber(prompt['cached_tokens']),
    completion === undefined ? undefined : finiteNumber(completion['reasoning_tokens']),
  );
  const cacheWrite = prompt === undefined ? undefined : finiteNumber(prompt['cache_write_tokens']);
  const audioPrompt = prompt === undefined ? undefined : finiteNumber(prompt['audio_tokens']);
  const audioCompletion = completion === undefined ? undefined : finiteNumber(completion['audio_tokens']);
  if (cacheWrite === undefined && audioPrompt === undefined && audioCompletion === undefined) return read;
  return {
    ...(read ?? { promptTokens: null, completionTokens: null, totalTokens: null }),
    ...(cacheWrite === undefined ? {} : { cacheWritePromptTokens: cacheWrite }),
    ...(audioPrompt === undefined ? {} : { audioPromptTokens: audioPrompt }),
    ...(audioCompletion === undefined ? {} : { audioCompletionTokens: audioCompletion }),
  };
}

/**
 * Reads a Chat Completions usage object (`prompt_tokens`, `completion_tokens`, `total_tokens`, with
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`). Returns
 * undefined when the object carries no count at all.
 */
export function readOpenAiUsage(usage: JsonObject): Usage | undefined {
  return readUsage(usage, CHAT_FIELDS);
}

/**
 * Reads a Responses usage object (`input_tokens`, `output_tokens`, `total_tokens`, with
 * `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`).
 */
export function readResponsesUsage(usage: JsonObject): Usage | undefined {
  return readUsage(usage, RESPONSES_FIELDS);
}

/**
 * Reads the usage of a Realtime `response.done` (`input_tokens`, `output_tokens`, `total_tokens`, with
 * `input_token_details.cached_tokens` and `.audio_tokens`, `output_token_details.audio_tokens`).
 * Returns undefined when the object carries no count at all.
 */
export function readRealtimeUsage(usage: JsonObject): Usage | undefined {
  return readUsage(usage, REALTIME_FIELDS);
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

/** llama.cpp's `prompt_progress`: how far the server is through reading the prompt. */
export function readPromptProgress(raw: JsonObject): PromptProgress {
  return {
    total: finiteNumber(raw['total']) ?? 0,
    cache: finiteNumber(raw['cache']) ?? 0,
    processed: finiteNumber(raw['processed']) ?? 0,
    timeMs: finiteNumber(raw['time_ms']) ?? 0,
  };
}
