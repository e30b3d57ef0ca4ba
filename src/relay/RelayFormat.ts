import { StreamErrorData, errorFromStreamErrorData, streamErrorData } from '../errors/streamErrorData.js';
import { ErrorExposureOptions, clientErrorData, publicErrorData, publicErrorText } from '../errors/publicErrorData.js';
import { LlmStreamError } from '../errors/errors.js';
import { UiCheckpoint } from './uiCheckpoints.js';

/** Options of {@link relayFormat}. */
export interface RelayFormatOptions extends ErrorExposureOptions {
  /**
   * The UI message stream only: where the encoder stood after an entry at or before the client's
   * position (`readUiCheckpoint`), so that reading starts there, not at the first entry.
   */
  readonly checkpoint?: UiCheckpoint;
}
import { StreamEntry, ResumePosition } from './streamEntries.js';
import { UiMessageEncoder } from '../ui/UiMessageEncoder.js';
import { UiMessageChunk } from '../ui/uiMessageChunks.js';
import { ChatEvent } from '../types/events.js';

/**
 * One SSE event for a client, before it is written: its `event` name (`message` writes none), its
 * `id`, its `data`. A frame that may grow by text while the client is slow says how (`merge`): the
 * frames with the same `key` that wait next to each other become one, whose data is `render` of
 * their texts joined, with the last one's id. Nothing is lost, and a slow client gets fewer events.
 */
export interface RelayFrame {
  readonly event: string;
  readonly id: string;
  readonly data: string;
  readonly merge?: { readonly key: string; readonly text: string; render(text: string): string };
}

/**
 * How a relay writes a stream's entries to one client: the frames of each entry, and of a failure
 * that no entry holds (the store failed, the producer was lost). One per client, since a format may
 * keep state (the UI message stream's open parts).
 */
export interface RelayFormat {
  readonly name: RelayFormatName;
  /**
   * Where reading must start to resume after `position`: there, or for the UI stream at its checkpoint
   * (the start without one), whose entries up to the position are encoded silently.
   */
  readonly readAfter: number;
  /** The frames for one entry, none of them at or before the position resumed from. */
  frames(entry: StreamEntry): RelayFrame[];
  /** The frames for a failure outside the stream; `lastId` is the id the client holds. */
  fail(error: unknown, lastId: string): RelayFrame[];
}

/** The formats a relay speaks: this library's `ChatEvent`s, or the AI SDK's UI message stream. */
export type RelayFormatName = 'chat-events' | 'ui-message-stream';

/** The events of text that grows, which a slow client may get joined. */
const TEXT_EVENTS: ReadonlySet<string> = new Set(['content', 'reasoning', 'refusal']);

/**
 * The `ChatEvent` format, as `toMessageEvents` writes it: `event:` the type, `id:` the entry's id,
 * `data:` the event as JSON; a failure is one `error` event with `StreamErrorData`. Consecutive text
 * events of one choice (`content`, `reasoning`, `refusal`) merge while the client is slow.
 */
function chatEventsFormat(after: ResumePosition, exposure: ErrorExposureOptions): RelayFormat {
  // The stored error is the server's whole description: a client gets its codes and a fixed message.
  const errorData = (stored: string): string =>
    exposure.exposeErrors === true ? stored : JSON.stringify(publicErrorData(JSON.parse(stored) as StreamErrorData));
  return {
    name: 'chat-events',
    readAfter: after.entry,
    frames(entry) {
      if (entry.id <= after.entry || entry.kind === 'end') return [];
      const id = String(entry.id);
      if (entry.kind === 'error') return [{ event: 'error', id, data: errorData(entry.data) }];
      if (!TEXT_EVENTS.has(entry.type)) return [{ event: entry.type, id, data: entry.data }];
      const event = JSON.parse(entry.data) as { type: string; choice: number; text: string; reasoningTokens?: number };
      // Only the plain shape merges: an event with more fields (reasoningTokens) keeps them, alone.
      if (Object.keys(event).length !== 3) return [{ event: entry.type, id, data: entry.data }];
      const { type, choice } = event;
      const render = (text: string): string => JSON.stringify({ type, choice, text });
      return [{ event: type, id, data: entry.data, merge: { key: `${type}:${choice}`, text: event.text, render } }];
    },
    fail: (error, lastId) => [{ event: 'error', id: lastId, data: JSON.stringify(clientErrorData(error, exposure)) }],
  };
}

