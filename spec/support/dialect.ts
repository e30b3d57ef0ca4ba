import { readFileSync } from 'fs';
import { join } from 'path';
import { CompletionTracker } from '../../src/core/CompletionTracker';
import { NdjsonParser } from '../../src/core/NdjsonParser';
import { SseFrame, SseParser } from '../../src/core/SseParser';
import { Utf8Decoder } from '../../src/core/Utf8Decoder';
import { DialectFactory, DialectOptions } from '../../src/dialects/Dialect';
import { LlmStreamError } from '../../src/errors';
import { ChatEvent, Completion } from '../../src/events';

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
  const size = options.chunkSize ?? bytes.length;
  try {
    for (let start = 0; start < bytes.length; start += size) framing.push(decoder.push(bytes.subarray(start, start + size)));
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
