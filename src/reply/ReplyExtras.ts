import type { ChatEvent } from '../types/events.js';
import type { ReplyExtraParts } from '../types/completion.js';
import { PART_OF_EVENT, REPLY_PARTS } from './parts/replyParts.js';
import type { ReplyPartsView } from './parts/ReplyPart.js';

/** The parts this holds, as a completion or a snapshot shows them (the cut calls are the calls' own). */
export type ReplyExtrasView = Omit<ReplyExtraParts, 'incompleteToolCalls'>;

/**
 * The parts of one choice's reply beside its text and calls, each built up as its declaration in
 * `REPLY_PARTS` says: log probabilities (the per-chunk arrays joined in order), sources (in arrival
 * order), audio (base64 pieces and transcript joined), the tools the provider ran (each call joined
 * with its result by id), and what the provider sent that no field names. Made only for a choice
 * that has any, and each part's state only at its first event, so a plain reply pays nothing for them.
 *
 * @example
 * ```ts
 * import { ReplyExtras } from 'rxjs-llm-stream/core';
 *
 * const extras = new ReplyExtras();
 * extras.apply({ type: 'source', choice: 0, source: { kind: 'url', url: 'https://example.com' } });
 * extras.view().sources; // [{ kind: 'url', url: 'https://example.com' }]
 * ```
 */
export class ReplyExtras {
  /** Each part's state, at its position in `REPLY_PARTS`, once its first event came. */
  readonly #states: unknown[] = [];
  #cached: ReplyExtrasView | undefined = undefined;

  /** True for an event that carries one of the parts this holds. */
  static carries(event: ChatEvent): boolean {
    return PART_OF_EVENT.has(event.type);
  }

  /** Folds in one event of the kinds this holds; others are ignored. */
  apply(event: ChatEvent): void {
    const position = PART_OF_EVENT.get(event.type);
    if (position === undefined) return;
    const part = REPLY_PARTS[position]!;
    let state = this.#states[position];
    if (state === undefined) this.#states[position] = state = part.start();
    part.fold(state, event);
    this.#cached = undefined;
  }

  /** What a completion shows of these parts: only those that came. The same object until one changes. */
  view(): ReplyExtrasView {
    if (this.#cached !== undefined) return this.#cached;
    const view: ReplyPartsView = {};
    for (let position = 0; position < REPLY_PARTS.length; position++) {
      const state = this.#states[position];
      if (state !== undefined) REPLY_PARTS[position]!.show(state, view);
    }
    return (this.#cached = view);
  }
}

/**
 * `target` with the parts of `view` added, getters kept as getters: a spread would read the log
 * probabilities' getter and copy every token now.
 */
export function withExtras<T extends object>(target: T, view: ReplyExtrasView): T & ReplyExtrasView {
  return Object.defineProperties(target, Object.getOwnPropertyDescriptors(view)) as T & ReplyExtrasView;
}
