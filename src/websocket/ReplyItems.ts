import { JsonObject, isJsonObject, nonEmptyString } from '../internal/json.js';

/** How many output items one reply routes by id, by default: past it its events go by the router's other rules. */
export const DEFAULT_MAX_ITEMS_PER_REPLY = 4096;

/** An open reply as the item index sees it: the ids of the items it announced. */
export interface ItemOwner {
  readonly items: Set<string>;
}

/**
 * The output items each open reply of a socket announced (`response.output_item.added`), by id: an
 * event that names only its item (`item_id`) finds its reply here. Shared by the socket routers; at
 * most `maxPerReply` items a reply, and an id already owned keeps its owner.
 *
 * @example
 * ```ts
 * const items = new ReplyItems<OpenReply>(4096);
 * items.remember(open, payload); // payload: a response.output_item.added event
 * items.find(nonEmptyString(event['item_id'])); // the reply that announced it
 * items.forget(open); // the reply closed
 * ```
 */
export class ReplyItems<Owner extends ItemOwner> {
  readonly #byItem = new Map<string, Owner>();
  readonly #maxPerReply: number;

  constructor(maxPerReply: number = DEFAULT_MAX_ITEMS_PER_REPLY) {
    this.#maxPerReply = maxPerReply;
  }

  /** Notes the item that `payload`, a `response.output_item.added` event, announces for `owner`. */
  remember(owner: Owner, payload: JsonObject): void {
    const item = payload['item'];
    const itemId = isJsonObject(item) ? nonEmptyString(item['id']) : undefined;
    if (itemId === undefined || owner.items.size >= this.#maxPerReply || this.#byItem.has(itemId)) return;
    owner.items.add(itemId);
    this.#byItem.set(itemId, owner);
  }

  /** The open reply that announced the item `itemId`, if any. */
  find(itemId: string | undefined): Owner | undefined {
    return itemId === undefined ? undefined : this.#byItem.get(itemId);
  }

  /** `owner` closed: its items route no more. */
  forget(owner: ItemOwner): void {
    for (const itemId of owner.items) this.#byItem.delete(itemId);
  }
}
