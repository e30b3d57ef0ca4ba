import { ProtocolError, StreamClosedEarlyError } from '../errors.js';
import {
  ChatEvent,
  ChoiceSnapshot,
  Completion,
  CompletionChoice,
  CompletionSnapshot,
  FinishReason,
  JsonValue,
  Timings,
  ToolCall,
  PartialToolCall,
  ToolCallProgress,
  Usage,
} from '../events.js';
import { mergeUsage } from '../dialects/usage.js';
import { excerpt } from '../internal/json.js';
import { TextBuilder } from '../internal/TextBuilder.js';

/** A call that an event closed, as `groupToolCallsByIndex` emits it. */
export interface ClosedToolCall {
  readonly choice: number;
  readonly call: ToolCall;
}

class CallState {
  id: string | undefined = undefined;
  name: string | undefined = undefined;
  readonly argumentsText = new TextBuilder();
  closed: ToolCall | undefined = undefined;
  /** This call's last snapshot, reused until the call changes. */
  cached: PartialToolCall | undefined = undefined;
  /** Where the call is in its choice's calls sorted by index (set when they are sorted). */
  position = 0;
  constructor(readonly index: number) {}

  get arguments(): string {
    return this.argumentsText.value ?? '';
  }
}

class ChoiceState {
  // Appended piece by piece: never re-joined, so an event costs what it carries, not the text so far.
  readonly contentText = new TextBuilder();
  readonly reasoningText = new TextBuilder();
  readonly refusalText = new TextBuilder();
  signatures: string[] | undefined = undefined;
  readonly calls = new Map<number, CallState>();
  finishReason: FinishReason | null = null;
  rawFinishReason: string | null = null;
  /** Calls not closed yet: a finish with none open has nothing to sort or close. */
  openCalls = 0;
  /**
   * Snapshot caches, dropped when what they show changes: a snapshot after every event then costs
   * only what that event changed, not a rebuild of every choice and call.
   */
  cached: ChoiceSnapshot | undefined = undefined;
  /** The last snapshot of the calls: handed out, so never changed; the next one is a changed copy. */
  cachedCalls: readonly PartialToolCall[] | undefined = undefined;
  /**
   * The calls changed since `cachedCalls`: none (undefined), one, or several (null). With many calls
   * streaming in turn, one changes per event: its snapshot replaces its entry in a copy of the last
   * array, instead of every call being looked up again.
   */
  changedCall: CallState | null | undefined = undefined;
  sorted: CallState[] | undefined = undefined;
  constructor(readonly index: number) {}

  get content(): string | null {
    return this.contentText.value;
  }
  get reasoning(): string | null {
    return this.reasoningText.value;
  }
  get refusal(): string | null {
    return this.refusalText.value;
  }
}

const NO_CALLS: readonly ClosedToolCall[] = [];

/**
 * The pure core shared by `groupToolCallsByIndex`, `finalizeCompletion` and `scanCompletion`: folds
 * `ChatEvent`s into a completion. Text is appended, never re-joined, so the cost of an event does not
 * grow with the text before it.
 *
 * Tool calls close at their `tool-call-end` or when their choice finishes; only then are their
 * arguments parsed (a prefix can parse and still be growing). A call that never got an id or a
 * name, or whose arguments do not parse, is a `ProtocolError`.
 *
 * @example
 * ```ts
 * import { CompletionTracker } from 'rxjs-llm-stream';
 *
 * const tracker = new CompletionTracker();
 * for (const event of events) tracker.apply(event);
 * const completion = tracker.complete(); // throws StreamClosedEarlyError if no finish arrived
 * ```
 */
export class CompletionTracker {
  private id: string | null = null;
  private model: string | null = null;
  private usage: Usage | null = null;
  private timings: Timings | null = null;
  private reasoningTokens = 0;
  private inReasoning = false;
  private readonly choices = new Map<number, ChoiceState>();
  private sortedChoices: ChoiceState[] | undefined = undefined;
  private cachedChoices: readonly ChoiceSnapshot[] | undefined = undefined;

