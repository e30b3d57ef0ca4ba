import { from, OperatorFunction, tap, toArray } from 'rxjs';
import { awsEventStreamFrames } from '../../src/frames/awsEventStreamFrames';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { SseFrame } from '../../src/frames/SseParser';
import { sseFrames } from '../../src/frames/sseFrames';
import { DialectName } from '../../src/dialects/registry';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ChatEvent, Completion } from '../../src/types/events';
import { chunksOf, utf8 } from './chunking';
import { collectSync } from './collect';

/** How a format's bytes become frames. */
export type Framing = 'sse' | 'ndjson' | 'aws';

/** The chunkings a reply is read at: 1, 7 and 64 bytes, and whole. */
export const CHUNKINGS: readonly (number | 'whole')[] = [1, 7, 64, 'whole'];

const framesOf = (framing: Framing): OperatorFunction<Uint8Array, SseFrame> =>
  framing === 'aws' ? awsEventStreamFrames() : (source) => source.pipe(decodeUtf8(), framing === 'sse' ? sseFrames() : ndjsonFrames());

function pieces(bytes: Uint8Array, chunking: number | 'whole'): Uint8Array[] {
  return chunking === 'whole' ? [bytes] : chunksOf(bytes, chunking);
}

/**
 * The README pipeline (frames, `assembleChunks` with the dialect named, `groupToolCallsByIndex`,
 * `finalizeCompletion`) over `body` at every chunking of `CHUNKINGS`: each must give the same
 * completion or the same error, which is returned with the events `groupToolCallsByIndex` passed on.
 */
export function readReply(
  body: string | Uint8Array,
  dialect: DialectName,
  framing: Framing = 'sse',
): { completion?: Completion; events: ChatEvent[]; error?: unknown } {
  const bytes = typeof body === 'string' ? utf8(body) : body;
  let first: { completion?: Completion; events: ChatEvent[]; error?: unknown } | undefined;
  for (const chunking of CHUNKINGS) {
    const events: ChatEvent[] = [];
    const outcome = collectSync(
      from(pieces(bytes, chunking)).pipe(
        framesOf(framing),
        assembleChunks({ dialect }),
        groupToolCallsByIndex(),
        tap((event) => events.push(event)),
        finalizeCompletion(),
        toArray(),
      ),
    );
    const read = outcome.error === undefined ? { completion: outcome.values[0]?.[0], events } : { error: outcome.error, events };
    if (first === undefined) first = read;
    else expect({ chunking, ...read }).toEqual({ chunking, ...first });
  }
  return first!;
}

/** SSE text of `payloads`, one `data:` line each (a string as it is: `'[DONE]'`), named by `event:` when `named`. */
export function sseOf(payloads: readonly (object | string)[], named = false): string {
  return payloads
    .map((payload) => {
      const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const type = named && typeof payload === 'object' ? (payload as { type?: unknown }).type : undefined;
      return `${typeof type === 'string' ? `event: ${type}\n` : ''}data: ${data}\n\n`;
    })
    .join('');
}
