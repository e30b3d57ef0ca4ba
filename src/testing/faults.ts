import type { FaultOutcome } from './FaultOutcome.js';
import { partialOf } from './partialOf.js';
import { UnsupportedReplyError } from '../dialects/writing/UnsupportedReplyError.js';
import type { Frame } from '../dialects/writing/framing.js';

/**
 * What goes wrong with a stream (`providerStream(reply, format, { fault })`), each where a real one
 * goes wrong, and each ending in the error the library promises for it:
 *
 * - `cut-mid-line`: the body stops inside the line of the event in the middle of the reply (inside
 *   the message, for Bedrock's binary stream), on a character boundary: `StreamClosedEarlyError`,
 *   `reason` `mid-line` (`mid-message`);
 * - `cut-before-end`: the body stops just before the format's end signal (`[DONE]`, `message_stop`,
 *   `response.completed`, Gemini's finishing chunk, Ollama's `done` line, ...): everything else
 *   arrived; `StreamClosedEarlyError`, `no-end-signal`. For OpenAI's formats the end is the finish
 *   chunks, the usage chunk and `[DONE]`: a reply whose choices all finished is whole without `[DONE]`;
 * - `cut-in-arguments`: the body stops inside the first call whose arguments stream in two pieces or
 *   more, right after its first piece (`no-end-signal`); where calls come whole (Gemini, Ollama), inside
 *   the arguments of the first call's line (`mid-line`);
 * - `error`: after the event in the middle of the reply, the error the provider sends mid-stream (in
 *   its own shape: an `{"error": ...}` payload, an `error` event, an AWS exception message), and
 *   the end: `ProviderError`, `in-stream`;
 * - `stall`: after the event in the middle of the reply the body stays open and silent
 *   (`ProviderStream.stalls`): `StreamIdleError` (`idle`) under an idle timeout, nothing without one.
 *
 * @example
 * ```ts
 * import { providerStream, type Fault } from 'rxjs-llm-stream/testing';
 *
 * const fault: Fault = 'cut-in-arguments';
 * const stream = providerStream(reply, 'openai-chat', { fault });
 * stream.fault; // { kind: 'cut-in-arguments', error: 'StreamClosedEarlyError', reason: 'no-end-signal', partial: { ... } }
 * ```
 */
export type Fault = FaultOutcome['kind'];

/** The body a fault leaves: its bytes frame by frame (the last may be cut), and what the library makes of it. */
export interface FaultedBody {
  readonly pieces: readonly Uint8Array[];
  readonly stalls: boolean;
  readonly outcome: FaultOutcome | undefined;
}

/**
 * The body of `frames` with `fault` applied; `errorFrames(before)` gives the frames of the
 * provider's error when it comes after `before` frames. `binary` says the framing is AWS's.
 */
export function applyFault(
  frames: readonly Frame[],
  fault: Fault | undefined,
  errorFrames: (before: number) => readonly Frame[],
  format: string,
  binary: boolean,
): FaultedBody {
  const whole = (list: readonly Frame[]): Uint8Array[] => list.map((f) => f.bytes);
  if (fault === undefined) return { pieces: whole(frames), stalls: false, outcome: undefined };
  const arrived = (list: readonly Frame[]) => partialOf(list.flatMap((f) => f.carries));
  const middle = middleFrame(frames);
  switch (fault) {
    case 'cut-mid-line': {
      // A reply whose first event is its end (an empty llama.cpp reply) is cut inside that one.
      const at = Math.max(middle, 0);
      const cut = frames[at]!;
      return {
        pieces: [...whole(frames.slice(0, at)), cut.bytes.slice(0, cut.midLine)],
        stalls: false,
        outcome: closedEarly(fault, binary ? 'mid-message' : 'mid-line', arrived(frames.slice(0, at))),
      };
    }
    case 'cut-before-end': {
      const end = frames.findIndex((f) => f.end);
      const kept = frames.slice(0, end < 0 ? frames.length : end);
      return { pieces: whole(kept), stalls: false, outcome: closedEarly(fault, 'no-end-signal', arrived(kept)) };
    }
    case 'cut-in-arguments':
      return cutInArguments(frames, format, arrived);
    case 'error': {
      const kept = frames.slice(0, middle + 1);
      return {
        pieces: [...whole(kept), ...whole(errorFrames(kept.length))],
        stalls: false,
        outcome: { kind: fault, error: 'ProviderError', reason: 'in-stream', partial: arrived(kept) },
      };
    }
    case 'stall': {
      const kept = frames.slice(0, middle + 1);
      return {
        pieces: whole(kept),
        stalls: true,
        outcome: { kind: fault, error: 'StreamIdleError', reason: 'idle', partial: arrived(kept) },
      };
    }
    default:
      throw new TypeError(`providerStream: unknown fault ${JSON.stringify(fault)}`);
  }
}

/**
 * The frame in the middle of the reply: the middle one of those that carry its text, reasoning or
 * calls; for a reply with none, the middle one of the frames before the end signal (-1 when the
 * first frame is the end).
 */
function middleFrame(frames: readonly Frame[]): number {
  const output: number[] = [];
  frames.forEach((f, index) => {
    if (f.carries.some((item) => item.kind !== 'finish' && item.kind !== 'named')) output.push(index);
  });
  if (output.length > 0) return output[Math.floor((output.length - 1) / 2)]!;
  const end = frames.findIndex((f) => f.end);
  const before = end < 0 ? frames.length : end;
  return before === 0 ? -1 : Math.floor((before - 1) / 2);
}

/** The cut inside a call's arguments: after its first piece, or inside the line of a call sent whole. */
function cutInArguments(
  frames: readonly Frame[],
  format: string,
  arrived: (list: readonly Frame[]) => FaultOutcome['partial'],
): FaultedBody {
  const streamed = frames.findIndex((f) => f.carries.some((item) => item.kind === 'arguments' && !item.last));
  const wholeCall = frames.findIndex((f) => f.inArguments !== undefined);
  if (streamed >= 0 && (wholeCall < 0 || streamed < wholeCall)) {
    const kept = frames.slice(0, streamed + 1);
    return { pieces: kept.map((f) => f.bytes), stalls: false, outcome: closedEarly('cut-in-arguments', 'no-end-signal', arrived(kept)) };
  }
  if (wholeCall >= 0) {
    const kept = frames.slice(0, wholeCall);
    const cut = frames[wholeCall]!;
    return {
      pieces: [...kept.map((f) => f.bytes), cut.bytes.slice(0, cut.inArguments)],
      stalls: false,
      outcome: closedEarly('cut-in-arguments', 'mid-line', arrived(kept)),
    };
  }
  throw new UnsupportedReplyError(format, 'fault', 'cut-in-arguments needs a call whose arguments have two characters or more');
}

function closedEarly(kind: Fault, reason: 'mid-line' | 'mid-message' | 'no-end-signal', partial: FaultOutcome['partial']): FaultOutcome {
  return { kind, error: 'StreamClosedEarlyError', reason, partial };
}
