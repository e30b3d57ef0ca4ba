import { aiSdkUi } from './ai-sdk-ui/aiSdkUi.js';
import { anthropic } from './anthropic/anthropic.js';
import { bedrockConverse } from './bedrock-converse/bedrockConverse.js';
import { bedrockInvoke } from './bedrock-invoke/bedrockInvoke.js';
import { chatEvents } from './chat-events/chatEvents.js';
import { cohere } from './cohere/cohere.js';
import { Dialect } from './Dialect.js';
import { gemini } from './gemini/gemini.js';
import { geminiInteractions } from './gemini-interactions/geminiInteractions.js';
import { mistralConversations } from './mistral-conversations/mistralConversations.js';
import { llamacppCompletion } from './llamacpp-completion/llamacppCompletion.js';
import { ollama } from './ollama/ollama.js';
import { openaiChat } from './openai-chat/openaiChat.js';
import { openaiRealtime } from './openai-realtime/openaiRealtime.js';
import { openaiResponses } from './openai-responses/openaiResponses.js';
import { typedEvents } from './typed-events/typedEvents.js';

/**
 * Every dialect of the library, one record each. The order is the order in which `auto` asks them
 * whether a first payload is theirs: the formats told by their event names first (the two Bedrock
 * replies), then by a `type` field, then by the shape of the object. A new dialect is one line here.
 *
 * @example
 * ```ts
 * import { DIALECT_LIST } from 'rxjs-llm-stream';
 *
 * DIALECT_LIST.map((dialect) => dialect.name); // ['bedrock-converse', 'bedrock-invoke', 'anthropic', ...]
 * ```
 */
export const DIALECT_LIST = [
  bedrockConverse,
  bedrockInvoke,
  anthropic,
  // Before openai-responses, whose event names it shares: a Realtime event carries an event_id.
  openaiRealtime,
  openaiResponses,
  typedEvents,
  cohere,
  mistralConversations,
  geminiInteractions,
  gemini,
  openaiChat,
  ollama,
  llamacppCompletion,
  chatEvents,
  aiSdkUi,
] as const;

/** The wire formats `assembleChunks` reads by name: every dialect of the registry, and `auto`. */
export type DialectName = 'auto' | (typeof DIALECT_LIST)[number]['name'];

/**
 * Every named format but `auto`, which chooses among these, by name.
 *
 * @example
 * ```ts
 * import { DIALECTS, assembleChunks } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks({ dialect: DIALECTS['openai-chat'] }));
 * ```
 */
export const DIALECTS: Readonly<Record<Exclude<DialectName, 'auto'>, Dialect>> = Object.fromEntries(
  DIALECT_LIST.map((dialect) => [dialect.name, dialect]),
) as Record<Exclude<DialectName, 'auto'>, Dialect>;
