import { SseFrame } from '../../src/frames/SseParser';
import { DialectFactory } from '../../src/dialects/Dialect';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { Completion } from '../../src/types/events';

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
