import { mergeUsage } from '../internal/mergeUsage.js';
import type { ChatEvent, Usage } from '../types/events.js';

/** One choice's output as captured for `gen_ai.output.messages` (only when the app opted in). */
interface CapturedChoice {
  reasoning: string;
  text: string;
  readonly calls: Map<number, { id: string | undefined; name: string | undefined; arguments: string }>;
}

/** How many characters of output a reply captures for `gen_ai.output.messages` by default. */
export const DEFAULT_MAX_CAPTURED_CHARS = 65_536;

/**
 * The pure core of what a telemetry record says of a reply, read from its events: the response's id
 * and model (`start`), each choice's finish reason (`finish`), the usage (merged field by field as the
 * tracker does) and, only when asked (`capture`), the output text and calls, up to a cap.
 *
 * @example
 * ```ts
 * import { ReplyFacts } from 'rxjs-llm-stream/core';
 *
 * const facts = new ReplyFacts(false);
 * facts.apply({ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' });
 * facts.finishReasons(false); // ['stop']
 * ```
 */
export class ReplyFacts {
  id: string | null = null;
  model: string | null = null;
  usage: Usage | null = null;
  /** The highest choice index any event named, -1 before one did. */
  #lastChoice = -1;
  readonly #finish: string[] = [];
  readonly #captured: CapturedChoice[] | undefined;
  #room: number;

  /**
   * @param capture Whether to keep the output's text and calls (the app opted in to content).
   * @param maxChars The most characters of output kept; what comes after is dropped and the message says so.
   */
  constructor(capture: boolean, maxChars = DEFAULT_MAX_CAPTURED_CHARS) {
    this.#captured = capture ? [] : undefined;
    this.#room = maxChars;
  }

  apply(event: ChatEvent): void {
    switch (event.type) {
      case 'start':
        if (event.id !== '' && this.id === null) this.id = event.id;
        if (event.model !== null && this.model === null) this.model = event.model;
        return;
      case 'usage':
        this.usage = mergeUsage(this.usage, event.usage);
        return;
      case 'finish':
        this.#see(event.choice);
        this.#finish[event.choice] = event.reason;
        return;
      case 'content':
      case 'reasoning':
      case 'refusal':
        this.#see(event.choice);
        if (this.#captured !== undefined) {
          const choice = this.#choice(event.choice);
          if (event.type === 'reasoning') choice.reasoning += this.#take(event.text);
          else choice.text += this.#take(event.text);
        }
        return;
      case 'tool-call-delta':
        this.#see(event.choice);
        if (this.#captured !== undefined) {
          const calls = this.#choice(event.choice).calls;
          const call = calls.get(event.index) ?? { id: undefined, name: undefined, arguments: '' };
          call.id ??= event.id;
          call.name ??= event.name;
          call.arguments += this.#take(event.arguments);
          calls.set(event.index, call);
        }
        return;
      default:
        return;
    }
  }

  /**
   * One reason per choice, in index order: the library's normalized reason (`stop`, `length`,
   * `tool_calls`, ...), or `error` for a choice that never finished (the conventions' word for a
   * generation that ended abnormally). A failed reply with no choice seen is `['error']`.
   */
  finishReasons(failed: boolean): string[] {
    const reasons: string[] = [];
    for (let i = 0; i <= this.#lastChoice; i++) reasons.push(this.#finish[i] ?? 'error');
    if (reasons.length === 0 && failed) reasons.push('error');
    return reasons;
  }

  /**
   * The captured output in the conventions' output-messages shape (one message per choice), or
   * `undefined` when content is not captured.
   */
  outputMessages(failed: boolean): unknown[] | undefined {
    if (this.#captured === undefined) return undefined;
    const reasons = this.finishReasons(failed);
    return reasons.map((reason, index) => {
      const choice = this.#captured![index];
      const parts: unknown[] = [];
      if (choice !== undefined) {
        if (choice.reasoning !== '') parts.push({ type: 'reasoning', content: choice.reasoning });
        if (choice.text !== '') parts.push({ type: 'text', content: choice.text });
        for (const [, call] of [...choice.calls].sort(([a], [b]) => a - b)) {
          parts.push({ type: 'tool_call', id: call.id ?? null, name: call.name ?? '', arguments: call.arguments });
        }
      }
      return { role: 'assistant', parts, finish_reason: reason };
    });
  }

  #see(choice: number): void {
    if (choice > this.#lastChoice) this.#lastChoice = choice;
  }

  #choice(index: number): CapturedChoice {
    const captured = this.#captured!;
    return (captured[index] ??= { reasoning: '', text: '', calls: new Map() });
  }

  /** `text` as far as the cap leaves room for it. */
  #take(text: string): string {
    if (text.length <= this.#room) {
      this.#room -= text.length;
      return text;
    }
    const kept = text.slice(0, this.#room);
    this.#room = 0;
    return kept;
  }
}
