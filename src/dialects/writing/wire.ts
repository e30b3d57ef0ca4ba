import type { DialectName } from '../registry.js';
import type { FinishReason } from '../../types/replyParts.js';
import type { TestReply } from './TestReply.js';

/**
 * What one event adds to the reply, as its writer put it there: the kit's own account of the bytes,
 * from which a fault's `partial` is told without reading them back.
 */
export type Carried =
  | { readonly kind: 'text' | 'reasoning'; readonly choice: number; readonly text: string }
  | { readonly kind: 'call'; readonly choice: number; readonly index: number; readonly id: string | null; readonly name: string }
  | { readonly kind: 'arguments'; readonly choice: number; readonly index: number; readonly text: string; readonly last: boolean }
  | { readonly kind: 'finish'; readonly choice: number; readonly reason: FinishReason }
  /** An event that names the choice and carries nothing the partial shows (a reasoning signature). */
  | { readonly kind: 'named'; readonly choice: number };

/** One event of a provider's stream, before its framing: SSE, NDJSON or an AWS event-stream message. */
export interface WireEvent {
  /** The SSE `event:` name, or the AWS `:event-type` (absent: an unnamed SSE event, an NDJSON line). */
  readonly event?: string;
  /** The SSE `id:`, for formats that number their events. */
  readonly id?: string;
  /** The payload: JSON text, `[DONE]`, or a comment's text. */
  readonly data: string;
  /** An SSE comment (`: keep-alive`): `data` is its text. */
  readonly comment?: true;
  /** An AWS `exception` message of this `:exception-type` instead of an event. */
  readonly exception?: string;
  /** What the event adds to the reply. */
  readonly carries?: readonly Carried[];
  /** The event is the format's end signal, or comes after it: a cut before the end drops it. */
  readonly end?: true;
  /**
   * A call's arguments that this event carries whole (Gemini, Ollama): the member of `data` that
   * holds them, its key and its value's JSON text.
   */
  readonly wholeArguments?: { readonly key: string; readonly text: string };
  /** This event's SSE line end, where a stream mixes them (the typed-event specification's own test does). */
  readonly lineEnd?: '\n' | '\r\n';
}

/** How events become bytes: SSE with LF or CRLF line ends, NDJSON, or AWS's binary event stream. */
export type Framing = 'sse' | 'sse-crlf' | 'ndjson' | 'aws';

/**
 * The formats the kit writes: every dialect the library reads (`DIALECTS`), and
 * `openai-completions`, the legacy `/v1/completions` stream, which the `openai-chat` dialect reads.
 *
 * @example
 * ```ts
 * import { providerStream, type ProviderFormat } from 'rxjs-llm-stream/testing';
 *
 * const formats: ProviderFormat[] = ['openai-chat', 'anthropic', 'bedrock-converse'];
 * const streams = formats.map((format) => providerStream(reply, format));
 * ```
 */
export type ProviderFormat = Exclude<DialectName, 'auto'> | 'openai-completions';

/** A format's writer: the events of a reply and of an error, and how they are framed. */
export interface ProviderWriter {
  /** The dialect that reads the stream. */
  readonly dialect: Exclude<DialectName, 'auto'>;
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly framing: Framing;
  /** The events of the whole reply; throws `UnsupportedReplyError` for a part the format cannot carry. */
  write(reply: TestReply): readonly WireEvent[];
  /**
   * The events of an error as the provider sends one mid-stream, after `before` events; the stream
   * ends after them.
   */
  error(before: number): readonly WireEvent[];
}

/** The text of a reply cut into the pieces a provider streams: a word (with the space before it) at a time. */
export function textPieces(text: string): string[] {
  return text.match(/\s*\S{1,8}|\s+/gu) ?? [];
}

/**
 * Argument text cut into the pieces a provider streams: a few characters at a time, never inside a
 * code point, and at least two pieces when the text has two characters, so that a cut inside the
 * arguments always has a piece to cut after.
 */
export function argumentPieces(text: string): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const size = Math.max(1, Math.min(6, Math.ceil(points.length / 2)));
  const pieces: string[] = [];
  for (let at = 0; at < points.length; at += size) pieces.push(points.slice(at, at + size).join(''));
  return pieces;
}

/**
 * `padding(n)`: the `p` field Amazon Bedrock adds to its events so that their sizes do not tell the
 * tokens: a prefix of the alphabet, its length varying from event to event.
 */
export function padding(n: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return alphabet.slice(0, 1 + ((n * 17) % alphabet.length));
}
