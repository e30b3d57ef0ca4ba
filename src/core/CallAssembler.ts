import { ProtocolError } from '../errors.js';
import { JsonValue, PartialToolCall, ToolCall } from '../events.js';
import { excerpt } from '../internal/json.js';
import { TextBuilder } from '../internal/TextBuilder.js';

/** A call that an event closed, with its choice, as `groupToolCallsByIndex` emits it. */
export interface ClosedToolCall {
  readonly choice: number;
  readonly call: ToolCall;
}

/** One tool call as far as it has arrived. */
export class CallState {
  id: string | undefined = undefined;
  name: string | undefined = undefined;
  readonly argumentsText = new TextBuilder();
  /** The whole call, once closed: its arguments parsed. */
  closed: ToolCall | undefined = undefined;
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
  readonly byIndex = new Map<number, CallState>();
  /** Calls not closed yet: a finish with none open has nothing to sort or close. */
  open = 0;
  finished = false;
  private sortedCalls: CallState[] | undefined = undefined;
  /** The last list of call snapshots: handed out, so never changed; the next one is a changed copy. */
  private snapshots: readonly PartialToolCall[] | undefined = undefined;
  /**
   * The calls changed since `snapshots`. With many calls streaming in turn, one changes per event:
   * its snapshot replaces its entry in a copy of the last list, instead of every call being looked
   * up again.
   */
  private changed: 'none' | 'many' | CallState = 'none';

  constructor(readonly choice: number) {}

  /** The calls in index order. */
  sorted(): CallState[] {
    let sorted = this.sortedCalls;
    if (sorted === undefined) {
      sorted = this.sortedCalls = [...this.byIndex.values()].sort((a, b) => a.index - b.index);
      for (let position = 0; position < sorted.length; position++) sorted[position]!.position = position;
    }
    return sorted;
  }

  /** Records that `call` changed, so that the next list of snapshots shows it. */
  markChanged(call: CallState): void {
    call.snapshot = undefined;
    this.changed = this.changed === 'none' || this.changed === call ? call : 'many';
  }

  /** A new call: the sorted order and the list of snapshots are made again. */
  added(call: CallState): void {
    this.byIndex.set(call.index, call);
    this.sortedCalls = undefined;
    this.snapshots = undefined;
    this.changed = 'none';
  }

  /** The calls as far as they have arrived, in index order; the same array until one changes. */
  snapshotList(): readonly PartialToolCall[] {
    let list = this.snapshots;
    if (list === undefined || this.changed === 'many') {
      list = this.sorted().map(callSnapshot);
    } else if (this.changed !== 'none') {
      const copy = list.slice();
      copy[this.changed.position] = callSnapshot(this.changed);
      list = copy;
    }
    this.snapshots = list;
    this.changed = 'none';
    return list;
  }
}

const NO_CALLS: readonly ClosedToolCall[] = [];

/**
 * The pure core of `groupToolCallsByIndex`, and the call half of `CompletionTracker`: joins tool-call
 * fragments by choice and index, and closes each call once, at its `tool-call-end` or else when its
 * choice finishes; only then are its arguments parsed (a prefix can parse and still be growing). A
 * `tool-call` from upstream (`groupToolCallsByIndex` in front) is adopted as the close of its call,
 * after a check that it is the call its fragments made: its arguments are not parsed again.
 *
 * A fragment that ends a call that never started, or arrives for a closed call or after its choice
 * finished, a call that never got an id or a name, or arguments that do not parse, are a
 * `ProtocolError`.
 *
 * @example
 * ```ts
 * import { CallAssembler } from 'rxjs-llm-stream';
 *
 * const calls = new CallAssembler();
 * calls.addFragment({ type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'get_time', arguments: '{"tz":' });
 * calls.addFragment({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '"UTC"}' });
 * calls.finish(0); // [{ choice: 0, call: { index: 0, id: 'call_1', name: 'get_time', arguments: '{"tz":"UTC"}', args: { tz: 'UTC' } } }]
 * ```
 */
export class CallAssembler {
  private readonly choices = new Map<number, ChoiceCalls>();

