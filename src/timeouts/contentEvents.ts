import type { ChatEvent } from '../types/events.js';

/**
 * The events that count as content for `replyTimeouts`: what the model itself produced. Its text
 * (`content`, `reasoning`, `refusal`, `retract`), its tool calls in any form (`tool-call-delta`,
 * `tool-call-end`, `tool-call`, `tool-call-incomplete`, `tool-request`), what else it made or cited
 * (`audio`, `image-preview`, `source`, `reasoning-signature`, `opaque-item`, `provider-tool-call`,
 * `provider-tool-result`), and its `finish`.
 *
 * Not content: what says the stream is alive or describes it without producing anything: `start`,
 * `progress` (a prompt still being read), `provider-metadata` (where a provider's `ping` and
 * keep-alive events land), `unknown`, `logprobs` (it comes with content already counted),
 * `finish-details`, `usage`, `timings` and `done`. SSE comments and empty frames make no event at
 * all.
 *
 * @example
 * ```ts
 * import { CONTENT_EVENT_TYPES } from 'rxjs-llm-stream';
 *
 * CONTENT_EVENT_TYPES.has('content'); // true
 * CONTENT_EVENT_TYPES.has('provider-metadata'); // false
 * ```
 */
export const CONTENT_EVENT_TYPES: ReadonlySet<ChatEvent['type']> = new Set<ChatEvent['type']>([
  'content',
  'reasoning',
  'refusal',
  'retract',
  'tool-call-delta',
  'tool-call-end',
  'tool-call',
  'tool-call-incomplete',
  'tool-request',
  'audio',
  'image-preview',
  'source',
  'reasoning-signature',
  'opaque-item',
  'provider-tool-call',
  'provider-tool-result',
  'finish',
]);
