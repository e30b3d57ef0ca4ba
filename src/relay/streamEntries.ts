/**
 * One entry of a relayed stream as a store keeps it: a `ChatEvent` (`kind: 'event'`, `type` its
 * type, `data` its JSON), the error that ended the reply (`'error'`, `data` its `StreamErrorData` as
 * JSON), or the end (`'end'`, after which nothing follows). Ids run 1, 2, 3, ... with no gap: a
 * reader that finds one missing knows that the store trimmed it away.
 *
 * @example
 * ```ts
 * import type { StreamEntry } from 'rxjs-llm-stream/relay';
 *
 * const entry: StreamEntry = { id: 1, kind: 'event', type: 'content', data: '{"type":"content","choice":0,"text":"Hi"}' };
 * ```
 */
export interface StreamEntry {
  readonly id: number;
  readonly kind: 'event' | 'error' | 'end';
  /** The `ChatEvent`'s type for an event; `''` otherwise. */
  readonly type: string;
  readonly data: string;
}

/**
 * Where a client stands in a relayed stream, read from its `Last-Event-ID`: after entry `entry`,
 * or, in a format that writes several events for one entry (the UI message stream), after the
 * `chunk`-th of them (`12:3`).
 */
export interface ResumePosition {
  readonly entry: number;
  readonly chunk?: number;
}

/** The start of a stream: before its first entry. */
export const STREAM_START: ResumePosition = { entry: 0 };

/**
 * The position a `Last-Event-ID` (or an offset in a query) names: `12` (after entry 12) or `12:3`
 * (after the fourth event written for entry 12). `undefined`, an empty or a malformed id is the
 * start: a client that sends something this relay never wrote gets the whole stream.
 *
 * @example
 * ```ts
 * import { parseStreamPosition } from 'rxjs-llm-stream/relay';
 *
 * parseStreamPosition('12:3'); // { entry: 12, chunk: 3 }
 * ```
 */
export function parseStreamPosition(lastEventId: string | undefined): ResumePosition {
  const match = /^(\d{1,15})(?::(\d{1,9}))?$/.exec((lastEventId ?? '').trim());
  if (match === null) return STREAM_START;
  const entry = Number(match[1]);
  return match[2] === undefined ? { entry } : { entry, chunk: Number(match[2]) };
}
