import { aiSdkUi } from './aiSdkUi.js';
import { anthropic } from './anthropic.js';
import { AutoDialectParser } from './auto.js';
import { bedrockConverse } from './bedrockConverse.js';
import { bedrockInvoke } from './bedrockInvoke.js';
import { chatEvents } from './chatEvents.js';
import { DialectFactory } from './Dialect.js';
import { gemini } from './gemini.js';
import { llamacppCompletion } from './llamacppCompletion.js';
import { ollama } from './ollama.js';
import { openaiChat } from './openaiChat.js';
import { openaiResponses } from './openaiResponses.js';
import { typedEvents } from './typedEvents.js';

/** The wire formats `assembleChunks` reads by name. */
export type DialectName =
  | 'auto'
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'gemini'
  | 'ollama'
  | 'llamacpp-completion'
  | 'typed-events'
  | 'chat-events'
  | 'ai-sdk-ui'
  | 'bedrock-converse'
  | 'bedrock-invoke';

/** Every named format but `auto`, which chooses among these. */
export const DIALECTS: Readonly<Record<Exclude<DialectName, 'auto'>, DialectFactory>> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
  ollama,
  'llamacpp-completion': llamacppCompletion,
  'typed-events': typedEvents,
  'chat-events': chatEvents,
  'ai-sdk-ui': aiSdkUi,
  'bedrock-converse': bedrockConverse,
  'bedrock-invoke': bedrockInvoke,
};

/**
 * The `auto` dialect's factory: the format is decided from the first frame that names it (see
 * `detectDialect`), then fixed for the rest of the stream.
 */
export const autoDialect: DialectFactory = (emit, options) => new AutoDialectParser(DIALECTS, emit, options);
