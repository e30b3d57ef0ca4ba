import type { OperatorFunction } from 'rxjs';
import type { ToolResult } from '../next-turn/ToolResult.js';
import type { Completion } from '../types/completion.js';
import type { ChatEvent } from '../types/events.js';

/**
 * What the loop needs of a provider: how its body becomes events (framing and dialect) and how a
 * step's reply and the results of its calls become the messages of the next request. The library's
 * records (`openaiChatLoop`, `anthropicLoop`, ...) are these; write one for a server with its own
 * needs (DeepSeek's `reasoning_content`, Mistral's thinking chunks).
 *
 * @example
 * ```ts
 * import { pipe } from 'rxjs';
 * import { assembleChunksWith, decodeUtf8, openaiChat, openaiChatAssistantTurn, openaiChatToolResults, sseFrames } from 'rxjs-llm-stream';
 * import type { OpenAiChatAssistantMessage, OpenAiChatToolMessage, ToolLoopFormat } from 'rxjs-llm-stream';
 *
 * const deepseekLoop: ToolLoopFormat<OpenAiChatAssistantMessage | OpenAiChatToolMessage> = {
 *   name: 'deepseek',
 *   read: () => pipe(decodeUtf8(), sseFrames(), assembleChunksWith(openaiChat)),
 *   nextTurn: (reply, results) => [
 *     openaiChatAssistantTurn(reply, { reasoningField: 'reasoning_content' }),
 *     ...openaiChatToolResults(results),
 *   ],
 * };
 * ```
 */
export interface ToolLoopFormat<Message> {
  /** The provider's name, for messages. */
  readonly name: string;
  /** A fresh operator from the response body to the dialect's events (one per step). */
  readonly read: () => OperatorFunction<Uint8Array, ChatEvent>;
  /**
   * The messages that follow the conversation after a step: the assistant's turn and, when the step
   * made calls, their results in call order (none when `results` is empty).
   */
  readonly nextTurn: (reply: Completion, results: readonly ToolResult[]) => Message[];
}
