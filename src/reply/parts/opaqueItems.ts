import type { OpaqueItem } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/**
 * `opaqueItems`: what the next turn must send back verbatim, in arrival order, each with the part it
 * belongs to and where in the text it arrived. The fold that feeds this part gives every event its
 * `at` (the tracker knows the text; a dialect does not), so an event here always has one.
 *
 * @example
 * ```ts
 * const items = opaqueItemsPart.start();
 * opaqueItemsPart.fold(items, {
 *   type: 'opaque-item',
 *   choice: 0,
 *   item: { provider: 'google', kind: 'continuation', type: 'continuationToken', part: 'turn', data: 'Y29udA==' },
 *   at: { reasoning: 0, content: 8 },
 * });
 * ```
 */
export const opaqueItemsPart: ReplyPart<'opaqueItems', OpaqueItem[]> = {
  field: 'opaqueItems',
  events: ['opaque-item'],
  start: () => [],
  fold(items, event) {
    if (event.type === 'opaque-item') items.push({ ...event.item, at: event.at ?? { reasoning: 0, content: 0 } });
  },
  show(items, view) {
    if (items.length > 0) view.opaqueItems = items.slice();
  },
};
