/**
 * Helpers of the Anthropic specs that read streams written out as SSE text: each stream runs
 * through the whole pipeline of cores (UTF-8, SSE, the dialect, the completion tracker) in one
 * piece and cut at several chunk sizes, which must all agree.
 */
import { anthropic } from '../../src/dialects/anthropic/anthropic';
import { DialectOptions } from '../../src/dialects/Dialect';
import { ChatEvent } from '../../src/types/events';
import { Assembled, assembleText } from '../support/dialect';

/** The chunk sizes every stream is also read at (bytes): frames, lines and JSON split anywhere. */
const CHUNK_SIZES = [1, 2, 5, 13, 64];

/** What is compared between readings: the events, the completion, and the error's class and message. */
function outcome(result: Assembled) {
  const error = result.error instanceof Error ? { name: result.error.name, message: result.error.message } : result.error;
  return { events: result.events, completion: result.completion, error };
}

/**
 * Reads `text` with the anthropic dialect in one piece and at every chunk size of `CHUNK_SIZES`,
 * checks that they all give the same, and returns the reading in one piece.
 */
export function readAnthropic(text: string, options: DialectOptions = {}): Assembled {
  const whole = assembleText(text, anthropic, { dialect: options });
  for (const chunkSize of CHUNK_SIZES) {
    expect({ chunkSize, ...outcome(assembleText(text, anthropic, { chunkSize, dialect: options })) }).toEqual({
      chunkSize,
      ...outcome(whole),
    });
  }
  return whole;
}

/** The events of one type, in order. */
export function ofType<T extends ChatEvent['type']>(events: readonly ChatEvent[], type: T): Extract<ChatEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ChatEvent, { type: T }> => event.type === type);
}