  /** Folds one event in; returns the tool calls it closed (usually none). */
  apply(event: ChatEvent): readonly ClosedToolCall[] {
    switch (event.type) {
      case 'start':
        if (this.id === null) {
          this.id = event.id;
          this.model = event.model;
        }
        return NO_CALLS;
      case 'reasoning': {
        const choice = this.choice(event.choice);
        choice.reasoningText.append(event.text);
        this.touch(choice);
        this.inReasoning = true;
        if (event.reasoningTokens !== undefined) this.reasoningTokens = event.reasoningTokens;
        return NO_CALLS;
      }
      case 'reasoning-signature':
        (this.choice(event.choice).signatures ??= []).push(event.signature);
        return NO_CALLS;
      case 'content':
      case 'refusal': {
        const choice = this.choice(event.choice);
        (event.type === 'content' ? choice.contentText : choice.refusalText).append(event.text);
        this.touch(choice);
        this.inReasoning = false;
        return NO_CALLS;
      }
      case 'tool-call-delta': {
        const choice = this.choice(event.choice);
        const call = this.openCall(choice, event.index);
        if (call.id === undefined && event.id) call.id = event.id;
        if (call.name === undefined && event.name) call.name = event.name;
        call.argumentsText.append(event.arguments);
        this.touchCall(choice, call);
        this.inReasoning = false;
        return NO_CALLS;
      }
      case 'tool-call-end': {
        const call = this.choices.get(event.choice)?.calls.get(event.index);
        if (call === undefined) {
          throw new ProtocolError(`tool call ${event.index} of choice ${event.choice} ended without starting`);
        }
        if (call.closed !== undefined) return NO_CALLS;
        return [{ choice: event.choice, call: this.close(event.choice, call) }];
      }
      case 'finish': {
        const choice = this.choice(event.choice);
        choice.rawFinishReason = event.raw;
        choice.finishReason = event.reason === 'stop' && choice.calls.size > 0 ? 'tool_calls' : event.reason;
        this.touch(choice);
        // A repeated finish must not cost a sort of every call each time.
        if (choice.openCalls === 0) return NO_CALLS;
        let closed: ClosedToolCall[] | undefined;
        for (const call of sortedCalls(choice)) {
          if (call.closed !== undefined) continue;
          (closed ??= []).push({ choice: event.choice, call: this.close(event.choice, call) });
        }
        return closed ?? NO_CALLS;
      }
      case 'usage':
        this.usage = mergeUsage(this.usage, event.usage);
        return NO_CALLS;
      case 'timings':
        this.timings = event.timings;
        return NO_CALLS;
      default:
        // progress, done, and tool-call (finalizeCompletion works with or without
        // groupToolCallsByIndex in front, so it builds calls from their fragments itself).
        return NO_CALLS;
    }
  }

  /** What is known of a call while it streams. */
  progress(choice: number, index: number): ToolCallProgress {
    const call = this.choices.get(choice)?.calls.get(index);
    return { id: call?.id ?? null, name: call?.name ?? null, arguments: call?.arguments ?? '' };
  }

  /** True once every choice seen has finished (and at least one has). */
  get finished(): boolean {
    if (this.choices.size === 0) return false;
    for (const choice of this.choices.values()) if (choice.finishReason === null) return false;
    return true;
  }

  /** The completion so far. */
  snapshot(): CompletionSnapshot {
    const choices = (this.cachedChoices ??= this.sortedChoiceStates().map(choiceSnapshot));
    const first = choices[0];
    return {
      id: this.id,
      model: this.model,
      content: first?.content ?? null,
      reasoning: first?.reasoning ?? null,
      refusal: first?.refusal ?? null,
      toolCalls: first?.toolCalls ?? [],
      finishReason: first?.finishReason ?? null,
      rawFinishReason: first?.rawFinishReason ?? null,
      usage: this.usage,
      timings: this.timings,
      reasoningTokens: this.reasoningTokens,
      inReasoning: this.inReasoning,
      finished: this.finished,
      choices,
    };
  }

  /**
   * The finished completion. Throws `StreamClosedEarlyError` when a choice never finished (no
   * `finish` event), with the snapshot as `partial`.
   */
  complete(): Completion {
    if (this.choices.size === 0) {
      throw new StreamClosedEarlyError('the stream ended before any finish reason: no choice arrived', {
        partial: this.snapshot(),
      });
    }
    const choices: CompletionChoice[] = [];
    for (const choice of this.sortedChoiceStates()) {
      if (choice.finishReason === null || choice.rawFinishReason === null) {
        throw new StreamClosedEarlyError(`the stream ended before choice ${choice.index} finished`, {
          partial: this.snapshot(),
        });
      }
      choices.push({
        index: choice.index,
        content: choice.content,
        reasoning: choice.reasoning,
        refusal: choice.refusal,
        toolCalls: sortedCalls(choice).map((call) => call.closed!),
        finishReason: choice.finishReason,
        rawFinishReason: choice.rawFinishReason,
        ...(choice.signatures === undefined ? {} : { reasoningSignatures: [...choice.signatures] }),
      });
    }
    const first = choices[0]!;
    return {
      id: this.id ?? '',
      model: this.model,
      content: first.content,
      reasoning: first.reasoning,
      refusal: first.refusal,
      toolCalls: first.toolCalls,
      finishReason: first.finishReason,
      rawFinishReason: first.rawFinishReason,
      usage: this.usage,
      timings: this.timings,
      reasoningTokens: this.reasoningTokens,
      ...(first.reasoningSignatures === undefined ? {} : { reasoningSignatures: first.reasoningSignatures }),
      choices,
    };
  }

