import { SseParser } from '../frames/SseParser.js';
import type { TestReply } from '../dialects/writing/TestReply.js';
import { providerStream } from './writeProviderStream.js';

/** The formats whose replies also arrive over a WebSocket, one event per text message. */
export type SocketFormat = 'openai-responses' | 'openai-realtime';

/** Options of {@link socketMessages}. */
export interface SocketMessagesOptions {
  /**
   * The lane of a Responses socket the reply runs on: every event carries it as `stream_id`, as the
   * server echoes the `stream_id` of the `response.create` it answers. Two replies on two lanes can then
   * be interleaved in one socket's messages.
   */
  readonly streamId?: string;
}

/**
 * A reply as the text messages of a WebSocket: the events `providerStream` writes for it, one JSON
 * text each, in order, for the socket splitters (`responsesSocketReplies`, `realtimeSocketReplies`)
 * in marble tests. A socket closed mid-reply is these messages cut short; two replies on one socket
 * are two lists interleaved (give each reply its own `id`, and each its own `streamId` on a Responses
 * socket).
 *
 * @example
 * ```ts
 * import { socketMessages } from 'rxjs-llm-stream/testing';
 * import { responsesSocketReplies } from 'rxjs-llm-stream';
 *
 * const messages = socketMessages({ id: 'resp_1', choices: [{ text: 'Hi' }] }, 'openai-responses', { streamId: 'a' });
 * const replies$ = cold('a-b-c-d|', Object.fromEntries(messages.map((m, i) => ['abcd'[i], m]))).pipe(responsesSocketReplies());
 * ```
 *
 * @param reply The reply, as `providerStream` takes it.
 * @param format `openai-responses` (the Responses API's socket) or `openai-realtime` (a Realtime session's).
 * @param options The lane of a Responses reply.
 * @returns The reply's events, each as the JSON text of one message.
 */
export function socketMessages(reply: TestReply, format: SocketFormat, options: SocketMessagesOptions = {}): string[] {
  const stream = providerStream(reply, format);
  const decoder = new TextDecoder();
  const body = stream.chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
  const events: string[] = [];
  if (format === 'openai-realtime') {
    // Written as NDJSON: one event a line.
    for (const line of body.split('\n')) if (line.trim() !== '') events.push(line);
  } else {
    const parser = new SseParser((frame) => {
      if (frame.data !== '[DONE]') events.push(frame.data);
    });
    parser.push(body);
    parser.end();
  }
  const { streamId } = options;
  if (streamId === undefined) return events;
  return events.map((text) => JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), stream_id: streamId }));
}
