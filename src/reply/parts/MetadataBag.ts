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
  /**
   * Per provider, its fields and items. Plain objects, not maps: a reply holds one bag or more, most
   * with one provider and a field or two, where an empty `Map` alone is 150 bytes. Keys are defined,
   * never assigned: a key `__proto__` is a field like any other, not the object's prototype.
   */
  readonly #providers: { [provider: string]: ProviderEntry } = {};
  #cached: ProviderMetadata | undefined = undefined;

  apply(event: ProviderMetadataEvent): void {
    let bag = Object.hasOwn(this.#providers, event.provider) ? this.#providers[event.provider] : undefined;
    if (bag === undefined) define(this.#providers, event.provider, (bag = { fields: {}, items: undefined, capped: false }));
    const fields = event.fields;
    if (fields !== undefined) for (const key of Object.keys(fields)) define(bag.fields, key, fields[key]!);
    if (event.items !== undefined) for (const item of event.items) (bag.items ??= []).push(item);
    if (event.capped === true) bag.capped = true;
    this.#cached = undefined;
  }

  view(): ProviderMetadata {
    if (this.#cached !== undefined) return this.#cached;
    const view: { [provider: string]: { [key: string]: JsonValue } } = {};
    for (const provider of Object.keys(this.#providers)) {
      const { fields, items, capped } = this.#providers[provider]!;
      const shown: { [key: string]: JsonValue } = {};
      for (const key of Object.keys(fields)) define(shown, key, fields[key]!);
      if (items !== undefined) shown['items'] = items.slice();
      if (capped) shown['$capped'] = true;
      define(view, provider, shown);
    }
    return (this.#cached = view);
  }
}

interface ProviderEntry {
  readonly fields: { [key: string]: JsonValue };
  items: JsonValue[] | undefined;
  capped: boolean;
}

/** `target[key] = value`, as an own enumerable property whatever the key (`__proto__` included). */
function define<T>(target: { [key: string]: T }, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
