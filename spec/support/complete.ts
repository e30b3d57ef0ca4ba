import { SseFrame } from '../../src/frames/SseParser';
import { DialectFactory } from '../../src/dialects/Dialect';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { of, toArray } from 'rxjs';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ChatEvent, Completion } from '../../src/types/events';
import { collectSync } from './collect';

/** Frames through a dialect and a tracker, no scheduler: the completion, or the error. */
export function complete(dialect: DialectFactory, frames: readonly SseFrame[]): { completion?: Completion; error?: unknown } {
  const tracker = new CompletionTracker();
  const parser = dialect((event) => tracker.apply(event), {});
  try {
    for (const f of frames) parser.push(f);
    parser.end();
    return { completion: tracker.complete() };
  } catch (error) {
    return { error };
  }
}

/**
 * The events of `text` through the README pipeline up to `groupToolCallsByIndex`, read at once: what
 * a UI sees, `tool-call` events with their calls' provider metadata among them.
 */
export function groupedEvents(text: string, dialect: DialectFactory): ChatEvent[] {
  const outcome = collectSync(
    of(new TextEncoder().encode(text)).pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect }), groupToolCallsByIndex(), toArray()),
  );
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.values[0]!;
}
