import type { DialectName } from '../dialects/registry.js';

/**
 * The `gen_ai.provider.name` of each dialect's provider: the conventions' well-known value where one
 * applies (`openai`, `anthropic`, `aws.bedrock`, `gcp.gemini`, `cohere`, `mistral_ai`), a custom one
 * where none does (`ollama`, `llama.cpp`). Formats that are not a provider's (`chat-events`,
 * `typed-events`, `ai-sdk-ui`, `auto`) have none.
 */
const PROVIDER_NAMES: Readonly<Partial<Record<DialectName, string>>> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'openai-realtime': 'openai',
  anthropic: 'anthropic',
  'bedrock-converse': 'aws.bedrock',
  'bedrock-invoke': 'aws.bedrock',
  // The Gemini API (generativelanguage.googleapis.com); Vertex AI's endpoint is `gcp.vertex_ai`.
  gemini: 'gcp.gemini',
  'gemini-interactions': 'gcp.gemini',
  cohere: 'cohere',
  'mistral-conversations': 'mistral_ai',
  ollama: 'ollama',
  'llamacpp-completion': 'llama.cpp',
};

/**
 * The `gen_ai.provider.name` for a dialect, after the GenAI semantic conventions, or `null` for a
 * format that is no provider's (`chat-events`, `typed-events`, `ai-sdk-ui`, `auto`). The value says
 * whose format it is: an OpenAI-compatible server that is not OpenAI (Groq, DeepSeek, a local
 * server) should be named by the app (`groq`, `deepseek`, ...), and Gemini on Vertex AI is
 * `gcp.vertex_ai`.
 *
 * @example
 * ```ts
 * import { genAiProviderName } from 'rxjs-llm-stream';
 *
 * genAiProviderName('bedrock-converse'); // 'aws.bedrock'
 * ```
 */
export function genAiProviderName(dialect: DialectName): string | null {
  return PROVIDER_NAMES[dialect] ?? null;
}
