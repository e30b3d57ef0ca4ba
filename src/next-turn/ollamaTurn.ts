import type { JsonValue } from '../types/replyParts.js';
import { type AssistantReply, isJsonRecord, sentCalls } from './AssistantReply.js';
import { type ToolResult, resultText } from './ToolResult.js';

/** A call of the assistant's message: Ollama's arguments are an object, not text. */
export interface OllamaToolCall {
  readonly id: string;
  readonly function: { readonly name: string; readonly arguments: { readonly [key: string]: JsonValue } };
}

/**
 * The assistant's message of the next `/api/chat` request.
 *
 * @example
 * ```ts
 * import type { OllamaAssistantMessage } from 'rxjs-llm-stream';
 *
 * const turn: OllamaAssistantMessage = {
 *   role: 'assistant',
 *   content: '',
 *   thinking: 'Look it up.',
 *   tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
 * };
 * ```
 */
export interface OllamaAssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly thinking?: string;
  readonly tool_calls?: OllamaToolCall[];
}

/** The answer to one call: a `tool` message naming the tool. */
export interface OllamaToolMessage {
  readonly role: 'tool';
  readonly content: string;
  readonly tool_name: string;
}

/**
 * The assistant's turn of an Ollama reply as the next `/api/chat` request takes it: its text, its
 * thinking (which Ollama's thinking models read back) and its calls with their arguments as objects.
 *
 * @example
 * ```ts
 * import { ollamaAssistantTurn, ollamaToolResults, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const messages = [
 *   ollamaAssistantTurn(completion),
 *   ...ollamaToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))),
 * ];
 * ```
 */
export function ollamaAssistantTurn(reply: AssistantReply): OllamaAssistantMessage {
  const calls = sentCalls(reply).map((call) => ({
    id: call.id,
    function: { name: call.name, arguments: isJsonRecord(call.args) ? call.args : {} },
  }));
  return {
    role: 'assistant',
    content: reply.content ?? '',
    ...(reply.reasoning === null || reply.reasoning === '' ? {} : { thinking: reply.reasoning }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
}

/**
 * The results as Ollama wants them: one `tool` message per call, in the order given, naming the tool
 * (`tool_name`); an error as `{"error": message}`.
 *
 * @example
 * ```ts
 * import { ollamaToolResults } from 'rxjs-llm-stream';
 *
 * ollamaToolResults([{ callId: 'call_1', name: 'get_weather', output: 'sunny' }]);
 * // [{ role: 'tool', content: 'sunny', tool_name: 'get_weather' }]
 * ```
 */
export function ollamaToolResults(results: readonly ToolResult[]): OllamaToolMessage[] {
  return results.map((result) => ({ role: 'tool', content: resultText(result), tool_name: result.name }));
}
