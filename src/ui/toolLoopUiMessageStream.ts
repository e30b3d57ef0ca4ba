import { Observable, type OperatorFunction } from 'rxjs';
import type { ToolLoopEvent } from '../tool-loop/ToolLoopEvent.js';
import { encodeUiChunks } from './encodeUiChunks.js';
import { ToolLoopUiEncoder, type ToolLoopUiEncoderOptions } from './ToolLoopUiEncoder.js';
import { type UiMessageStreamOptions, uiErrorText } from './toUiMessageStream.js';
import type { UiMessageChunk } from './uiMessageChunks.js';

/**
 * Options of {@link toolLoopUiMessageStream}: those of `toUiMessageStream`, and `exposeToolErrors`.
 *
 * @example
 * ```ts
 * import type { ToolLoopUiMessageStreamOptions } from 'rxjs-llm-stream';
 *
 * const options: ToolLoopUiMessageStreamOptions = { onError: (error) => console.error(error) };
 * ```
 */
export interface ToolLoopUiMessageStreamOptions extends UiMessageStreamOptions, Pick<ToolLoopUiEncoderOptions, 'exposeToolErrors'> {}

/**
 * A tool loop served to a browser: its events as the AI SDK's UI message stream (what `useChat` and
 * `readUIMessageStream` read), one message with a step per loop step, each call's input, its approval
 * request, and its output, error or denial (see `ToolLoopUiEncoder`). A failure ends the stream with an
 * `error` chunk, its text fixed as `toUiMessageStream`'s is (the error itself goes to `onError`), and
 * completes. A failed call's own error text stays on the server unless `exposeToolErrors`.
 *
 * ```
 * loop:  step-start event... tool-result step-finish step-start event... step-finish loop-finish|
 * out:   start start-step parts... tool-output-available finish-step start-step parts... finish-step finish|
 * ```
 *
 * @example
 * ```ts
 * import { encodeUiMessageSse, toolLoop, toolLoopUiMessageStream, uiMessageStreamHeaders } from 'rxjs-llm-stream';
 *
 * response.writeHead(200, uiMessageStreamHeaders);
 * toolLoop(options)
 *   .pipe(toolLoopUiMessageStream(), encodeUiMessageSse())
 *   .subscribe({ next: (text) => response.write(text), complete: () => response.end() });
 * ```
 *
 * @param options The message id, the text sent for an error (`errorText`, `exposeErrors`), `onError`, `exposeToolErrors`.
 * @returns An operator from loop events to UI message chunks, ending with an `error` chunk on failure.
 */
export function toolLoopUiMessageStream<Message>(
  options: ToolLoopUiMessageStreamOptions = {},
): OperatorFunction<ToolLoopEvent<Message>, UiMessageChunk> {
  return (source) =>
    new Observable<UiMessageChunk>((subscriber) => {
      const { messageId, exposeToolErrors, errorText = uiErrorText(options.exposeErrors) } = options;
      const encoder = new ToolLoopUiEncoder({
        errorText,
        ...(messageId === undefined ? {} : { messageId }),
        ...(exposeToolErrors === undefined ? {} : { exposeToolErrors }),
      });
      encodeUiChunks(source, subscriber, encoder, options.onError);
    });
}
