import { aiSdkUiWriter } from './aiSdkUi.js';
import { anthropicWriter } from './anthropic.js';
import { bedrockConverseWriter } from './bedrockConverse.js';
import { bedrockInvokeWriter } from './bedrockInvoke.js';
import { chatEventsWriter } from './chatEvents.js';
import { geminiWriter } from './gemini.js';
import { llamacppCompletionWriter } from './llamacppCompletion.js';
import { ollamaWriter } from './ollama.js';
import { openaiChatWriter } from './openaiChat.js';
import { openaiCompletionsWriter } from './openaiCompletions.js';
import { openaiResponsesWriter } from './openaiResponses.js';
import { typedEventsWriter } from './typedEvents.js';
import type { ProviderFormat, ProviderWriter } from './wire.js';

/** The writer of every format the kit writes: every dialect in `DIALECTS`, and the legacy Completions stream. */
export const WRITERS: Readonly<Record<ProviderFormat, ProviderWriter>> = {
  'openai-chat': openaiChatWriter,
  'openai-completions': openaiCompletionsWriter,
  'openai-responses': openaiResponsesWriter,
  anthropic: anthropicWriter,
  gemini: geminiWriter,
  ollama: ollamaWriter,
  'llamacpp-completion': llamacppCompletionWriter,
  'typed-events': typedEventsWriter,
  'chat-events': chatEventsWriter,
  'ai-sdk-ui': aiSdkUiWriter,
  'bedrock-converse': bedrockConverseWriter,
  'bedrock-invoke': bedrockInvokeWriter,
};
