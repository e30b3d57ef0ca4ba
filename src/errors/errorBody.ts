import { ProviderError, RequestAttempt, StreamPosition } from './errors.js';
import type { RateLimits } from '../types/rateLimits.js';
import { errorDetail } from './errorDetail.js';
import { isJsonObject } from '../internal/json.js';

/** The longest piece of a text (non-JSON) error body quoted in a message. */
const QUOTED_TEXT = 200;

/** The body of an error answer: parsed when it is JSON, else the text. */
export function parseErrorBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: an HTML page, a proxy's plain text
  }
}

/**
 * The parsed body when `text` is a JSON object with an `error` member, as servers answer a request
 * they refuse (`{"error":{"code":400,"message":"...","type":"invalid_request_error"}}`); else
 * undefined. Cheap on anything else: only text that starts with `{` is parsed.
 */
export function jsonErrorObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  const body = parseErrorBody(trimmed);
  return isJsonObject(body) && body['error'] !== undefined && body['error'] !== null ? body : undefined;
}

/** Options of {@link providerErrorFromBody}. */
export interface ErrorBodyContext {
  /** The HTTP status the body came with, when it came with one. */
  readonly status?: number;
  readonly position?: StreamPosition;
  readonly cause?: unknown;
  /** The rate limits the answer's headers announced. */
  readonly rateLimits?: RateLimits;
  /** The attempts of a retrying request that ended in this answer. */
  readonly attempts?: readonly RequestAttempt[];
}

/**
 * The `ProviderError` for an error answer's body: the provider's message, type and code read from
 * whichever shape it used (see `errorDetail`), the status, and the body itself (parsed when JSON).
 */
export function providerErrorFromBody(body: unknown, context: ErrorBodyContext = {}): ProviderError {
  // A text body (an HTML page, a proxy's "Bad Gateway") is quoted in part: it can be a whole page.
  const text = typeof body === 'string' ? body.trim().slice(0, QUOTED_TEXT) : undefined;
  const { message, type, code } = text === undefined ? errorDetail(body) : { message: text || undefined, type: undefined, code: undefined };
  const what =
    context.status === undefined
      ? 'the provider answered with an error instead of a stream'
      : `the provider answered HTTP ${context.status}`;
  return new ProviderError(`${what}${message === undefined ? '' : `: ${message}`}`, {
    reason: context.status === undefined ? 'error-body' : 'http-status',
    body,
    ...(context.status === undefined ? {} : { status: context.status }),
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
    ...(context.position === undefined ? {} : { position: context.position }),
    ...(context.cause === undefined ? {} : { cause: context.cause }),
    ...(context.rateLimits === undefined ? {} : { rateLimits: context.rateLimits }),
    ...(context.attempts === undefined ? {} : { attempts: context.attempts }),
  });
}
