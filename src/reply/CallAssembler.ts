import { ProtocolError } from '../errors/errors.js';
import { FinishReason, IncompleteToolCall, JsonValue, ToolCall } from '../types/events.js';
import { excerpt } from '../internal/json.js';
import { CallState, ChoiceCalls } from './ChoiceCalls.js';

export { CallState, ChoiceCalls } from './ChoiceCalls.js';

/** A call that an event closed, with its choice, as `groupToolCallsByIndex` emits it. */
export interface ClosedToolCall {
  readonly choice: number;
  readonly call: ToolCall;
}

/** What a `finish` settled: the calls it closed, and the one the token limit cut (at `length`). */
export interface FinishedCalls {
  readonly closed: readonly ClosedToolCall[];
  readonly incomplete: readonly { readonly choice: number; readonly call: IncompleteToolCall }[];
}

const NOTHING_FINISHED: FinishedCalls = { closed: [], incomplete: [] };

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
 * import { CallAssembler } from 'rxjs-llm-stream/core';
 *
 * const calls = new CallAssembler();
 * calls.addFragment({ type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'get_time', arguments: '{"tz":' });
 * calls.addFragment({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '"UTC"}' });
 * calls.finish(0); // [{ choice: 0, call: { index: 0, id: 'call_1', name: 'get_time', arguments: '{"tz":"UTC"}', args: { tz: 'UTC' } } }]
 * ```
 */
export class CallAssembler {
  /**
   * The choice of the last lookup: nearly every event is for the choice of the one before, and most
   * replies have one choice, so the map below is made only at a second one.
   */
  #last: ChoiceCalls | undefined = undefined;
  #choices: Map<number, ChoiceCalls> | undefined = undefined;

  /** The calls of `choice`, made on first use. */
  choice(choice: number): ChoiceCalls {
    const last = this.#last;
    if (last !== undefined && last.choice === choice) return last;
    let calls = this.#choices?.get(choice);
    if (calls === undefined) {
      calls = new ChoiceCalls(choice);
      // The first choice needs no map: it waits for a second.
      if (last !== undefined) (this.#choices ??= new Map([[last.choice, last]])).set(choice, calls);
    }
    return (this.#last = calls);
  }

  /** Adds a fragment to its call, opening the call at its first fragment. */
  addFragment(fragment: {
    readonly choice: number;
    readonly index: number;
    readonly id?: string;
    readonly name?: string;
    readonly arguments: string;
    readonly kind?: 'custom';
    readonly namespace?: string;
  }): CallState {
    const calls = this.choice(fragment.choice);
    let call = calls.get(fragment.index);
    if (call === undefined) {
      if (calls.finished) throw callError(`tool call ${fragment.index} of choice ${fragment.choice} started after the choice finished`);
      // A call after one that ended broken: the broken one was not cut by the end of the reply.
      if (calls.failed !== undefined) throw calls.failed.failure!;
      call = new CallState(fragment.index);
      calls.added(call);
      calls.open++;
    } else if (call.closed !== undefined || call.ended) {
      throw callError(`a fragment arrived for tool call ${fragment.index} of choice ${fragment.choice} after it closed`);
    }
    if (fragment.kind === 'custom') call.kind = 'custom';
    if (call.id === undefined && fragment.id) call.id = fragment.id;
    if (call.name === undefined && fragment.name) call.name = fragment.name;
    if (call.namespace === undefined && fragment.namespace) call.namespace = fragment.namespace;
    call.argumentsText.append(fragment.arguments);
    calls.markChanged(call);
    return call;
  }

  /**
   * A `tool-call-end`: the call, closed now; undefined when it was closed already, or when it is not
   * whole (its arguments do not parse): that is reported at the finish, unless the finish says the
   * token limit cut it, or as soon as another call starts.
   */
  end(choice: number, index: number): ToolCall | undefined {
    const last = this.#last;
    const call = (last !== undefined && last.choice === choice ? last : this.#choices?.get(choice))?.get(index);
    if (call === undefined) throw callError(`tool call ${index} of choice ${choice} ended without starting`);
    if (call.closed !== undefined || call.ended) return undefined;
    call.ended = true;
    const calls = this.choice(choice);
    try {
      return this.#close(calls, call);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      call.failure = error;
      calls.failed = call;
      return undefined;
    }
  }

  /**
   * A `finish`: the choice's calls still open, closed now in index order. At a `length` finish the
   * last call may have been cut: if it is not whole (its arguments do not parse, or it is a custom
   * call no `tool-call-end` closed), it is kept apart as incomplete instead of failing the stream.
   */
  finish(choice: number, reason?: FinishReason): FinishedCalls {
    const calls = this.choice(choice);
    calls.finished = true;
    // A repeated finish must not cost a sort of every call each time.
    if (calls.open === 0) return NOTHING_FINISHED;
    const sorted = calls.sorted();
    const last = sorted[sorted.length - 1];
    const closed: ClosedToolCall[] = [];
    const incomplete: { choice: number; call: IncompleteToolCall }[] = [];
    for (const call of sorted) {
      if (call.closed !== undefined || call.incomplete !== undefined) continue;
      if (call === last && reason === 'length' && (call.failure !== undefined || !this.#isWhole(call))) {
        incomplete.push({ choice, call: this.#cut(calls, call) });
      } else if (call.failure !== undefined) {
        throw call.failure;
      } else {
        closed.push({ choice, call: this.#close(calls, call) });
      }
    }
    return { closed, incomplete };
  }

  /**
   * A call cut by the token limit, from upstream (a `tool-call-incomplete` event): it must be the
   * call its fragments made.
   */
  adoptIncomplete(choice: number, cut: IncompleteToolCall): void {
    const calls = this.choice(choice);
    let call = calls.get(cut.index);
    if (call === undefined) {
      call = this.addFragment({
        choice,
        index: cut.index,
        ...(cut.id === null ? {} : { id: cut.id }),
        ...(cut.name === null ? {} : { name: cut.name }),
        ...(cut.kind === 'custom' ? { kind: 'custom' as const } : {}),
        arguments: cut.arguments,
      });
    } else if (call.incomplete !== undefined) {
      return;
    }
    if ((call.id ?? null) !== cut.id || (call.name ?? null) !== cut.name || call.arguments !== cut.arguments || call.closed !== undefined) {
      throw callError(`the tool-call-incomplete event for tool call ${cut.index} of choice ${choice} does not match its fragments`);
    }
    this.#cut(calls, call);
  }

  /** True when a call's text is whole: a custom call once ended, a function call whose arguments parse. */
  #isWhole(call: CallState): boolean {
    if (call.kind === 'custom') return call.ended;
    if (call.id === undefined || call.name === undefined) return false;
    const text = call.arguments;
    if (text.trim() === '') return true;
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  #cut(calls: ChoiceCalls, call: CallState): IncompleteToolCall {
    const cut: IncompleteToolCall = {
      ...(call.kind === 'custom' ? { kind: 'custom' as const } : {}),
      index: call.index,
      id: call.id ?? null,
      name: call.name ?? null,
      arguments: call.arguments,
    };
    call.incomplete = cut;
    calls.cutCount++;
    call.failure = undefined;
    if (calls.failed === call) calls.failed = undefined;
    calls.open--;
    calls.markChanged(call);
    return cut;
  }

  /**
   * A whole call from upstream (a `tool-call` event): it closes its call, which must be the call
   * its fragments made (same id, name and arguments text); a call with no fragments is taken whole.
   */
  adopt(choice: number, whole: ToolCall): void {
    const calls = this.choice(choice);
    let call = calls.get(whole.index);
    if (call === undefined) {
      const namespace = whole.namespace;
      call = this.addFragment({
        choice,
        index: whole.index,
        id: whole.id,
        name: whole.name,
        arguments: whole.arguments,
        ...(namespace === undefined ? {} : { namespace }),
      });
    } else if (call.closed !== undefined) {
      return; // closed already, by its own end or by an earlier copy
    } else if (call.incomplete !== undefined || call.failure !== undefined) {
      throw callError(`the tool-call event for tool call ${whole.index} of choice ${choice} names a call that is not whole`);
    }
    if (
      call.id !== whole.id ||
      call.name !== whole.name ||
      call.arguments !== whole.arguments ||
      call.kind !== (whole.kind ?? 'function')
    ) {
      throw callError(`the tool-call event for tool call ${whole.index} of choice ${choice} does not match its fragments`);
    }
    call.closed = whole;
    call.ended = true;
    calls.open--;
    calls.markChanged(call);
  }

  #close(calls: ChoiceCalls, call: CallState): ToolCall {
    const which = `tool call ${call.index} of choice ${calls.choice}`;
    if (call.id === undefined) throw callError(`${which} never got an id`);
    if (call.name === undefined) throw callError(`${which} (${call.id}) never got a name`);
    const text = call.arguments;
    if (call.kind === 'custom') {
      // Free-form input: raw text, never parsed.
      const namespace = call.namespace;
      call.closed = {
        kind: 'custom',
        index: call.index,
        id: call.id,
        name: call.name,
        arguments: text,
        args: text,
        ...(namespace === undefined ? {} : { namespace }),
      };
      return this.#closed(calls, call);
    }
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
    const namespace = call.namespace;
    call.closed = {
      index: call.index,
      id: call.id,
      name: call.name,
      arguments: text,
      args,
      ...(namespace === undefined ? {} : { namespace }),
    };
    return this.#closed(calls, call);
  }

  #closed(calls: ChoiceCalls, call: CallState): ToolCall {
    calls.open--;
    calls.markChanged(call);
    return call.closed!;
  }
}

function callError(message: string): ProtocolError {
  return new ProtocolError(message, { reason: 'invalid-tool-call' });
}
