import type { ChatEvent, ContentEvent, ReasoningEvent, RefusalEvent, ToolCallDeltaEvent } from '../types/events.js';

/** An event whose text a screen appends: joining two of one channel says what the two said. */
type TextDelta = ContentEvent | ReasoningEvent | RefusalEvent;

/**
 * The events that arrived between two frames, merged for one update of a screen: the core of
 * `batchEventsPerFrame`.
 *
 * Deltas of one channel are joined: a choice's `content`, its `reasoning`, its `refusal`, and the
 * argument text of one tool call (`tool-call-delta` by choice and index). Nothing is dropped, and no
 * text is moved across an event that is not a delta (a `finish`, `usage`, a whole `tool-call`, a
 * `retract`, ...): those walls stay where they came, each channel's text before a wall is what it was.
 * Deltas of different channels between two walls are independent (a screen appends each to its own
 * text), so each joins the earlier delta of its channel. A fragment that names a call (`id` or
 * `name`) starts that call: it is a wall for the other channels, and the call's later fragments join it.
 *
 * The events given are not changed: a merge makes a new event.
 *
 * @example
 * ```ts
 * import { FrameBatch } from 'rxjs-llm-stream/core';
 *
 * const batch = new FrameBatch();
 * batch.add({ type: 'content', choice: 0, text: 'Hel' });
 * batch.add({ type: 'content', choice: 0, text: 'lo' });
 * batch.take(); // [{ type: 'content', choice: 0, text: 'Hello' }]
 * ```
 */
export class FrameBatch {
  #pending: ChatEvent[] = [];
  /** Where the delta of each channel sits in `#pending`, for the channels open since the last wall. */
  readonly #open = new Map<string, number>();

  /** `true` when nothing arrived since the last `take`. */
  get isEmpty(): boolean {
    return this.#pending.length === 0;
  }

  /** Adds an event, joining it to the pending delta of its channel when it is a delta of one. */
  add(event: ChatEvent): void {
    const channel = channelOf(event);
    if (channel === undefined) {
      this.#wall(event);
      return;
    }
    const at = this.#open.get(channel);
    if (event.type === 'tool-call-delta' && (event.id !== undefined || event.name !== undefined || event.namespace !== undefined)) {
      // A named fragment starts a call: it may not join an earlier fragment of the index (that would
      // be another call, or rename this one), and nothing after it may move before it.
      this.#wall(event);
      this.#open.set(channel, this.#pending.length - 1);
      return;
    }
    if (at === undefined) {
      this.#open.set(channel, this.#pending.length);
      this.#pending.push(event);
      return;
    }
    this.#pending[at] = joined(this.#pending[at]!, event);
  }

  /** The merged events since the last `take`, in order; the batch is empty after. */
  take(): ChatEvent[] {
    const taken = this.#pending;
    this.#pending = [];
    this.#open.clear();
    return taken;
  }

  #wall(event: ChatEvent): void {
    this.#open.clear();
    this.#pending.push(event);
  }
}

/** The channel a delta appends to, or `undefined` for an event that is not a delta. */
function channelOf(event: ChatEvent): string | undefined {
  switch (event.type) {
    case 'content':
    case 'reasoning':
    case 'refusal':
      return `${event.type} ${event.choice}`;
    case 'tool-call-delta':
      return `call ${event.choice} ${event.index}${event.kind === 'custom' ? ' custom' : ''}`;
    default:
      return undefined;
  }
}

/** `earlier` and `later`, two deltas of one channel, as one. */
function joined(earlier: ChatEvent, later: ChatEvent): ChatEvent {
  if (later.type === 'tool-call-delta') {
    const call = earlier as ToolCallDeltaEvent;
    const progress = later.call ?? call.call;
    return { ...call, arguments: call.arguments + later.arguments, ...(progress === undefined ? {} : { call: progress }) };
  }
  const text = earlier as TextDelta;
  if (later.type === 'reasoning' && later.reasoningTokens !== undefined) {
    return { ...(text as ReasoningEvent), text: text.text + later.text, reasoningTokens: later.reasoningTokens };
  }
  return { ...text, text: text.text + (later as TextDelta).text };
}
