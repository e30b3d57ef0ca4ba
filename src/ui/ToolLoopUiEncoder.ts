import type { ToolErrorReason, ToolLoopEvent } from '../tool-loop/ToolLoopEvent.js';
import { UiMessageEncoder, type UiMessageEncoderOptions } from './UiMessageEncoder.js';
import type { UiFinishReason, UiMessageChunk } from './uiMessageChunks.js';

/**
 * Options of {@link ToolLoopUiEncoder}: the message's id and the text of an error, as
 * `UiMessageEncoder` takes them, and whether a tool's error text reaches the browser.
 *
 * @example
 * ```ts
 * import type { ToolLoopUiEncoderOptions } from 'rxjs-llm-stream';
 *
 * const options: ToolLoopUiEncoderOptions = { messageId: 'msg-1', exposeToolErrors: false };
 * ```
 */
export interface ToolLoopUiEncoderOptions extends UiMessageEncoderOptions {
  /**
   * Send a failed call's error result (the tool's own message, a schema's issues) as the part's
   * `errorText`. Off by default: a tool's error may name hosts, paths or keys; the part gets a fixed text.
   */
  readonly exposeToolErrors?: boolean;
}

/** The fixed `errorText` of a call's error result, by why it is one. */
const TOOL_ERROR_TEXT: Readonly<Record<Exclude<ToolErrorReason, 'denied'>, string>> = {
  'invalid-arguments': 'the arguments of the call were refused',
  'unknown-tool': 'the model called a tool that does not exist',
  failed: 'the tool failed',
};

/**
 * A tool loop's events as one UI message of the AI SDK's stream protocol, one step per loop step:
 * `start` once, then per step `start-step`, its parts as `UiMessageEncoder` writes them, each call's
 * outcome (`tool-output-available`, `tool-output-error`, `tool-output-denied`, after a
 * `tool-approval-request` when the call waited for the app), `finish-step`; `finish` with the last
 * step's reason at the loop's end. No RxJS: `toolLoopUiMessageStream` wraps it.
 *
 * @example
 * ```ts
 * import { ToolLoopUiEncoder } from 'rxjs-llm-stream/core';
 *
 * const encoder = new ToolLoopUiEncoder();
 * encoder.encode({ type: 'step-start', step: 1, conversation: [] }); // []
 * encoder.encode({ type: 'event', step: 1, event: { type: 'content', choice: 0, text: 'Hi' } });
 * // [{type:'start'}, {type:'start-step'}, {type:'text-start', id:'text-1'}, {type:'text-delta', id:'text-1', delta:'Hi'}]
 * ```
 */
export class ToolLoopUiEncoder {
  readonly #options: ToolLoopUiEncoderOptions;
  #step: UiMessageEncoder | undefined;
  #started = false;
  #ended = false;
  #finishReason: UiFinishReason | undefined;

  constructor(options: ToolLoopUiEncoderOptions = {}) {
    this.#options = options;
  }

  /** The chunks for one loop event (none once the message is ended). */
  encode(event: ToolLoopEvent<unknown>): UiMessageChunk[] {
    if (this.#ended) return [];
    switch (event.type) {
      case 'step-start':
        // Part ids restart per step (`text-1`, ...): the UI closes each part before the step ends.
        this.#step = new UiMessageEncoder(this.#options);
        return [];
      case 'event':
        return this.#fromStep(this.#stepEncoder().encode(event.event));
      case 'approval-request':
        return [{ type: 'tool-approval-request', approvalId: event.call.id, toolCallId: event.call.id }];
      case 'tool-result':
        return [{ type: 'tool-output-available', toolCallId: event.call.id, output: event.result.output }];
      case 'tool-error':
        if (event.reason === 'denied') return [{ type: 'tool-output-denied', toolCallId: event.call.id }];
        return [
          {
            type: 'tool-output-error',
            toolCallId: event.call.id,
            errorText: this.#options.exposeToolErrors === true ? event.result.error : TOOL_ERROR_TEXT[event.reason],
          },
        ];
      case 'step-finish':
        return [...this.#fromStep(this.#stepEncoder().end()), { type: 'finish-step' }];
      case 'loop-finish':
        return this.end();
    }
  }

  /** The loop completed: `finish` (none when it was sent). */
  end(): UiMessageChunk[] {
    if (this.#ended) return [];
    this.#ended = true;
    const out = this.#begin();
    out.push(this.#finishReason === undefined ? { type: 'finish' } : { type: 'finish', finishReason: this.#finishReason });
    return out;
  }

  /** The loop failed: the open part closed, then an `error` chunk; nothing follows. */
  fail(error: unknown): UiMessageChunk[] {
    if (this.#ended) return [];
    this.#ended = true;
    const step = this.#step;
    if (step !== undefined && !step.isEnded) return this.#fromStep(step.fail(error));
    // Between steps: the error chunk as a step's encoder writes it (its `errorText`), without its step.
    const failure = new UiMessageEncoder(this.#options).fail(error).filter((chunk) => chunk.type === 'error');
    return [...this.#begin(), ...failure];
  }

  /** `start` when nothing was sent yet (a loop that failed before its first event still gets one). */
  #begin(): UiMessageChunk[] {
    if (this.#started) return [];
    this.#started = true;
    return [this.#options.messageId === undefined ? { type: 'start' } : { type: 'start', messageId: this.#options.messageId }];
  }

  #stepEncoder(): UiMessageEncoder {
    return (this.#step ??= new UiMessageEncoder(this.#options));
  }

  /**
   * A step's chunks as parts of the one message: its `start` only for the first step, its
   * `finish-step` held for the loop's `step-finish` (the calls' outputs come before it), its `finish`
   * kept for the loop's end.
   */
  #fromStep(chunks: readonly UiMessageChunk[]): UiMessageChunk[] {
    const out: UiMessageChunk[] = [];
    for (const chunk of chunks) {
      if (chunk.type === 'start') {
        if (!this.#started) out.push(chunk);
        this.#started = true;
      } else if (chunk.type === 'finish') {
        if (chunk.finishReason !== undefined) this.#finishReason = chunk.finishReason;
      } else if (chunk.type !== 'finish-step') {
        out.push(chunk);
      }
    }
    return out;
  }
}
