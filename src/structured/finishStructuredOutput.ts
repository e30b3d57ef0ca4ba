import { ProtocolError, StreamClosedEarlyError } from '../errors/errors.js';
import type { JsonValue } from '../types/replyParts.js';
import { parseOutput } from './checkStructuredOutput.js';
import { describeOutput } from './describeOutput.js';
import type { StructuredOutputReader } from './StructuredOutputReader.js';

/**
 * The final check of an output read from events, when the stream has ended: its value parsed, or
 * the error that refuses it. The same checks as over a `Completion` (`parseOutput`: cut by the
 * token limit or the content filter, a refusal, none, not JSON), and before them: an output that
 * never became whole (`StreamClosedEarlyError`), and one the preview's bounds cut short, which the
 * operators could not follow to its end (`ProtocolError` with reason `too-large`).
 */
export function finishStructuredOutput(reader: StructuredOutputReader): JsonValue {
  const what = describeOutput(reader.from, reader.choice);
  if (!reader.done) {
    throw new StreamClosedEarlyError(`the stream ended before ${what} was whole, after ${reader.text.length} characters`, {
      reason: 'unfinished',
    });
  }
  const value = parseOutput(reader.state());
  const stopped = reader.json.stopped;
  if (stopped === 'max-size' || stopped === 'max-depth') {
    const bound = stopped === 'max-size' ? `maxSize (${reader.text.length} characters)` : 'maxDepth';
    throw new ProtocolError(`${what} passed the reader's ${bound}: raise the bound to follow it`, { reason: 'too-large' });
  }
  return value;
}
