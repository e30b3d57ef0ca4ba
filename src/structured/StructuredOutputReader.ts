import type { ChatEvent } from '../types/events.js';
import type { FinishReason } from '../types/replyParts.js';
import { DEFAULT_STRUCTURED_MAX_CHARS } from './structuredOutput.js';
import type { OutputSource, StructuredOutputSnapshot } from './structuredOutput.js';
import type { OutputState } from './checkStructuredOutput.js';
import { StructuredJson, isCompleteAt } from './StructuredJson.js';
import type { StructuredJsonOptions } from './StructuredJson.js';

/**
 * Options of a {@link StructuredOutputReader}: where the output is, and the reader's bounds.
 *
 * @example
 * ```ts
 * import { StructuredOutputReader, type StructuredOutputReaderOptions } from 'rxjs-llm-stream/core';
 *
 * const options: StructuredOutputReaderOptions = { from: { tool: 'record_summary' }, elementsAt: ['items'] };
 * const reader = new StructuredOutputReader(options);
 * ```
 */
export interface StructuredOutputReaderOptions extends StructuredJsonOptions {
  /** The content (default), or the arguments of the first call to a named tool. */
  readonly from?: OutputSource;
  /** Which choice: default 0. */
  readonly choice?: number;
}

/**
 * Reads a reply's events and follows its structured output: the content of one choice, or the
 * argument fragments of its first call to a named tool, fed to a {@link StructuredJson} as they
 * arrive (each character once). The core behind `scanStructuredOutput`, `structuredElements` and the
 * final check; no RxJS.
 *
 * @example
 * ```ts
 * import { StructuredOutputReader } from 'rxjs-llm-stream/core';
 *
 * const reader = new StructuredOutputReader();
 * reader.apply({ type: 'content', choice: 0, text: '{"title":"Pl' }); // true: the output changed
 * reader.snapshot().value; // { title: 'Pl' }
 * ```
 */
export class StructuredOutputReader {
  /** The JSON reader the output's text goes to. */
  readonly json: StructuredJson;
  /** Where the output is. */
  readonly from: OutputSource;
  /** Which choice. */
  readonly choice: number;
  private readonly tool: string | undefined;
  private outputText = '';
  private refusalText = '';
  // Tool mode: the index of the call that is the output, once a fragment named the tool.
  private callIndex: number | undefined = undefined;
  private whole = false;
  private seen = false;
  private reason: FinishReason | null = null;

  constructor(options: StructuredOutputReaderOptions = {}) {
    // A structured output is often the whole answer: a larger bound than a tool call's preview.
    this.json = new StructuredJson({ ...options, maxSize: options.maxSize ?? DEFAULT_STRUCTURED_MAX_CHARS });
    this.from = options.from ?? 'content';
    this.tool = this.from === 'content' ? undefined : this.from.tool;
    this.choice = options.choice ?? 0;
  }

  /** The output's text so far. */
  get text(): string {
    return this.outputText;
  }

  /** Whether any of the output arrived: content, or a fragment of the tool's call. */
  get found(): boolean {
    return this.seen;
  }

  /** The output is whole: its choice finished, or its call closed. */
  get done(): boolean {
    return this.whole;
  }

  /** The choice's finish reason, once it came. */
  get finishReason(): FinishReason | null {
    return this.reason;
  }

  /** The choice's refusal text (OpenAI's `refusal` channel), `''` when none came. */
  get refusal(): string {
    return this.refusalText;
  }

  /** What the final check looks at (`parseOutput`): the text, or `null` when none of the output arrived. */
  state(): OutputState {
    const refusal = this.refusalText === '' ? null : this.refusalText;
    return { from: this.from, choice: this.choice, text: this.seen ? this.outputText : null, finishReason: this.reason, refusal };
  }

  /** Reads one event; true when the output changed (text arrived, or it became whole). */
  apply(event: ChatEvent): boolean {
    switch (event.type) {
      case 'content':
        return this.tool === undefined && event.choice === this.choice && this.feed(event.text);
      case 'refusal':
        if (event.choice === this.choice) this.refusalText += event.text;
        return false;
      case 'tool-call-delta':
        if (this.tool === undefined || event.choice !== this.choice || this.whole) return false;
        if (this.callIndex === undefined && event.name === this.tool) this.callIndex = event.index;
        return event.index === this.callIndex && this.feed(event.arguments);
      case 'tool-call-end':
        return event.choice === this.choice && event.index === this.callIndex && this.end();
      case 'tool-call':
        if (this.tool === undefined || event.choice !== this.choice || this.whole) return false;
        // A call that came whole, without fragments before it.
        if (this.callIndex === undefined && event.call.name === this.tool) {
          this.callIndex = event.call.index;
          this.feed(event.call.arguments);
        }
        return event.call.index === this.callIndex && this.end();
      case 'finish':
        if (event.choice !== this.choice) return false;
        this.reason = event.reason;
        return this.end();
      default:
        return false;
    }
  }

  /**
   * The output so far, for this moment: the value (built in place, so the same object as before,
   * updated), its text, which paths are final, whether it is whole.
   */
  snapshot<T = unknown>(): StructuredOutputSnapshot<T> {
    const value = this.json.value;
    const open = this.json.openPath;
    return {
      value: value as StructuredOutputSnapshot<T>['value'],
      text: this.outputText,
      openPath: open,
      isComplete: (path) => isCompleteAt(value, open, path),
      done: this.whole,
      stopped: this.json.stopped,
    };
  }

  private feed(text: string): boolean {
    if (this.whole) return false; // text after its end (a later finish) changes nothing
    this.seen = true;
    if (text.length === 0) return false;
    this.outputText += text; // a rope in V8: appending costs O(piece)
    this.json.push(text);
    return true;
  }

  private end(): boolean {
    if (this.whole) return false;
    this.whole = true;
    this.json.end();
    return true;
  }
}
