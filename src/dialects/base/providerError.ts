import { ProviderError } from '../../errors/errors.js';
import { errorDetail } from '../../errors/errorDetail.js';

/**
 * A `ProviderError` from an error payload found in a stream: `{"error": {message, type, code}}`,
 * `{"error": "text"}`, `{"type": "error", "error": {...}}` or the flat `{"type":"error", message}`.
 * `where` says which frame or line carried it.
 */
export function providerErrorFrom(payload: unknown, where: string, event: number): ProviderError {
  const { message, type, code } = errorDetail(payload);
  const described = [type, code === undefined ? undefined : `code ${code}`].filter(Boolean).join(', ');
  return new ProviderError(`the provider reported an error at ${where}: ${message ?? 'no message'}${described ? ` (${described})` : ''}`, {
    position: { event },
    body: payload,
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
  });
}
