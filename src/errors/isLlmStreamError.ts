import { LlmStreamError } from './errors.js';

// The cross-realm check, apart from the classes: it names every concrete error class of the package,
// the relay's included, which `errors.ts` does not import.

/**
 * True for any error raised by this library, including one created in another realm (an iframe, a second copy of the
 * package), where `instanceof` fails.
 *
 * @example
 * ```ts
 * import { isLlmStreamError } from 'rxjs-llm-stream';
 *
 * if (isLlmStreamError(err)) report(err.name, err.partial);
 * ```
 */
export function isLlmStreamError(value: unknown): value is LlmStreamError {
  if (value instanceof LlmStreamError) return true;
  if (!(value instanceof Error) && (typeof value !== 'object' || value === null)) return false;
  const name = (value as { name?: unknown }).name;
  return typeof name === 'string' && LIBRARY_ERROR_NAMES.has(name) && 'partial' in value;
}

/** Names of the concrete error classes, for the cross-realm check. */
const LIBRARY_ERROR_NAMES: ReadonlySet<string> = new Set([
  'StreamClosedEarlyError',
  'ProtocolError',
  'ProviderError',
  'StreamIdleError',
  'ToolArgumentsError',
  'ToolLoopError',
  'StructuredOutputError',
  'IncompleteOutputError',
  'SlowClientError',
]);
