import { readFileSync } from 'fs';
import { join } from 'path';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { NdjsonParser } from '../../src/frames/NdjsonParser';
import { SseFrame, SseParser } from '../../src/frames/SseParser';
import { Utf8Decoder } from '../../src/frames/Utf8Decoder';
import { DialectFactory, DialectOptions } from '../../src/dialects/Dialect';
import { LlmStreamError } from '../../src/errors/errors';
import { bodyStream } from '../../src/testing/bodyStream';
import { ChatEvent, Completion } from '../../src/types/events';

/** What one stream assembled to: its events, and the completion or the error. */
export interface Assembled {
  events: ChatEvent[];
  completion?: Completion;
  error?: unknown;
}

/**
 * Runs raw bytes through the cores of the whole pipeline (no RxJS): UTF-8, SSE or NDJSON framing,
 * the dialect, and the completion tracker, in chunks of `chunkSize` bytes. An error gets the
 * completion so far as `partial`, as `finalizeCompletion` gives it.
 */
export function assembleBytes(
  bytes: Uint8Array,
  factory: DialectFactory,
  options: { chunkSize?: number; framing?: 'sse' | 'ndjson'; dialect?: DialectOptions } = {},
): Assembled {
  const events: ChatEvent[] = [];
  const tracker = new CompletionTracker();
  const dialect = factory((event) => {
    events.push(event);
    tracker.apply(event);
  }, options.dialect ?? {});
  const onFrame = (frame: SseFrame): void => dialect.push(frame);
  const framing = options.framing === 'ndjson' ? new NdjsonParser(onFrame) : new SseParser(onFrame);
  const decoder = new Utf8Decoder();
  // The body cut as the test kit cuts it: whole, or in pieces of `chunkSize`.
  const chunks = bodyStream(bytes, { chunking: options.chunkSize === undefined ? 'whole' : { every: options.chunkSize } }).chunks;
  try {
    for (const chunk of chunks) framing.push(decoder.push(chunk));
    decoder.end();
    framing.end();
    dialect.end();
    return { events, completion: tracker.complete() };
  } catch (error) {
    if (error instanceof LlmStreamError) error.partial = tracker.snapshot();
    return { events, error };
  }
}

/** The same for a text stream written inline. */
export function assembleText(text: string, factory: DialectFactory, options: Parameters<typeof assembleBytes>[2] = {}): Assembled {
  return assembleBytes(new TextEncoder().encode(text), factory, options);
}

/** A file as bytes. */
export function readBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

/** The path of a recording under this repository's `marbles/` (`dialects/anthropic-messages.sse`). */
export function marbleFile(relative: string): string {
  return join(__dirname, '..', '..', 'marbles', relative);
}

/** The chunk sizes a dialect's streams are read at, besides in one piece. */
export const CHUNK_SIZES: readonly number[] = [1, 2, 3, 5, 7, 8, 13, 21, 64];

/**
 * Reads `text` whole and at every size of `CHUNK_SIZES`: every reading must give the same events and
 * the same completion or error as the whole one, which is returned.
 */
export function assembleAtEverySize(text: string, factory: DialectFactory, options: Parameters<typeof assembleText>[2] = {}): Assembled {
  const whole = assembleText(text, factory, options);
  for (const chunkSize of CHUNK_SIZES) {
    expect({ chunkSize, ...assembleText(text, factory, { ...options, chunkSize }) }).toEqual({ chunkSize, ...whole });
  }
  return whole;
}

/** SSE text of `payloads`: a `data:` event each, its JSON compact as servers write it; a string as it is (`'[DONE]'`). */
export function dataEvents(...payloads: (object | string)[]): string {
  return payloads.map((payload) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`).join('');
}

/** One SSE event as typed-event servers write it: `event:` named by the data's `type`, then the data line (JSON text). */
export function typedEvent(data: string): string {
  const type = /"type":"([^"]+)"/.exec(data)?.[1];
  if (type === undefined) throw new Error(`no type in ${data}`);
  return `event: ${type}\ndata: ${data}\n\n`;
}

/** The events of one type. */
export function eventsOfType<T extends ChatEvent['type']>(events: readonly ChatEvent[], type: T): Extract<ChatEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ChatEvent, { type: T }> => event.type === type);
}
