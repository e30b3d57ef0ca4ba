import type { JsonValue } from '../types/events.js';

/**
 * The finish reasons of the AI SDK's UI message stream (`finish.finishReason`): the library's own,
 * spelled with hyphens.
 */
export type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/**
 * One chunk of the AI SDK's UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`), the
 * chunks `toUiMessageStream` writes and the `ai-sdk-ui` dialect reads: a message `start`, its steps,
 * text and reasoning parts opened, grown and closed by id, tool inputs streamed and made available,
 * the `finish`, or an `error`. Each is sent as `data: <json>` and the stream ends with `data: [DONE]`.
 *
 * @example
 * ```ts
 * import type { UiMessageChunk } from 'rxjs-llm-stream';
 *
 * const chunks: UiMessageChunk[] = [
 *   { type: 'start', messageId: 'msg-1' },
 *   { type: 'start-step' },
 *   { type: 'text-start', id: 'text-1' },
 *   { type: 'text-delta', id: 'text-1', delta: 'Hello' },
 *   { type: 'text-end', id: 'text-1' },
 *   { type: 'finish-step' },
 *   { type: 'finish', finishReason: 'stop' },
 * ];
 * ```
 */
export type UiMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; readonly id: string }
  | { readonly type: 'text-delta' | 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string; readonly inputEncoding?: 'text' }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: 'tool-input-available'; readonly toolCallId: string; readonly toolName: string; readonly input: JsonValue }
  | {
      readonly type: 'tool-input-error';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: JsonValue;
      readonly errorText: string;
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: JsonValue }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'source-url'; readonly sourceId: string; readonly url: string; readonly title?: string }
  | {
      readonly type: `data-${string}`;
      readonly id?: string;
      readonly data: JsonValue;
      /** Given to the client's `onData` only, never a part of the message. */
      readonly transient?: boolean;
    }
  | { readonly type: 'finish-step' }
  | { readonly type: 'reset-step' }
  | { readonly type: 'message-metadata'; readonly messageMetadata: { readonly [key: string]: JsonValue } }
  | { readonly type: 'finish'; readonly finishReason?: UiFinishReason }
  | { readonly type: 'error'; readonly errorText: string };

/**
 * The response headers of a UI message stream, as the AI SDK's `useChat` expects them: an event
 * stream, not cached, and the protocol's version header.
 *
 * @example
 * ```ts
 * import { uiMessageStreamHeaders } from 'rxjs-llm-stream';
 *
 * response.writeHead(200, uiMessageStreamHeaders);
 * ```
 */
export const uiMessageStreamHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});
