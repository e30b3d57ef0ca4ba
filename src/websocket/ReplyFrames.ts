import { Observable, Subscriber } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { ProtocolError } from '../errors/errors.js';

/** The characters of the frames held for replies nobody reads yet, shared by every reply of one socket. */
export interface HeldBudget {
  held: number;
  readonly max: number;
}

/**
 * The frames of one reply of a socket, as an `Observable` read once. Frames that come before it is
 * subscribed are held (within the socket's budget while the reply is open: past it the reply errors
 * with a `ProtocolError`, `too-large`, and holds nothing more), so a reply read a little later (after
 * an `await`, by a component that mounts late) loses nothing. Once the reply is over it leaves the
 * budget: what it holds lives only as long as the app keeps it. Unsubscribing lets the reply go: its
 * later frames are dropped.
 */
export class ReplyFrames {
  readonly frames: Observable<SseFrame>;
  #subscriber: Subscriber<SseFrame> | undefined = undefined;
  #held: SseFrame[] = [];
  #heldChars = 0;
  /** How the reply ended before anyone read it: `null` completed, an error, or `undefined` while it goes on. */
  #ended: { readonly error: unknown } | null | undefined = undefined;
  #read = false;
  #released = false;
  readonly #budget: HeldBudget;

  /**
   * @param budget The socket's budget for frames held.
   * @param describe The reply, for the error of a second subscription.
   * @param onRelease Called when its reader lets it go (it ended, failed, or was unsubscribed).
   */
  constructor(budget: HeldBudget, describe: string, onRelease: () => void) {
    this.#budget = budget;
    this.frames = new Observable<SseFrame>((subscriber) => {
      if (this.#read) {
        subscriber.error(new TypeError(`the frames of ${describe} are read once, and were already`));
        return;
      }
      this.#read = true;
      this.#subscriber = subscriber;
      const held = this.#held;
      this.#held = [];
      this.#giveBack();
      for (const frame of held) {
        if (subscriber.closed) break;
        subscriber.next(frame);
      }
      if (this.#ended === null) subscriber.complete();
      else if (this.#ended !== undefined) subscriber.error(this.#ended.error);
      return () => {
        this.#subscriber = undefined;
        this.#released = true;
        onRelease();
      };
    });
  }

  /** Someone reads the reply now. */
  get isRead(): boolean {
    return this.#subscriber !== undefined;
  }

  next(frame: SseFrame): void {
    if (this.#released || this.#ended !== undefined) return;
    if (this.#subscriber !== undefined) return this.#subscriber.next(frame);
    const chars = frame.data.length;
    if (this.#budget.held + chars > this.#budget.max) {
      // Past the budget the reply is refused, and what it held is let go at once.
      this.#held = [];
      this.#giveBack();
      this.#ended = {
        error: new ProtocolError(`a reply nobody read held more than ${this.#budget.max} characters of frames`, { reason: 'too-large' }),
      };
      return;
    }
    this.#held.push(frame);
    this.#heldChars += chars;
    this.#budget.held += chars;
  }

  complete(): void {
    if (this.#released || this.#ended !== undefined) return;
    if (this.#subscriber !== undefined) return this.#subscriber.complete();
    this.#ended = null;
    // Over: the socket holds it no more, so it leaves the socket's budget; its frames live on only
    // while the app keeps this reply, for a reader that comes late.
    this.#giveBack();
  }

  error(error: unknown): void {
    if (this.#released || this.#ended !== undefined) return;
    if (this.#subscriber !== undefined) return this.#subscriber.error(error);
    // The frames held stay: the reader gets them, then the error, so its partial is what arrived.
    this.#ended = { error };
    this.#giveBack();
  }

  #giveBack(): void {
    this.#budget.held -= this.#heldChars;
    this.#heldChars = 0;
  }
}