  /** The calls of `choice`, made on first use. */
  choice(choice: number): ChoiceCalls {
    let calls = this.choices.get(choice);
    if (calls === undefined) this.choices.set(choice, (calls = new ChoiceCalls(choice)));
    return calls;
  }

  /** Adds a fragment to its call, opening the call at its first fragment. */
  addFragment(fragment: {
    readonly choice: number;
    readonly index: number;
    readonly id?: string;
    readonly name?: string;
    readonly arguments: string;
  }): CallState {
    const calls = this.choice(fragment.choice);
    let call = calls.byIndex.get(fragment.index);
    if (call === undefined) {
      if (calls.finished) throw callError(`tool call ${fragment.index} of choice ${fragment.choice} started after the choice finished`);
      call = new CallState(fragment.index);
      calls.added(call);
      calls.open++;
    } else if (call.closed !== undefined) {
      throw callError(`a fragment arrived for tool call ${fragment.index} of choice ${fragment.choice} after it closed`);
    }
    if (call.id === undefined && fragment.id) call.id = fragment.id;
    if (call.name === undefined && fragment.name) call.name = fragment.name;
    call.argumentsText.append(fragment.arguments);
    calls.markChanged(call);
    return call;
  }

  /** A `tool-call-end`: the call, closed now; undefined when it was closed already. */
  end(choice: number, index: number): ToolCall | undefined {
    const call = this.choices.get(choice)?.byIndex.get(index);
    if (call === undefined) throw callError(`tool call ${index} of choice ${choice} ended without starting`);
    return call.closed === undefined ? this.close(this.choice(choice), call) : undefined;
  }

  /** A `finish`: the choice's calls still open, closed now in index order. */
  finish(choice: number): readonly ClosedToolCall[] {
    const calls = this.choice(choice);
    calls.finished = true;
    // A repeated finish must not cost a sort of every call each time.
    if (calls.open === 0) return NO_CALLS;
    const closed: ClosedToolCall[] = [];
    for (const call of calls.sorted()) {
      if (call.closed === undefined) closed.push({ choice, call: this.close(calls, call) });
    }
    return closed;
  }

  /**
   * A whole call from upstream (a `tool-call` event): it closes its call, which must be the call
   * its fragments made (same id, name and arguments text); a call with no fragments is taken whole.
   */
  adopt(choice: number, whole: ToolCall): void {
    const calls = this.choice(choice);
    let call = calls.byIndex.get(whole.index);
    if (call === undefined) {
      call = this.addFragment({ choice, index: whole.index, id: whole.id, name: whole.name, arguments: whole.arguments });
    } else if (call.closed !== undefined) {
      return; // closed already, by its own end or by an earlier copy
    }
    if (call.id !== whole.id || call.name !== whole.name || call.arguments !== whole.arguments) {
      throw callError(`the tool-call event for tool call ${whole.index} of choice ${choice} does not match its fragments`);
    }
    call.closed = whole;
    calls.open--;
    calls.markChanged(call);
  }

  private close(calls: ChoiceCalls, call: CallState): ToolCall {
    const which = `tool call ${call.index} of choice ${calls.choice}`;
    if (call.id === undefined) throw callError(`${which} never got an id`);
    if (call.name === undefined) throw callError(`${which} (${call.id}) never got a name`);
    const text = call.arguments;
    let args: JsonValue;
    if (text.trim() === '') {
      args = {};
    } else {
      try {
        args = JSON.parse(text) as JsonValue;
      } catch (cause) {
        throw new ProtocolError(`the arguments of ${which} (${call.name}) are not valid JSON: ${excerpt(text)}`, {
          reason: 'invalid-tool-call',
          cause,
        });
      }
    }
    call.closed = { index: call.index, id: call.id, name: call.name, arguments: text, args };
    calls.open--;
    calls.markChanged(call);
    return call.closed;
  }
}

function callError(message: string): ProtocolError {
  return new ProtocolError(message, { reason: 'invalid-tool-call' });
}

function callSnapshot(call: CallState): PartialToolCall {
  return (call.snapshot ??=
    call.closed === undefined
      ? { index: call.index, id: call.id ?? null, name: call.name ?? null, arguments: call.arguments, complete: false }
      : { ...call.closed, complete: true });
}
