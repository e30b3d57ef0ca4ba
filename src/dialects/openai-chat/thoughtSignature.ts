import { isJsonObject } from '../../internal/json.js';

/**
 * True for Gemini's `extra_content` (its OpenAI-compatible endpoint) when it holds a
 * `google.thought_signature`, which Gemini 3 wants back where it came: on the message, on the call
 * (a call sent back without it is a 400).
 *
 * @example
 * ```ts
 * isThoughtSignature({ google: { thought_signature: 'c2ln' } }); // true
 * isThoughtSignature({ google: { thought: true } }); // false
 * ```
 */
export function isThoughtSignature(extra: unknown): boolean {
  if (!isJsonObject(extra)) return false;
  const google = extra['google'];
  return isJsonObject(google) && typeof google['thought_signature'] === 'string' && google['thought_signature'] !== '';
}
