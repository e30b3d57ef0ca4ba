import type { ProviderMetadataEvent } from '../../types/events.js';
import type { JsonValue, ProviderMetadata } from '../../types/replyParts.js';

/**
 * The provider metadata of one place (the reply, a choice, a tool call) as it builds up: per provider,
 * fields merged (a later value replaces an earlier one) and items appended in arrival order. What it
 * shows is a copy, the same object until an event changes it.
 *
 * @example
 * ```ts
 * const bag = new MetadataBag();
 * bag.apply({ type: 'provider-metadata', provider: 'openai', fields: { system_fingerprint: 'fp_1' } });
 * bag.view(); // { openai: { system_fingerprint: 'fp_1' } }
 * ```
 */
export class MetadataBag {
  readonly #providers = new Map<string, { fields: Map<string, JsonValue>; items: JsonValue[] | undefined; capped: boolean }>();
  #cached: ProviderMetadata | undefined = undefined;

  apply(event: ProviderMetadataEvent): void {
    let bag = this.#providers.get(event.provider);
    if (bag === undefined) this.#providers.set(event.provider, (bag = { fields: new Map(), items: undefined, capped: false }));
    if (event.fields !== undefined) for (const key of Object.keys(event.fields)) bag.fields.set(key, event.fields[key]!);
    if (event.items !== undefined) for (const item of event.items) (bag.items ??= []).push(item);
    if (event.capped === true) bag.capped = true;
    this.#cached = undefined;
  }

  view(): ProviderMetadata {
    if (this.#cached !== undefined) return this.#cached;
    const view: { [provider: string]: { [key: string]: JsonValue } } = {};
    for (const [provider, { fields, items, capped }] of this.#providers) {
      const shown: { [key: string]: JsonValue } = {};
      // Defined, not assigned: a key `__proto__` is a field like any other, not the object's prototype.
      for (const [key, value] of fields) Object.defineProperty(shown, key, { value, enumerable: true, writable: true, configurable: true });
      if (items !== undefined) shown['items'] = items.slice();
      if (capped) shown['$capped'] = true;
      Object.defineProperty(view, provider, { value: shown, enumerable: true, writable: true, configurable: true });
    }
    return (this.#cached = view);
  }
}
