/**
 * One streamed event for a message: a piece of its text, the signal that it is complete, or both.
 *
 * `delta` is any number of characters, not necessarily one tokenizer token; `''` is a real (empty)
 * delta. A missing `final` means `false`.
 */
export interface TokenEvent {
  /** The message this event belongs to; messages may interleave. */
  readonly id: string;
  /** Text to append to the message. */
  readonly delta?: string;
  /** `true` completes the message (after appending `delta`, if any). */
  readonly final?: boolean;
}

/** What the assembler keeps for one message id. */
interface MessageState {
  /** The text joined so far: all of it once finalized, the part read so far while streaming. */
  text: string;
  /** Deltas that arrived after `text` was last brought up to date. */
  parts: string[];
  finalized: boolean;
}

/**
 * Assembles streamed deltas, keyed by message id, into each message's text.
 *
 * Every event creates its message (with text `''`); a delta is appended whenever the event has one,
 * the empty string included; `final: true` completes the message and returns its text. Finalizing is
 * idempotent: a message already complete ignores later deltas, returns the same text when finalized
 * again, and `null` otherwise. Repeated non-final deltas are appended again: telling a duplicate
 * delivery from a repeated delta would need a sequence number the events do not carry.
 *
 * Intuition: a `Map` of string builders whose finished strings are frozen.
 *
 * Reads stay linear: deltas are buffered in an array and joined only when the text is read, and only
 * the deltas added since the previous read are joined, so calling `get` after every delta costs each
 * delta one join rather than re-joining the whole message each time.
 *
 * @example
 * ```ts
 * import { TokenAssembler } from 'rxjs-llm-stream/core';
 *
 * const assembler = new TokenAssembler();
 * assembler.apply({ id: 'm', delta: 'hel' });              // null
 * assembler.apply({ id: 'm', delta: 'lo', final: true });  // 'hello'
 * assembler.apply({ id: 'm', delta: 'x', final: true });   // 'hello' (idempotent)
 * assembler.get('unseen');                                 // null
 * ```
 */
export class TokenAssembler {
  /** Every message seen, in first-seen order (a `Map` keeps insertion order). */
  private readonly messages = new Map<string, MessageState>();
  /** The ids seen but not finalized, also in first-seen order; deleting from a `Set` is O(1). */
  private readonly open = new Set<string>();

  /**
   * Applies one event.
   *
   * @param event The message id, and optionally a delta and the final flag.
   * @returns The message's full text when `event.final` is `true` (also on a repeated finalize),
   * otherwise `null`.
   */
  apply(event: TokenEvent): string | null {
    let state = this.messages.get(event.id);
    if (state === undefined) {
      state = { text: '', parts: [], finalized: false };
      this.messages.set(event.id, state);
      this.open.add(event.id);
    }
    if (state.finalized) return event.final === true ? state.text : null;
    // `typeof` rather than a truthiness test: an empty-string delta is a delta and must not be dropped.
    if (typeof event.delta === 'string') state.parts.push(event.delta);
    if (event.final !== true) return null;
    state.text = joined(state);
    state.finalized = true;
    this.open.delete(event.id);
    return state.text;
  }

  /**
   * The text of a message so far (complete once finalized), or `null` for an id never seen.
   *
   * @param id The message id.
   */
  get(id: string): string | null {
    const state = this.messages.get(id);
    return state === undefined ? null : joined(state);
  }

  /** Whether `id` has been finalized (`false` for an id never seen). */
  isFinalized(id: string): boolean {
    return this.messages.get(id)?.finalized === true;
  }

  /** The ids seen but not yet finalized, in the order they were first seen. */
  openIds(): string[] {
    return [...this.open];
  }
}

/**
 * Brings `state.text` up to date and returns it. Only the parts added since the last call are
 * joined; the array is then emptied, so no delta is ever joined twice.
 */
function joined(state: MessageState): string {
  if (state.parts.length > 0) {
    state.text += state.parts.length === 1 ? state.parts[0]! : state.parts.join('');
    state.parts = [];
  }
  return state.text;
}
