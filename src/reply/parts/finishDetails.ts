import type { FinishDetails } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/**
 * `finishDetails`: what the provider said of a choice's finish beyond its reason, the fields of its
 * `finish-details` events merged (a later value replaces an earlier one).
 *
 * @example
 * ```ts
 * const details = finishDetailsPart.start();
 * finishDetailsPart.fold(details, { type: 'finish-details', choice: 0, details: { stopSequence: '###' } });
 * ```
 */
export const finishDetailsPart: ReplyPart<'finishDetails', { details: FinishDetails }> = {
  field: 'finishDetails',
  events: ['finish-details'],
  start: () => ({ details: {} }),
  fold(state, event) {
    // A new object each time: what a choice showed before stays as it was.
    if (event.type === 'finish-details') state.details = { ...state.details, ...event.details };
  },
  show({ details }, view) {
    if (Object.keys(details).length > 0) view.finishDetails = details;
  },
};
