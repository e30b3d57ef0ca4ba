import { ProviderError } from '../errors.js';
import { isJsonObject, nonEmptyString } from '../internal/json.js';

/**
 * A `ProviderError` from an error payload found in a stream: `{"error": {message, type, code}}`,
 * `{"error": "text"}`, `{"type": "error", "error": {...}}` or the flat `{"type":"error", message}`.
 * `where` says which frame or line carried it.
 */
export function providerErrorFrom(payload: unknown, where: string, event: number): ProviderError {
  const body = payload;
  let detail: unknown = payload;
  if (isJsonObject(payload) && payload['error'] !== undefined && payload['error'] !== null) detail = payload['error'];
  let message: string | undefined;
  let type: string | undefined;
  let code: string | number | undefined;
  if (typeof detail === 'string') {
    message = detail;
  } else if (isJsonObject(detail)) {
    message = nonEmptyString(detail['message']);
    type = nonEmptyString(detail['type']) ?? nonEmptyString(detail['status']);
    const rawCode = detail['code'];
    if (typeof rawCode === 'string' || typeof rawCode === 'number') code = rawCode;
  }
  const described = [type, code === undefined ? undefined : `code ${code}`].filter(Boolean).join(', ');
  return new ProviderError(
    `the provider reported an error at ${where}: ${message ?? 'no message'}${described ? ` (${described})` : ''}`,
    {
      position: { event },
      body,
      ...(type === undefined ? {} : { type }),
      ...(code === undefined ? {} : { code }),
    },
  );
}
