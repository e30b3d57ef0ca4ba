import { awsEventMessage, awsExceptionMessage } from './awsEventStream.js';
import type { Carried, Framing, WireEvent } from './wire.js';

/** One event as bytes, with what a fault needs to know of it. */
export interface Frame {
  readonly bytes: Uint8Array;
  readonly carries: readonly Carried[];
  readonly end: boolean;
  /**
   * Where to cut the frame "mid-line": a byte offset inside its payload's line (or, for a binary
   * message, inside the message), on a character boundary, neither at its start nor at its end.
   */
  readonly midLine: number;
  /** Where to cut inside the arguments of a call the frame carries whole, when it carries one. */
  readonly inArguments: number | undefined;
}

const encoder = new TextEncoder();

/** The frames of `events` in the given framing. */
export function frame(events: readonly WireEvent[], framing: Framing): Frame[] {
  return events.map((event) => (framing === 'aws' ? awsFrame(event) : textFrame(event, framing)));
}

function textFrame(event: WireEvent, framing: Exclude<Framing, 'aws'>): Frame {
  let head = '';
  let line: string;
  let tail: string;
  if (framing === 'ndjson') {
    line = event.data;
    tail = '\n';
  } else {
    const eol = event.lineEnd ?? (framing === 'sse-crlf' ? '\r\n' : '\n');
    if (event.comment) {
      line = `: ${event.data}`;
    } else {
      if (event.event !== undefined) head += `event: ${event.event}${eol}`;
      if (event.id !== undefined) head += `id: ${event.id}${eol}`;
      line = `data: ${event.data}`;
    }
    tail = `${eol}${eol}`;
  }
  const headBytes = encoder.encode(head).length;
  const bytes = encoder.encode(head + line + tail);
  const lineBytes = encoder.encode(line).length;
  let inArguments: number | undefined;
  if (event.wholeArguments !== undefined) {
    // Found by its key as well: the same text may stand elsewhere in the line (a name, the model).
    const { key, text } = event.wholeArguments;
    const member = `${JSON.stringify(key)}:`;
    const at = line.indexOf(member + text);
    if (at < 0) throw new Error(`the arguments ${text} are not in the event they were written in`);
    const start = headBytes + encoder.encode(line.slice(0, at + member.length)).length;
    inArguments = charBoundary(bytes, start + Math.floor(encoder.encode(text).length / 2), start + 1);
  }
  return {
    bytes,
    carries: event.carries ?? [],
    end: event.end === true,
    midLine: charBoundary(bytes, headBytes + Math.floor(lineBytes / 2), headBytes + 1),
    inArguments,
  };
}

function awsFrame(event: WireEvent): Frame {
  const bytes =
    event.exception === undefined ? awsEventMessage(event.event ?? 'chunk', event.data) : awsExceptionMessage(event.exception, event.data);
  return { bytes, carries: event.carries ?? [], end: event.end === true, midLine: Math.floor(bytes.length / 2), inArguments: undefined };
}

/**
 * `at` moved back to the start of the character it falls in (a byte that is no UTF-8 continuation
 * byte), but not before `floor`: a cut there leaves whole characters, so the stream ends mid-line
 * rather than mid-character.
 */
function charBoundary(bytes: Uint8Array, at: number, floor: number): number {
  let cut = at;
  while (cut > floor && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return Math.max(cut, floor);
}
