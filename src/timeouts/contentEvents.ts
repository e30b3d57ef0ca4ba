import type { ChatEvent } from '../types/events.js';

/**
 * Every event type, said once to be content or not: a type added to `ChatEvent` fails to compile
 * here until it is placed, so none counts (or fails to count) by accident.
 */
const COUNTS_AS_CONTENT: { readonly [K in ChatEvent['type']]: boolean } = {
  content: true,
  reasoning: true,
  refusal: true,
  retract: true,
  'tool-call-delta': true,
  'tool-call-end': true,
  'tool-call': true,
  'tool-call-incomplete': true,
  'tool-request': true,
  audio: true,
  'image-preview': true,
  source: true,
  'reasoning-signature': true,
  'opaque-item': true,
  'provider-tool-call': true,
  'provider-tool-result': true,
  finish: true,
  start: false,
  progress: false,
  'provider-metadata': false,
  unknown: false,
  logprobs: false,
  'finish-details': false,
  'reply-timings': false,
  usage: false,
  timings: false,
  done: false,
};

function contentTypes(): ReadonlySet<ChatEvent['type']> {
  const types = Object.keys(COUNTS_AS_CONTENT) as Array<ChatEvent['type']>;
  return new Set(types.filter((type) => COUNTS_AS_CONTENT[type]));
}

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
export const CONTENT_EVENT_TYPES: ReadonlySet<ChatEvent['type']> = /* @__PURE__ */ contentTypes();
