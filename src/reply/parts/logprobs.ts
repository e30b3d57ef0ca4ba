import type { Logprobs, TokenLogprob } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/** The tokens of a choice so far, per channel (`null` until one came). */
interface LogprobsState {
  content: TokenLogprob[] | null;
  refusal: TokenLogprob[] | null;
}

/**
 * `logprobs`: the per-chunk token lists of a choice joined in order. Tokens come one by one and a
 * snapshot may be taken after every event, so what a choice shows is a getter that copies the tokens
 * seen by then only when it is read: a snapshot costs the same however many tokens came before it.
 *
 * @example
 * ```ts
 * const tokens = logprobsPart.start();
 * logprobsPart.fold(tokens, { type: 'logprobs', choice: 0, content: [{ token: 'Hi', logprob: -0.1, bytes: null, top_logprobs: [] }] });
 * ```
 */
export const logprobsPart: ReplyPart<'logprobs', LogprobsState> = {
  field: 'logprobs',
  events: ['logprobs'],
  start: () => ({ content: null, refusal: null }),
  fold(state, event) {
    if (event.type !== 'logprobs') return;
    if (event.content !== undefined) appendAll((state.content ??= []), event.content);
    if (event.refusal !== undefined) appendAll((state.refusal ??= []), event.refusal);
  },
  show({ content, refusal }, view) {
    if (content === null && refusal === null) return;
    const contentLength = content?.length ?? 0;
    const refusalLength = refusal?.length ?? 0;
    let copy: Logprobs | undefined;
    Object.defineProperty(view, 'logprobs', {
      enumerable: true,
      get: (): Logprobs =>
        (copy ??= {
          content: content === null ? null : content.slice(0, contentLength),
          refusal: refusal === null ? null : refusal.slice(0, refusalLength),
        }),
    });
  },
};

/** Appends every item: `push(...items)` would overflow the stack on a very long array. */
function appendAll<T>(to: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) to.push(items[i]!);
}
