import { Observable, OperatorFunction } from 'rxjs';
import { SseEncoder } from './SseEncoder.js';
import { encodeUiChunks } from './encodeUiChunks.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { UiMessageEncoder, UiMessageEncoderOptions } from './UiMessageEncoder.js';
import { UiMessageChunk } from './uiMessageChunks.js';
import { ChatEvent } from '../types/events.js';
import { ErrorExposureOptions, publicErrorText } from '../errors/publicErrorData.js';
import { streamErrorData } from '../errors/streamErrorData.js';
import { LlmStreamError } from '../errors/errors.js';

/** Options of {@link toUiMessageStream}. */
export interface UiMessageStreamOptions extends UiMessageEncoderOptions, ErrorExposureOptions {
  /** Told of the failure, with its own message, before the client gets the `error` chunk: log it here. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The `errorText` a client gets when the app gave none: the fixed text and codes of `publicErrorText`,
 * or with `exposeErrors` this library's error message (and still a fixed text for another error).
 *
 * @example
 * ```ts
 * uiErrorText(false)(new ProviderError('HTTP 429: org-4f2a', { status: 429 })); // the fixed text and codes
 * ```
 */
export function uiErrorText(exposeErrors: boolean | undefined): (error: unknown) => string {
  if (exposeErrors !== true) return (error) => publicErrorText(streamErrorData(error));
  return (error) => (error instanceof LlmStreamError ? error.message : publicErrorText(streamErrorData(error)));
}

/**
 * Maps `ChatEvent`s (after `groupToolCallsByIndex`) to the chunks of the AI SDK's UI message stream,
 * the protocol `useChat` reads, so a backend written with this library can serve an AI SDK front end
 * from any provider. Choice 0 only. Every part is opened before its deltas and closed before the step
 * ends; tool calls stream their input and end with `tool-input-available` and the parsed input; the
 * finish reason is spelled as the UI spells it (see `UiMessageEncoder`).
 *
 * A failure ends the stream with the open part closed and an `error` chunk, then completes: the
 * client's reader surfaces it as its error. Its `errorText` is a fixed text with the error's codes
 * (`the provider answered HTTP 429 (ProviderError, http-status)`, see `publicErrorText`): the error's
 * own message (a provider's text naming the organization, a key's tail, an internal host) stays on the
 * server, given to `onError` for the log. `exposeErrors: true` sends this library's message instead;
 * `errorText` writes your own.
 *
 * ```
 * events: --content--content--done--|
 * out:    --(start start-step text-start text-delta)--text-delta--(text-end finish-step finish|)
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, toUiMessageStream, encodeUiMessageSse } from 'rxjs-llm-stream';
 *
 * bytes$
 *   .pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), toUiMessageStream(), encodeUiMessageSse())
 *   .subscribe((text) => response.write(text));
 * ```
 *
 * @param options The message id, the text sent for an error (`errorText`, `exposeErrors`), `onError`.
 * @returns An operator from events to UI message chunks, ending with an `error` chunk on failure.
 */
export function toUiMessageStream(options: UiMessageStreamOptions = {}): OperatorFunction<ChatEvent, UiMessageChunk> {
  return (source) =>
    new Observable<UiMessageChunk>((subscriber) => {
      const { messageId, errorText = uiErrorText(options.exposeErrors) } = options;
      const encoder = new UiMessageEncoder(messageId === undefined ? { errorText } : { messageId, errorText });
      encodeUiChunks(source, subscriber, encoder, options.onError);
    });
}

/**
 * Writes UI message chunks as the protocol's event-stream text: `data: <json>` and a blank line per
 * chunk, then `data: [DONE]` when the source completes. Send it with `uiMessageStreamHeaders`.
 *
 * ```
 * chunks: --{start}--{finish}--|
 * text:   --'data: {"type":"start"}\n\n'--'data: {"type":"finish"}\n\n'--('data: [DONE]\n\n'|)
 * ```
 *
 * @example
 * ```ts
 * import { encodeUiMessageSse, uiMessageStreamHeaders } from 'rxjs-llm-stream';
 *
 * response.writeHead(200, uiMessageStreamHeaders);
 * chunks$.pipe(encodeUiMessageSse()).subscribe({ next: (text) => response.write(text), complete: () => response.end() });
 * ```
 *
 * @returns An operator from chunks to their text, ending with `[DONE]`.
 */
export function encodeUiMessageSse(): OperatorFunction<UiMessageChunk, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      const encoder = new SseEncoder();
      const frame = (data: string): string => encoder.encode({ event: 'message', data, id: '' });
      subscribeLinked(source, subscriber, {
        next: (chunk) => subscriber.next(frame(JSON.stringify(chunk))),
        complete() {
          subscriber.next(frame('[DONE]'));
          subscriber.complete();
        },
      });
    });
}
