import type { JsonValue, OpaqueItem } from '../types/replyParts.js';
import { type AssistantReply, callItems, sentCalls } from './AssistantReply.js';
import { type ToolResult, resultText } from './ToolResult.js';

/** A function call of the assistant's message, with what a compatible server wants back on it. */
export interface OpenAiChatFunctionCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
  /** Gemini's `{ google: { thought_signature } }`, through its OpenAI-compatible endpoint. */
  readonly extra_content?: JsonValue;
}

/** A custom (free-form) call of the assistant's message. */
export interface OpenAiChatCustomCall {
  readonly id: string;
  readonly type: 'custom';
  readonly custom: { readonly name: string; readonly input: string };
  readonly extra_content?: JsonValue;
}

/**
 * The assistant's message of the next Chat Completions request.
 *
 * @example
 * ```ts
 * import type { OpenAiChatAssistantMessage } from 'rxjs-llm-stream';
 *
 * const turn: OpenAiChatAssistantMessage = {
 *   role: 'assistant',
 *   content: null,
 *   tool_calls: [
 *     {
 *       id: 'function-call-1',
 *       type: 'function',
 *       function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
 *       extra_content: { google: { thought_signature: 'EpEgCo4g' } },
 *     },
 *   ],
 * };
 * ```
 */
export interface OpenAiChatAssistantMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly refusal?: string;
  readonly tool_calls?: (OpenAiChatFunctionCall | OpenAiChatCustomCall)[];
  /** OpenRouter's `reasoning_details`, each entry whole (its streamed fragments joined), in order. */
  readonly reasoning_details?: { readonly [field: string]: JsonValue }[];
  /** Gemini's signature over the text (`{ google: { thought_signature } }`), when one came with it. */
  readonly extra_content?: JsonValue;
  /** The reasoning text, when asked for (`reasoningField`): DeepSeek's thinking mode wants it back between calls. */
  readonly reasoning_content?: string;
  readonly reasoning?: string;
}

/** What a server wants beyond OpenAI's request. */
export interface OpenAiChatTurnOptions {
  /**
   * The field to send the reasoning text back in, for a server that wants it: `reasoning_content`
   * (DeepSeek's thinking mode with tool calls refuses a turn without it) or `reasoning`. Absent: not
   * sent, as OpenAI's request has no place for it.
   */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
}

/** The answer to one call: a `tool` message. */
export interface OpenAiChatToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/**
 * The assistant's turn of a Chat Completions reply as the next request takes it: its text (or its
 * refusal) and its closed calls with their ids, and what the compatible servers want back: Gemini's
 * `extra_content` on the call it came with (a call without its signature is a 400 on Gemini 3) and
 * on the message when it came with the text, OpenRouter's `reasoning_details` whole and in order. The
 * reasoning text is sent only in the field `options.reasoningField` names (DeepSeek's `reasoning_content`);
 * OpenAI's request has no place for it, and OpenRouter has it in its details.
 * Mistral's thinking goes back with its signatures in its own shape: `mistralAssistantTurn`.
 *
 * @example
 * ```ts
 * import { openaiChatAssistantTurn, openaiChatToolResults, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const next = [
 *   openaiChatAssistantTurn(completion),
 *   ...openaiChatToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'done' }))),
 * ];
 * ```
 */
export function openaiChatAssistantTurn(reply: AssistantReply, options: OpenAiChatTurnOptions = {}): OpenAiChatAssistantMessage {
  const calls = sentCalls(reply).map((call): OpenAiChatFunctionCall | OpenAiChatCustomCall => {
    const extra = callItems(reply, call.index, 'google').find((item) => item.type === 'extra_content');
    const extraContent = extra === undefined ? {} : { extra_content: extra.data };
    return call.kind === 'custom'
      ? { id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments }, ...extraContent }
      : { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments }, ...extraContent };
  });
  const items = reply.opaqueItems ?? [];
  const details = reasoningDetails(items.filter((item) => item.provider === 'openrouter' && item.kind === 'reasoning-detail'));
  const textSignature = items
    .filter((item) => item.provider === 'google' && item.type === 'extra_content' && item.part !== 'tool-call')
    .pop();
  return {
    role: 'assistant',
    content: reply.content,
    ...(reply.refusal === null ? {} : { refusal: reply.refusal }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...(details.length === 0 ? {} : { reasoning_details: details }),
    ...(textSignature === undefined ? {} : { extra_content: textSignature.data }),
    ...(options.reasoningField === undefined || reply.reasoning === null ? {} : { [options.reasoningField]: reply.reasoning }),
  };
}

/**
 * The results of the calls as Chat Completions wants them: one `tool` message per call, in the order
 * given (that of the calls), each naming its call's id; an error as `{"error": message}` (the format
 * has no failure flag).
 *
 * @example
 * ```ts
 * import { openaiChatToolResults } from 'rxjs-llm-stream';
 *
 * openaiChatToolResults([{ callId: 'call_1', name: 'add', output: 3 }]);
 * // [{ role: 'tool', tool_call_id: 'call_1', content: '3' }]
 * ```
 */
export function openaiChatToolResults(results: readonly ToolResult[]): OpenAiChatToolMessage[] {
  return results.map((result) => ({ role: 'tool', tool_call_id: result.callId, content: resultText(result) }));
}

/**
 * OpenRouter's entries, whole: it streams an entry in fragments that share its `index`, the text (or
 * summary) in pieces and the signature with the last, so the fragments of one index are joined (texts
 * appended, other fields the latest) and the entries kept in the order they began.
 */
function reasoningDetails(items: readonly OpaqueItem[]): { [field: string]: JsonValue }[] {
  const entries: { [field: string]: JsonValue }[] = [];
  const byIndex = new Map<number, { [field: string]: JsonValue }>();
  for (const item of items) {
    if (typeof item.data !== 'object' || item.data === null || Array.isArray(item.data)) continue;
    const fragment = item.data;
    const earlier = item.block === undefined ? undefined : byIndex.get(item.block);
    if (earlier === undefined) {
      const entry = { ...fragment };
      entries.push(entry);
      if (item.block !== undefined) byIndex.set(item.block, entry);
      continue;
    }
    for (const [field, value] of Object.entries(fragment)) {
      const before = earlier[field];
      earlier[field] =
        (field === 'text' || field === 'summary') && typeof before === 'string' && typeof value === 'string' ? before + value : value;
    }
  }
  return entries;
}
