import { SseFrame } from '../../src/frames/SseParser';
import { ChatEvent } from '../../src/types/events';
import { DialectFactory, DialectOptions } from '../../src/dialects/Dialect';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';

/** A frame carrying `payload` as JSON (or as is, when it is a string). */
export function frame(payload: unknown, event = 'message'): SseFrame {
  return { event, data: typeof payload === 'string' ? payload : JSON.stringify(payload), id: '' };
}

export const DONE: SseFrame = frame('[DONE]');

/** An OpenAI chat chunk with one choice. */
export function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null) {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

/** The start event of a stream of `chunk`s (their id and model). */
export const CHUNK_START: ChatEvent = { type: 'start', id: 'chatcmpl-1', model: 'm' };

/** Runs frames through a dialect's core; returns the events and the error, if any. */
export function readDialect(
  factory: DialectFactory,
  frames: readonly SseFrame[],
  options: DialectOptions = {},
): { events: ChatEvent[]; error?: unknown } {
  const events: ChatEvent[] = [];
  const parser = factory((event) => events.push(event), options);
  try {
    for (const f of frames) parser.push(f);
    parser.end();
  } catch (error) {
    return { events, error };
  }
  return { events };
}

/** Runs frames through the openai-chat core; returns the events and the error, if any. */
export function readChat(frames: readonly SseFrame[], options?: DialectOptions): { events: ChatEvent[]; error?: unknown } {
  return readDialect(openaiChat, frames, options);
}