  private choice(index: number): ChoiceState {
    let choice = this.choices.get(index);
    if (choice === undefined) {
      choice = new ChoiceState(index);
      this.choices.set(index, choice);
      this.sortedChoices = undefined;
      this.cachedChoices = undefined;
    }
    return choice;
  }

  private openCall(choice: ChoiceState, index: number): CallState {
    let call = choice.calls.get(index);
    if (call === undefined) {
      if (choice.finishReason !== null) {
        throw new ProtocolError(`tool call ${index} of choice ${choice.index} started after the choice finished`);
      }
      call = new CallState(index);
      choice.calls.set(index, call);
      choice.openCalls++;
      choice.sorted = undefined;
      choice.cachedCalls = undefined;
    } else if (call.closed !== undefined) {
      throw new ProtocolError(`a fragment arrived for tool call ${index} of choice ${choice.index} after it closed`);
    }
    return call;
  }

  /** Drops the cached snapshots that show `choice`. */
  private touch(choice: ChoiceState): void {
    choice.cached = undefined;
    this.cachedChoices = undefined;
  }

  /** Drops the cached snapshots that show `call`. */
  private touchCall(choice: ChoiceState, call: CallState): void {
    call.cached = undefined;
    const changed = choice.changedCall;
    choice.changedCall = changed === undefined || changed === call ? call : null;
    this.touch(choice);
  }

  private sortedChoiceStates(): ChoiceState[] {
    return (this.sortedChoices ??= [...this.choices.values()].sort((a, b) => a.index - b.index));
  }

  private close(choice: number, call: CallState): ToolCall {
    const which = `tool call ${call.index} of choice ${choice}`;
    if (call.id === undefined) throw new ProtocolError(`${which} never got an id`);
    if (call.name === undefined) throw new ProtocolError(`${which} (${call.id}) never got a name`);
    let args: JsonValue;
    const text = call.arguments;
    if (text.trim() === '') {
      args = {};
    } else {
      try {
        args = JSON.parse(text) as JsonValue;
      } catch (cause) {
        throw new ProtocolError(
          `the arguments of ${which} (${call.name}) are not valid JSON: ${excerpt(text)}`,
          { cause },
        );
      }
    }
    call.closed = { index: call.index, id: call.id, name: call.name, arguments: text, args };
    const state = this.choices.get(choice)!;
    state.openCalls--;
    this.touchCall(state, call);
    return call.closed;
  }
}

function sortedCalls(choice: ChoiceState): CallState[] {
  let sorted = choice.sorted;
  if (sorted === undefined) {
    sorted = choice.sorted = [...choice.calls.values()].sort((a, b) => a.index - b.index);
    for (let position = 0; position < sorted.length; position++) sorted[position]!.position = position;
  }
  return sorted;
}

function choiceSnapshot(choice: ChoiceState): ChoiceSnapshot {
  return (choice.cached ??= {
    index: choice.index,
    content: choice.content,
    reasoning: choice.reasoning,
    refusal: choice.refusal,
    toolCalls: callSnapshots(choice),
    finishReason: choice.finishReason,
    rawFinishReason: choice.rawFinishReason,
  });
}

function callSnapshots(choice: ChoiceState): readonly PartialToolCall[] {
  const changed = choice.changedCall;
  let calls = choice.cachedCalls;
  if (calls === undefined || changed === null) {
    calls = sortedCalls(choice).map(callSnapshot);
  } else if (changed !== undefined) {
    const copy = calls.slice();
    copy[changed.position] = callSnapshot(changed);
    calls = copy;
  }
  choice.cachedCalls = calls;
  choice.changedCall = undefined;
  return calls;
}

function callSnapshot(call: CallState): PartialToolCall {
  return (call.cached ??=
    call.closed === undefined
      ? { index: call.index, id: call.id ?? null, name: call.name ?? null, arguments: call.arguments, complete: false }
      : { ...call.closed, complete: true });
}
