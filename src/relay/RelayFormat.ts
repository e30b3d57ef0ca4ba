import { StreamErrorData, errorFromStreamErrorData, streamErrorData } from '../errors/streamErrorData.js';
import { ErrorExposureOptions, clientErrorData, publicErrorData, publicErrorText } from '../errors/publicErrorData.js';
import { LlmStreamError } from '../errors/errors.js';
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
  /** Where reading must start to resume after `position` (the UI stream replays from the start, silently). */
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
 * encoder has state (the open parts), so a resumed client's stream is encoded from the first entry
 * and only what follows its position is written.
 */
function uiMessageStreamFormat(after: ResumePosition, exposure: ErrorExposureOptions): RelayFormat {
  const errorText = (error: unknown): string =>
    exposure.exposeErrors === true && error instanceof LlmStreamError ? error.message : publicErrorText(streamErrorData(error));
  const encoder = new UiMessageEncoder({ errorText });
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
    readAfter: 0,
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
 * @param options `exposeErrors`: send errors' own messages (off by default).
 * @returns A fresh format for that client.
 */
export function relayFormat(
  name: RelayFormatName = 'chat-events',
  position: ResumePosition = { entry: 0 },
  options: ErrorExposureOptions = {},
): RelayFormat {
  return name === 'ui-message-stream' ? uiMessageStreamFormat(position, options) : chatEventsFormat(position, options);
}
