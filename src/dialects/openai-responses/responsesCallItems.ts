import type { MetadataPlace } from '../base/JsonDialectParser.js';

/** What one function or custom tool call item of a Responses stream has sent so far. */
export class CallState {
  hasId = false;
  hasName = false;
  /** A fragment named the function's namespace. */
  hasNamespace = false;
  /** Argument text has arrived (a delta, the `.done` event's whole text, or the item itself). */
  argumentsArrived = false;
  /** Its `response.output_item.done` came: nothing more may arrive for it. */
  closed = false;
  /** Where what its item and fragments carry beside is kept: made once, as every fragment asks. */
  readonly place: MetadataPlace;
  constructor(
    readonly index: number,
    readonly itemId: string | undefined,
    /** A `custom_tool_call`: its input is free-form text, never JSON, and every fragment says so. */
    readonly custom: boolean,
  ) {
    this.place = { choice: 0, call: index };
  }
}

/**
 * The tool-call items of a Responses stream, found by item id and by output index: a fragment names
 * its item by `item_id`, or only by `output_index` on servers that leave ids out. Never by "the
 * current item": items interleave.
 */
export class CallItems {
  private readonly byItemId = new Map<string, CallState>();
  private readonly byOutputIndex = new Map<number, CallState>();

  hasItem(itemId: string): boolean {
    return this.byItemId.has(itemId);
  }

  /** Registers a new call item, by whichever of its id and output index it has. */
  add(index: number, itemId: string | undefined, outputIndex: number | undefined, custom: boolean): CallState {
    const call = new CallState(index, itemId, custom);
    if (itemId !== undefined) this.byItemId.set(itemId, call);
    if (outputIndex !== undefined) this.byOutputIndex.set(outputIndex, call);
    return call;
  }

  /**
   * By item id; by output index only for a call whose item had no id (servers that omit one), so a
   * different item at a reused position is never taken for it.
   */
  find(itemId: string | undefined, outputIndex: number | undefined): CallState | undefined {
    if (itemId !== undefined) {
      const call = this.byItemId.get(itemId);
      if (call !== undefined) return call;
    }
    if (outputIndex === undefined) return undefined;
    const positional = this.byOutputIndex.get(outputIndex);
    return itemId === undefined || positional?.itemId === undefined ? positional : undefined;
  }
}
