import type { ProviderMetadataEvent } from '../../types/events.js';
import { MetadataBag } from './MetadataBag.js';

/**
 * The provider metadata of tool calls, by choice and call index, and the calls shown with it: what
 * `groupToolCallsByIndex` puts on the `tool-call` it emits and the tracker on the completion's calls,
 * so that both show the same.
 *
 * @example
 * ```ts
 * const calls = new CallMetadata();
 * calls.apply({ type: 'provider-metadata', provider: 'google', choice: 0, call: 0, fields: { thought_signature: 'c2ln' } });
 * calls.shownOne(0, { index: 0, id: 'c1' }); // { index: 0, id: 'c1', providerMetadata: { google: { thought_signature: 'c2ln' } } }
 * ```
 */
export class CallMetadata {
  readonly #bags = new Map<string, MetadataBag>();

  /** Folds in an event of one call (`choice` and `call` set); others are ignored. */
  apply(event: ProviderMetadataEvent): void {
    if (event.choice === undefined || event.call === undefined) return;
    const key = `${event.choice}:${event.call}`;
    let bag = this.#bags.get(key);
    if (bag === undefined) this.#bags.set(key, (bag = new MetadataBag()));
    bag.apply(event);
  }

  /** The call with its metadata (a copy), or the call itself when none came with it. */
  shownOne<T extends { readonly index: number }>(choice: number, call: T): T {
    const bag = this.#bags.get(`${choice}:${call.index}`);
    return bag === undefined ? call : { ...call, providerMetadata: bag.view() };
  }

  /** The calls of `choice`, each with its metadata. */
  shown<T extends { readonly index: number }>(choice: number, calls: readonly T[]): T[] {
    return calls.map((call) => this.shownOne(choice, call));
  }
}
