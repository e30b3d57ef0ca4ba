import { isJsonObject, nonEmptyString } from '../internal/json.js';

/** What a provider's error object says: its message, type and code, where it has them. */
export interface ErrorDetail {
  readonly message: string | undefined;
  readonly type: string | undefined;
  readonly code: string | number | undefined;
}

/**
 * Reads the error a provider sent, in any of the shapes servers use: `{"error": {message, type,
 * code}}` (OpenAI, llama.cpp, vLLM), `{"error": "text"}` (Ollama), `{"type": "error", "error":
 * {...}}` (Anthropic), `{"error": {message, status, code}}` (Gemini, whose `status` is its type),
 * a flat `{message, type}`, Groq's chunk stopped by `{"x_groq": {"error": "text"}}`, or a bare string.
 */
export function errorDetail(payload: unknown): ErrorDetail {
  let detail: unknown = payload;
  if (isJsonObject(payload) && payload['error'] !== undefined && payload['error'] !== null) detail = payload['error'];
  else if (isJsonObject(payload) && isJsonObject(payload['x_groq']) && typeof payload['x_groq']['error'] === 'string')
    detail = payload['x_groq']['error'];
  if (typeof detail === 'string') return { message: nonEmptyString(detail), type: undefined, code: undefined };
  if (!isJsonObject(detail)) return { message: undefined, type: undefined, code: undefined };
  const code = detail['code'];
  return {
    message: nonEmptyString(detail['message']),
    type: nonEmptyString(detail['type']) ?? nonEmptyString(detail['status']),
    code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
  };
}
