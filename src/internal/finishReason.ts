import type { FinishReason, FinishReasonTable } from '../types/replyParts.js';

const NORMALIZED: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  STOP: 'stop',
  completed: 'stop',
  // llama.cpp native /completion `stop_type`: end of sequence, a stop word, the token limit.
  eos: 'stop',
  word: 'stop',
  // Hugging Face TGI's end of sequence.
  eos_token: 'stop',
  length: 'length',
  max_tokens: 'length',
  MAX_TOKENS: 'length',
  max_output_tokens: 'length',
  limit: 'length',
  model_context_window_exceeded: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  tool_use: 'tool_calls',
  // The AI SDK's UI message stream spells its reasons with hyphens.
  'tool-calls': 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  'content-filter': 'content_filter',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  // Bedrock Converse `stopReason`
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  error: 'error',
  MALFORMED_FUNCTION_CALL: 'error',
};

/**
 * Maps a provider's finish reason to the normalized one: the format's own table first (`own`, from its
 * dialect's record), then the spellings every format shares (docs/dialects.md has both). A choice that
 * made tool calls but says `stop` finished for its calls: several providers send `stop` there.
 */
export function normalizeFinishReason(raw: string, hasToolCalls: boolean, own?: FinishReasonTable): FinishReason {
  const normalized =
    own !== undefined && Object.prototype.hasOwnProperty.call(own, raw)
      ? own[raw]!
      : Object.prototype.hasOwnProperty.call(NORMALIZED, raw)
        ? NORMALIZED[raw]!
        : 'other';
  return normalized === 'stop' && hasToolCalls ? 'tool_calls' : normalized;
}
