/** The tool calls of one choice as they arrive: the state `CallAssembler` keeps per call and per choice, and their snapshots. */
import { ProtocolError } from '../errors/errors.js';
import { IncompleteToolCall, PartialToolCall, ToolCall } from '../types/events.js';
import { TextBuilder } from '../internal/TextBuilder.js';

/** One tool call as far as it has arrived. */
export class CallState {
  kind: 'function' | 'custom' = 'function';
  id: string | undefined = undefined;
  name: string | undefined = undefined;
  /** The tool's namespace, from the fragment that named it. */
  namespace: string | undefined = undefined;
  readonly argumentsText = new TextBuilder();
  /** The whole call, once closed: its arguments parsed. */
  closed: ToolCall | undefined = undefined;
  /** Ended (a `tool-call-end`) but not whole: reported at the finish, unless the token limit cut it. */
  failure: ProtocolError | undefined = undefined;
  /** The call as the token limit cut it: never closed. */
  incomplete: IncompleteToolCall | undefined = undefined;
  /** A `tool-call-end` came for it: a custom call is then known to be whole. */
  ended = false;
  /** This call's last snapshot, reused until the call changes. */
  snapshot: PartialToolCall | undefined = undefined;
  /** Where the call is in its choice's calls sorted by index (set when they are sorted). */
  position = 0;
  constructor(readonly index: number) {}

  get arguments(): string {
    return this.argumentsText.value ?? '';
  }
}

/** The tool calls of one choice. */
export class ChoiceCalls {
  /**
   * The calls by index, made at the first call: most replies have none, and an empty `Map` is 152
   * bytes of every open stream.
   */
  #byIndex: Map<number, CallState> | undefined = undefined;
  /** Calls not closed yet (nor cut): a finish with none open has nothing to sort or close. */
  open = 0;
  /** A call that ended but is not whole, waiting for the finish to say whether the token limit cut it. */
  failed: CallState | undefined = undefined;
  /** Calls the token limit cut. */
  cutCount = 0;
  finished = false;
  #sortedCalls: CallState[] | undefined = undefined;
  /** The last list of call snapshots: handed out, so never changed; the next one is a changed copy. */
  #snapshots: readonly PartialToolCall[] | undefined = undefined;
  /**
   * The calls changed since `snapshots`. With many calls streaming in turn, one changes per event:
   * its snapshot replaces its entry in a copy of the last list, instead of every call being looked
   * up again.
   */
  #changed: 'none' | 'many' | CallState = 'none';

  constructor(readonly choice: number) {}

  /** The call of `index`, if one arrived. */
  get(index: number): CallState | undefined {
    const calls = this.#byIndex;
    if (calls === undefined) return undefined;
    // An index that is a 32-bit integer (every real one) is looked up as one: V8 then finds it in the
    // map without a call into the runtime, which a key of unknown type costs on every fragment.
    const int = index | 0;
    return int === index ? calls.get(int) : calls.get(index);
  }

  /** How many calls arrived. */
  get count(): number {
    return this.#byIndex === undefined ? 0 : this.#byIndex.size;
  }

  /** The calls in index order. */
  sorted(): CallState[] {
    let sorted = this.#sortedCalls;
    if (sorted === undefined) {
      sorted = this.#sortedCalls = [...(this.#byIndex?.values() ?? [])].sort((a, b) => a.index - b.index);
      for (let position = 0; position < sorted.length; position++) sorted[position]!.position = position;
    }
    return sorted;
  }

  /** Records that `call` changed, so that the next list of snapshots shows it. */
  markChanged(call: CallState): void {
    call.snapshot = undefined;
    this.#changed = this.#changed === 'none' || this.#changed === call ? call : 'many';
  }

  /** A new call: the sorted order and the list of snapshots are made again. */
  added(call: CallState): void {
    (this.#byIndex ??= new Map()).set(call.index, call);
    this.#sortedCalls = undefined;
    this.#snapshots = undefined;
    this.#changed = 'none';
  }

  /** The whole calls, in index order (at the end: every call is whole or cut by then). */
  closedList(): ToolCall[] {
    const closed: ToolCall[] = [];
    for (const call of this.sorted()) if (call.closed !== undefined) closed.push(call.closed);
    return closed;
  }

  /** The calls the token limit cut, in index order. */
  incompleteList(): IncompleteToolCall[] {
    if (this.cutCount === 0) return [];
    const cut: IncompleteToolCall[] = [];
    for (const call of this.sorted()) if (call.incomplete !== undefined) cut.push(call.incomplete);
    return cut;
  }

  /** The calls as far as they have arrived, in index order; the same array until one changes. */
  snapshotList(): readonly PartialToolCall[] {
    let list = this.#snapshots;
    if (list === undefined || this.#changed === 'many') {
      list = this.sorted().map(callSnapshot);
    } else if (this.#changed !== 'none') {
      const copy = list.slice();
      copy[this.#changed.position] = callSnapshot(this.#changed);
      list = copy;
    }
    this.#snapshots = list;
    this.#changed = 'none';
    return list;
  }
}

function callSnapshot(call: CallState): PartialToolCall {
  if (call.snapshot !== undefined) return call.snapshot;
  if (call.closed !== undefined) return (call.snapshot = { ...call.closed, complete: true });
  const open = { index: call.index, id: call.id ?? null, name: call.name ?? null, arguments: call.arguments, complete: false };
  return (call.snapshot = call.kind === 'custom' ? { kind: 'custom', ...open } : open);
}
