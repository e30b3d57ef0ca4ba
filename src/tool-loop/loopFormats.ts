import { pipe } from 'rxjs';
import { anthropic } from '../dialects/anthropic/anthropic.js';
import { bedrockConverse } from '../dialects/bedrock-converse/bedrockConverse.js';
import { bedrockInvoke } from '../dialects/bedrock-invoke/bedrockInvoke.js';
import { gemini } from '../dialects/gemini/gemini.js';
import { ollama } from '../dialects/ollama/ollama.js';
import { openaiChat } from '../dialects/openai-chat/openaiChat.js';
import { openaiResponses } from '../dialects/openai-responses/openaiResponses.js';
import { awsEventStreamFrames } from '../frames/awsEventStreamFrames.js';
import { decodeUtf8 } from '../frames/decodeUtf8.js';
import { ndjsonFrames } from '../frames/ndjsonFrames.js';
import { sseFrames } from '../frames/sseFrames.js';
import {
  type AnthropicAssistantMessage,
  type AnthropicToolResultsMessage,
  anthropicAssistantTurn,
  anthropicToolResults,
} from '../next-turn/anthropicTurn.js';
import {
  type BedrockAssistantMessage,
  type BedrockToolResultsMessage,
  bedrockConverseTurn,
  bedrockToolResults,
} from '../next-turn/bedrockConverseTurn.js';
import {
  type GeminiFunctionResponseContent,
  type GeminiModelContent,
  geminiModelTurn,
  geminiToolResults,
} from '../next-turn/geminiTurn.js';
import { type OllamaAssistantMessage, type OllamaToolMessage, ollamaAssistantTurn, ollamaToolResults } from '../next-turn/ollamaTurn.js';
import {
  type OpenAiChatAssistantMessage,
  type OpenAiChatToolMessage,
  openaiChatAssistantTurn,
  openaiChatToolResults,
} from '../next-turn/openaiChatTurn.js';
import {
  type ResponsesToolOutput,
  type ResponsesTurnItem,
  openaiResponsesToolResults,
  openaiResponsesTurn,
} from '../next-turn/openaiResponsesTurn.js';
import { assembleChunksWith } from '../reply/assembleChunksWith.js';
import type { ToolResult } from '../next-turn/ToolResult.js';
import type { Completion } from '../types/completion.js';
import type { ToolLoopFormat } from './ToolLoopFormat.js';

// One record per provider, each a constant of its own: a bundle holds only the dialects and
// builders of the records it imports.

/**
 * Chat Completions (`openai-chat`, SSE), and the servers compatible with it: the assistant message
 * (`openaiChatAssistantTurn`), then one `tool` message per call.
 *
 * @example
 * ```ts
 * import { openaiChatLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: openaiChatLoop, request, conversation: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
 * ```
 */
export const openaiChatLoop: ToolLoopFormat<OpenAiChatAssistantMessage | OpenAiChatToolMessage> = {
  name: 'openai-chat',
  read: () => pipe(decodeUtf8(), sseFrames(), assembleChunksWith(openaiChat)),
  nextTurn: (reply, results) => [openaiChatAssistantTurn(reply), ...openaiChatToolResults(results)],
};

/**
 * The Responses API (`openai-responses`, SSE): the turn's output items, then one
 * `function_call_output` (or `custom_tool_call_output`) per call.
 *
 * @example
 * ```ts
 * import { openaiResponsesLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: openaiResponsesLoop, request, conversation: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
 * ```
 */
export const openaiResponsesLoop: ToolLoopFormat<ResponsesTurnItem | ResponsesToolOutput> = {
  name: 'openai-responses',
  read: () => pipe(decodeUtf8(), sseFrames(), assembleChunksWith(openaiResponses)),
  nextTurn: (reply, results) => [...openaiResponsesTurn(reply), ...openaiResponsesToolResults(results)],
};

/**
 * Anthropic's Messages API (`anthropic`, SSE): the assistant message with its signed thinking, then
 * one user message with every `tool_result`.
 *
 * @example
 * ```ts
 * import { anthropicLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: anthropicLoop, request, conversation: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
 * ```
 */
export const anthropicLoop: ToolLoopFormat<AnthropicAssistantMessage | AnthropicToolResultsMessage> = {
  name: 'anthropic',
  read: () => pipe(decodeUtf8(), sseFrames(), assembleChunksWith(anthropic)),
  nextTurn: anthropicMessages,
};

/**
 * Anthropic's models on Bedrock's `InvokeModelWithResponseStream` (`bedrock-invoke`, AWS's binary
 * event stream): Anthropic's messages.
 *
 * @example
 * ```ts
 * import { bedrockInvokeLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: bedrockInvokeLoop, request, conversation: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
 * ```
 */
export const bedrockInvokeLoop: ToolLoopFormat<AnthropicAssistantMessage | AnthropicToolResultsMessage> = {
  name: 'bedrock-invoke',
  read: () => pipe(awsEventStreamFrames(), assembleChunksWith(bedrockInvoke)),
  nextTurn: anthropicMessages,
};

/**
 * Bedrock's Converse API (`bedrock-converse`, AWS's binary event stream): the assistant message, then
 * one user message of `toolResult` blocks.
 *
 * @example
 * ```ts
 * import { bedrockConverseLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: bedrockConverseLoop, request, conversation: [{ role: 'user', content: [{ text: 'Weather in Oslo?' }] }], tools });
 * ```
 */
export const bedrockConverseLoop: ToolLoopFormat<BedrockAssistantMessage | BedrockToolResultsMessage> = {
  name: 'bedrock-converse',
  read: () => pipe(awsEventStreamFrames(), assembleChunksWith(bedrockConverse)),
  nextTurn: (reply, results) =>
    results.length === 0 ? [bedrockConverseTurn(reply)] : [bedrockConverseTurn(reply), bedrockToolResults(results)],
};

/**
 * Gemini (`gemini`, SSE of `streamGenerateContent?alt=sse`): the model content with its
 * `thoughtSignature`s, then one user content of `functionResponse` parts.
 *
 * @example
 * ```ts
 * import { geminiLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: geminiLoop, request, conversation: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }], tools });
 * ```
 */
export const geminiLoop: ToolLoopFormat<GeminiModelContent | GeminiFunctionResponseContent> = {
  name: 'gemini',
  read: () => pipe(decodeUtf8(), sseFrames(), assembleChunksWith(gemini)),
  nextTurn: (reply, results) => (results.length === 0 ? [geminiModelTurn(reply)] : [geminiModelTurn(reply), geminiToolResults(results)]),
};

/**
 * Ollama's `/api/chat` (`ollama`, NDJSON): the assistant message, then one `tool` message per call.
 *
 * @example
 * ```ts
 * import { ollamaLoop, toolLoop } from 'rxjs-llm-stream';
 *
 * toolLoop({ format: ollamaLoop, request, conversation: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
 * ```
 */
export const ollamaLoop: ToolLoopFormat<OllamaAssistantMessage | OllamaToolMessage> = {
  name: 'ollama',
  read: () => pipe(decodeUtf8(), ndjsonFrames(), assembleChunksWith(ollama)),
  nextTurn: (reply, results) => [ollamaAssistantTurn(reply), ...ollamaToolResults(results)],
};

/** Anthropic's two messages; no results message after a step without calls (an empty one is refused). */
function anthropicMessages(reply: Completion, results: readonly ToolResult[]): (AnthropicAssistantMessage | AnthropicToolResultsMessage)[] {
  return results.length === 0 ? [anthropicAssistantTurn(reply)] : [anthropicAssistantTurn(reply), anthropicToolResults(results)];
}
