import type { ReplyExtraParts } from '../../types/completion.js';
import type { ChatEvent } from '../../types/events.js';

/** The parts a declaration may fill: every optional part of a choice but the cut calls (the calls' own). */
export type ReplyPartField = Exclude<keyof ReplyExtraParts, 'incompleteToolCalls'>;

/** What a choice shows of its parts, being written: each declaration sets its own field, or leaves it out. */
export type ReplyPartsView = { -readonly [K in ReplyPartField]?: ReplyExtraParts[K] };

/**
 * How one optional part of a choice builds up, declared once: which events carry it, the state it
 * keeps, how an event folds in, and what a choice shows of it. The tracker behind `finalizeCompletion`
 * and `scanCompletion` follows these declarations for every choice, in its snapshots, its completion
 * and the `partial` of its errors; nothing else names the part. A part's state is made at its first
 * event, so a reply that has none of it pays nothing.
 *
 * @example
 * ```ts
 * // sources: pushed in arrival order, shown as a copy of the list.
 * const sources: ReplyPart<'sources', Source[]> = {
 *   field: 'sources',
 *   events: ['source'],
 *   start: () => [],
 *   fold: (list, event) => { if (event.type === 'source') list.push(event.source); },
 *   show: (list, view) => { if (list.length > 0) view.sources = list.slice(); },
 * };
 * ```
 */
export interface ReplyPart<Field extends ReplyPartField, State> {
  /** The field of a choice (and of a completion or snapshot, for choice 0) that shows the part. */
  readonly field: Field;
  /** The event types that carry it. */
  readonly events: readonly ChatEvent['type'][];
  /** The state of one choice's part, made at its first event. */
  start(): State;
  /** Folds one of `events` in. */
  fold(state: State, event: ChatEvent): void;
  /**
   * Sets `view[field]` from the state, or leaves it out when there is nothing to show. What it sets
   * must not change later (the tracker keeps appending to its own state): a copy, or a getter that
   * copies what had arrived by then when it is read.
   */
  show(state: State, view: ReplyPartsView): void;
}