/** A UI chunk as a frame; deltas of one part merge. */
function uiFrame(chunk: UiMessageChunk, id: string): RelayFrame {
  const data = JSON.stringify(chunk);
  if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') {
    const { type, id: part } = chunk;
    return {
      event: 'message',
      id,
      data,
      merge: { key: `${type}:${part}`, text: chunk.delta, render: (delta) => JSON.stringify({ type, id: part, delta }) },
    };
  }
  if (chunk.type === 'tool-input-delta') {
    const { type, toolCallId } = chunk;
    const render = (inputTextDelta: string): string => JSON.stringify({ type, toolCallId, inputTextDelta });
    return { event: 'message', id, data, merge: { key: `${type}:${toolCallId}`, text: chunk.inputTextDelta, render } };
  }
  return { event: 'message', id, data };
}

/**
 * The AI SDK's UI message stream, as `toUiMessageStream` and `encodeUiMessageSse` write it, with
 * `id: <entry>:<k>` on the k-th chunk written for an entry, and `data: [DONE]` at the end. The
 * encoder has state (the open parts), so a resumed client's stream is encoded from the checkpoint
 * before its position (`options.checkpoint`), or else from the first entry, and only what follows its
 * position is written.
 */
function uiMessageStreamFormat(after: ResumePosition, options: RelayFormatOptions): RelayFormat {
  const errorText = (error: unknown): string =>
    options.exposeErrors === true && error instanceof LlmStreamError ? error.message : publicErrorText(streamErrorData(error));
  // A checkpoint past what the client has would skip events it lacks: only one at or before its position is used.
  const through = after.chunk === undefined ? after.entry : after.entry - 1;
  const checkpoint = options.checkpoint !== undefined && options.checkpoint.entry <= through ? options.checkpoint : undefined;
  const encoder = new UiMessageEncoder({ errorText }, checkpoint?.state);
  const skipped = (entry: number, chunk: number): boolean =>
    entry < after.entry || (entry === after.entry && (after.chunk === undefined || chunk <= after.chunk));
  const framesOf = (entry: number, chunks: readonly UiMessageChunk[], done: boolean): RelayFrame[] => {
    const frames: RelayFrame[] = [];
    chunks.forEach((chunk, k) => {
      if (!skipped(entry, k)) frames.push(uiFrame(chunk, `${entry}:${k}`));
    });
    if (done && !skipped(entry, chunks.length)) frames.push({ event: 'message', id: `${entry}:${chunks.length}`, data: '[DONE]' });
    return frames;
  };
  return {
    name: 'ui-message-stream',
    readAfter: checkpoint?.entry ?? 0,
    frames(entry) {
      if (entry.kind === 'end') return framesOf(entry.id, encoder.end(), true);
      if (entry.kind === 'error') return framesOf(entry.id, encoder.fail(errorFromStreamErrorData(JSON.parse(entry.data))), false);
      return framesOf(entry.id, encoder.encode(JSON.parse(entry.data) as ChatEvent), false);
    },
    fail: (error, lastId) => encoder.fail(error).map((chunk) => uiFrame(chunk, lastId)),
  };
}

/**
 * The format named, for one client that resumes after `position` (the start by default).
 *
 * @example
 * ```ts
 * import { relayFormat, parseStreamPosition } from 'rxjs-llm-stream/relay';
 *
 * const format = relayFormat('chat-events', parseStreamPosition(request.headers['last-event-id'] as string | undefined));
 * ```
 *
 * An error reaches the client as its codes and a fixed message (`publicErrorData`, and
 * `publicErrorText` for the UI stream's `errorText`): the provider's or the store's own message stays
 * in the store and the server's log, unless `exposeErrors` is set.
 *
 * @param name `chat-events` (default) or `ui-message-stream`.
 * @param position Where the client stands.
 * @param options `exposeErrors`: send errors' own messages (off by default); `checkpoint` (UI stream).
 * @returns A fresh format for that client.
 */
export function relayFormat(
  name: RelayFormatName = 'chat-events',
  position: ResumePosition = { entry: 0 },
  options: RelayFormatOptions = {},
): RelayFormat {
  return name === 'ui-message-stream' ? uiMessageStreamFormat(position, options) : chatEventsFormat(position, options);
}
