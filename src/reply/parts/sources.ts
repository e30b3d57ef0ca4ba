import type { Source } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/**
 * `sources`: the sources a choice cited or searched, in arrival order.
 *
 * @example
 * ```ts
 * const list = sourcesPart.start();
 * sourcesPart.fold(list, { type: 'source', choice: 0, source: { kind: 'url', url: 'https://example.com' } });
 * ```
 */
export const sourcesPart: ReplyPart<'sources', Source[]> = {
  field: 'sources',
  events: ['source'],
  start: () => [],
  fold(list, event) {
    if (event.type === 'source') list.push(event.source);
  },
  show(list, view) {
    if (list.length > 0) view.sources = list.slice();
  },
};
