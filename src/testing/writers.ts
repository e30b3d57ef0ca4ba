import { aiSdkUiWriter } from '../dialects/ai-sdk-ui/aiSdkUiWriter.js';
import { anthropicWriter } from '../dialects/anthropic/anthropicWriter.js';
import { bedrockConverseWriter } from '../dialects/bedrock-converse/bedrockConverseWriter.js';
import { bedrockInvokeWriter } from '../dialects/bedrock-invoke/bedrockInvokeWriter.js';
import { chatEventsWriter } from '../dialects/chat-events/chatEventsWriter.js';
import { cohereWriter } from '../dialects/cohere/cohereWriter.js';
import { geminiWriter } from '../dialects/gemini/geminiWriter.js';
import { geminiInteractionsWriter } from '../dialects/gemini-interactions/geminiInteractionsWriter.js';
import { llamacppCompletionWriter } from '../dialects/llamacpp-completion/llamacppCompletionWriter.js';
import { mistralConversationsWriter } from '../dialects/mistral-conversations/mistralConversationsWriter.js';
import { ollamaWriter } from '../dialects/ollama/ollamaWriter.js';
import { openaiChatWriter } from '../dialects/openai-chat/openaiChatWriter.js';
import { openaiCompletionsWriter } from '../dialects/openai-chat/openaiCompletionsWriter.js';
import { openaiRealtimeWriter } from '../dialects/openai-realtime/openaiRealtimeWriter.js';
import { openaiResponsesWriter } from '../dialects/openai-responses/openaiResponsesWriter.js';
import { typedEventsWriter } from '../dialects/typed-events/typedEventsWriter.js';
import type { ProviderFormat, ProviderWriter } from '../dialects/writing/wire.js';

/** The writer of every format the kit writes: every dialect in `DIALECTS`, and the legacy Completions stream. */
export const WRITERS: Readonly<Record<ProviderFormat, ProviderWriter>> = {
  'openai-chat': openaiChatWriter,
  'openai-completions': openaiCompletionsWriter,
  'openai-responses': openaiResponsesWriter,
  'openai-realtime': openaiRealtimeWriter,
  anthropic: anthropicWriter,
  gemini: geminiWriter,
  ollama: ollamaWriter,
  'llamacpp-completion': llamacppCompletionWriter,
  'typed-events': typedEventsWriter,
  'chat-events': chatEventsWriter,
  'ai-sdk-ui': aiSdkUiWriter,
  'bedrock-converse': bedrockConverseWriter,
  'bedrock-invoke': bedrockInvokeWriter,
  cohere: cohereWriter,
  'mistral-conversations': mistralConversationsWriter,
  'gemini-interactions': geminiInteractionsWriter,
};
