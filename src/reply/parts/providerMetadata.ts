import type { ReplyPart } from './ReplyPart.js';
import { MetadataBag } from './MetadataBag.js';

/**
 * `providerMetadata` of a choice: what came with the choice that no field names, by provider. The
 * events of the reply as a whole (no `choice`) and of a tool call (`call`) are not the choice's: the
 * tracker keeps those on the completion and on the call.
 *
 * @example
 * ```ts
 * const bag = providerMetadataPart.start();
 * providerMetadataPart.fold(bag, { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { stop_reason: 42 } });
 * ```
 */
export const providerMetadataPart: ReplyPart<'providerMetadata', MetadataBag> = {
  field: 'providerMetadata',
  events: ['provider-metadata'],
  start: () => new MetadataBag(),
  fold(bag, event) {
    if (event.type === 'provider-metadata' && event.call === undefined) bag.apply(event);
  },
  show(bag, view) {
    view.providerMetadata = bag.view();
  },
};
