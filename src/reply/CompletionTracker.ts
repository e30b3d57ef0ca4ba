import { StreamClosedEarlyError } from '../errors/errors.js';
import {
  ChatEvent,
  ChoiceSnapshot,
  Completion,
  CompletionChoice,
  CompletionSnapshot,
  FinishReason,
  ReplyTimings,
  Timings,
  Usage,
} from '../types/events.js';
import { mergeUsage } from '../internal/mergeUsage.js';
import { TextBuilder } from '../internal/TextBuilder.js';
import { CallAssembler, ChoiceCalls } from './CallAssembler.js';
import { CallMetadata } from './parts/CallMetadata.js';
import { MetadataBag } from './parts/MetadataBag.js';
import { CHOICE_ZERO_PARTS } from './parts/replyParts.js';
import { ReplyExtras, withExtras } from './ReplyExtras.js';

/** One choice as far as it has arrived: its text, kept apart from its calls (a `CallAssembler`'s). */
class ChoiceState {
  // Appended piece by piece: never re-joined, so an event costs what it carries, not the text so far.
  readonly contentText = new TextBuilder();
  readonly reasoningText = new TextBuilder();
  readonly refusalText = new TextBuilder();
  signatures: string[] | undefined = undefined;
  /** The parts declared in `REPLY_PARTS` (log probabilities, sources, ...): made at the first of them. */
  extras: ReplyExtras | undefined = undefined;
  /** What came with each tool call that no field names, by the call's index: made at the first. */
  callMetadata: CallMetadata | undefined = undefined;
  finishReason: FinishReason | null = null;
  rawFinishReason: string | null = null;
  /**
   * This choice's last snapshot, dropped when what it shows changes: a snapshot after every event
   * then costs only what that event changed, not a rebuild of every choice and call.
   */
  snapshot: ChoiceSnapshot | undefined = undefined;
  constructor(
    readonly index: number,
    readonly calls: ChoiceCalls,
  ) {}
}

/**
 * The pure core of `finalizeCompletion` and `scanCompletion`: folds `ChatEvent`s into a completion.
 * Text is appended, never re-joined, so the cost of an event does not grow with the text before it.
 *
 * Tool calls are joined by a `CallAssembler`: they close at their `tool-call-end` or when their
 * choice finishes, and only then are their arguments parsed; a `tool-call` event from
 * `groupToolCallsByIndex` in front closes its call with the arguments it already parsed. A call
 * that never got an id or a name, or whose arguments do not parse, is a `ProtocolError`.
 *
 * @example
 * ```ts
 * import { CompletionTracker } from 'rxjs-llm-stream/core';
 *
 * const tracker = new CompletionTracker();
 * for (const event of events) tracker.apply(event);
 * const completion = tracker.complete(); // throws StreamClosedEarlyError if no finish arrived
 * ```
 */
export class CompletionTracker {
  #id: string | null = null;
  #model: string | null = null;
  #usage: Usage | null = null;
  #timings: Timings | null = null;
  #replyTimings: ReplyTimings | undefined = undefined;
  /** What came with the reply as a whole that no field names: made at the first. */
  #metadata: MetadataBag | undefined = undefined;
  #reasoningTokens = 0;
  #inReasoning = false;
  readonly #calls = new CallAssembler();
  /** Every choice by index, made at a second choice: most replies have one, held in `#lastChoice`. */
  #choices: Map<number, ChoiceState> | undefined = undefined;
  #sortedChoices: ChoiceState[] | undefined = undefined;
  #lastChoice: ChoiceState | undefined = undefined;
  #snapshots: readonly ChoiceSnapshot[] | undefined = undefined;

  /** Folds one event in. */
  apply(event: ChatEvent): void {
    // Text first: nearly every event of a reply is one, and a switch tests its cases in order.
    if (event.type === 'content') {
      const choice = this.#choice(event.choice);
      this.#appendText(choice, choice.contentText, event.text);
      return;
    }
    switch (event.type) {
      case 'start':
        if (this.#id === null) {
          this.#id = event.id;
          this.#model = event.model;
        } else {
          // A later start fills what the first lacked (a model named only at the end).
          if (this.#id === '' && event.id !== '') this.#id = event.id;
          if (this.#model === null && event.model !== null) this.#model = event.model;
        }
        return;
      case 'provider-metadata': {
        if (event.choice === undefined) {
          (this.#metadata ??= new MetadataBag()).apply(event);
          return;
        }
        const choice = this.#choice(event.choice);
        if (event.call !== undefined) {
          (choice.callMetadata ??= new CallMetadata()).apply(event);
        } else {
          (choice.extras ??= new ReplyExtras()).apply(event);
        }
        this.#dropSnapshots(choice);
        return;
      }
      case 'reasoning': {
        const choice = this.#choice(event.choice);
        choice.reasoningText.append(event.text);
        this.#dropSnapshots(choice);
        this.#inReasoning = true;
        if (event.reasoningTokens !== undefined) this.#reasoningTokens = event.reasoningTokens;
        return;
      }
      case 'retract': {
        const choice = this.#choice(event.choice);
        choice.contentText.removeLast(event.content);
        choice.reasoningText.removeLast(event.reasoning);
        this.#dropSnapshots(choice);
        return;
      }
      case 'reasoning-signature': {
        const choice = this.#choice(event.choice);
        (choice.signatures ??= []).push(event.signature);
        this.#dropSnapshots(choice);
        return;
      }
      case 'refusal': {
        const choice = this.#choice(event.choice);
        this.#appendText(choice, choice.refusalText, event.text);
        return;
      }
      case 'tool-call-delta':
        this.#calls.addFragment(event);
        this.#dropSnapshots(this.#choice(event.choice));
        this.#inReasoning = false;
        return;
      case 'tool-call-end':
        this.#calls.end(event.choice, event.index);
        this.#dropSnapshots(this.#choice(event.choice));
        return;
      case 'tool-call':
        // Closed upstream (groupToolCallsByIndex): its parse is taken, not made again.
        this.#calls.adopt(event.choice, event.call);
        this.#dropSnapshots(this.#choice(event.choice));
        return;
      case 'tool-call-incomplete':
        this.#calls.adoptIncomplete(event.choice, event.call);
        this.#dropSnapshots(this.#choice(event.choice));
        return;
      case 'finish': {
        const choice = this.#choice(event.choice);
        choice.rawFinishReason = event.raw;
        choice.finishReason = event.reason;
        this.#calls.finish(event.choice, event.reason);
        this.#dropSnapshots(choice);
        return;
      }
      case 'usage':
        this.#usage = mergeUsage(this.#usage, event.usage);
        return;
      case 'timings':
        this.#timings = event.timings;
        return;
      case 'reply-timings':
        this.#replyTimings = event.timings;
        return;
      case 'opaque-item': {
        // Where it arrived in the text is known here, not in the dialect: the event gets it.
        const choice = this.#choice(event.choice);
        const at = event.at ?? { reasoning: choice.reasoningText.length, content: choice.contentText.length };
        (choice.extras ??= new ReplyExtras()).apply(event.at === undefined ? { ...event, at } : event);
        this.#dropSnapshots(choice);
        return;
      }
      case 'provider-tool-call': {
        // As for an opaque item: where it came is known here. The items and calls before it order
        // it among them where they share a place in the text.
        const choice = this.#choice(event.choice);
        const extras = (choice.extras ??= new ReplyExtras());
        const at = event.at ?? {
          reasoning: choice.reasoningText.length,
          content: choice.contentText.length,
          items: extras.view().opaqueItems?.length ?? 0,
          calls: this.#calls.choice(event.choice).count,
        };
        extras.apply(event.at === undefined ? { ...event, at } : event);
        this.#dropSnapshots(choice);
        return;
      }
      default:
        // The parts declared in REPLY_PARTS (log probabilities, sources, audio, provider tools).
        if (ReplyExtras.carries(event)) {
          const choice = this.#choice((event as { readonly choice: number }).choice);
          (choice.extras ??= new ReplyExtras()).apply(event);
          this.#dropSnapshots(choice);
        }
      // progress, unknown and done change nothing of the completion.
    }
  }

  /** True once every choice seen has finished (and at least one has). */
  get finished(): boolean {
    const choices = this.#choices;
    if (choices === undefined) return this.#lastChoice !== undefined && this.#lastChoice.finishReason !== null;
    for (const choice of choices.values()) if (choice.finishReason === null) return false;
    return true;
  }

  /** The completion so far. */
  snapshot(): CompletionSnapshot {
    const choices = (this.#snapshots ??= this.#sortedChoiceStates().map(choiceSnapshot));
    const first = choices[0];
    const snapshot: CompletionSnapshot = {
      id: this.#id,
      model: this.#model,
      content: first?.content ?? null,
      reasoning: first?.reasoning ?? null,
      refusal: first?.refusal ?? null,
      toolCalls: first?.toolCalls ?? [],
      finishReason: first?.finishReason ?? null,
      rawFinishReason: first?.rawFinishReason ?? null,
      usage: this.#usage,
      timings: this.#timings,
      reasoningTokens: this.#reasoningTokens,
      inReasoning: this.#inReasoning,
      finished: this.finished,
      choices,
      ...(this.#metadata === undefined ? {} : { providerMetadata: this.#metadata.view() }),
      ...(this.#replyTimings === undefined ? {} : { replyTimings: this.#replyTimings }),
    };
    return first === undefined ? snapshot : withChoiceParts(snapshot, first);
  }

  /**
   * The finished completion. Throws `StreamClosedEarlyError` when a choice never finished (no
   * `finish` event), with the snapshot as `partial`.
   */
  complete(): Completion {
    if (this.#lastChoice === undefined) {
      throw new StreamClosedEarlyError('the stream ended before any finish reason: no choice arrived', {
        reason: 'unfinished',
        partial: this.snapshot(),
      });
    }
    const choices: CompletionChoice[] = [];
    for (const choice of this.#sortedChoiceStates()) {
      if (choice.finishReason === null || choice.rawFinishReason === null) {
        throw new StreamClosedEarlyError(`the stream ended before choice ${choice.index} finished`, {
          reason: 'unfinished',
          partial: this.snapshot(),
        });
      }
      const incomplete = choice.calls.incompleteList();
      const done: CompletionChoice = {
        index: choice.index,
        content: choice.contentText.value,
        reasoning: choice.reasoningText.value,
        refusal: choice.refusalText.value,
        toolCalls: withCallMetadata(choice, choice.calls.closedList()),
        finishReason: choice.finishReason,
        rawFinishReason: choice.rawFinishReason,
        ...(choice.signatures === undefined ? {} : { reasoningSignatures: [...choice.signatures] }),
        ...(incomplete.length === 0 ? {} : { incompleteToolCalls: incomplete }),
      };
      choices.push(choice.extras === undefined ? done : withExtras(done, choice.extras.view()));
    }
    const first = choices[0]!;
    return withChoiceParts<Completion>(
      {
        id: this.#id ?? '',
        model: this.#model,
        content: first.content,
        reasoning: first.reasoning,
        refusal: first.refusal,
        toolCalls: first.toolCalls,
        finishReason: first.finishReason,
        rawFinishReason: first.rawFinishReason,
        usage: this.#usage,
        timings: this.#timings,
        reasoningTokens: this.#reasoningTokens,
        choices,
        ...(this.#metadata === undefined ? {} : { providerMetadata: this.#metadata.view() }),
        ...(this.#replyTimings === undefined ? {} : { replyTimings: this.#replyTimings }),
      },
      first,
    );
  }

  #choice(index: number): ChoiceState {
    // Nearly every event is for the choice of the one before: no map lookup for it.
    const last = this.#lastChoice;
    if (last !== undefined && last.index === index) return last;
    let choice = this.#choices?.get(index);
    if (choice === undefined) {
      choice = new ChoiceState(index, this.#calls.choice(index));
      if (last !== undefined) (this.#choices ??= new Map([[last.index, last]])).set(index, choice);
      this.#sortedChoices = undefined;
      this.#snapshots = undefined;
    }
    this.#lastChoice = choice;
    return choice;
  }

  /** Text of the reply itself (content or refusal): it ends any reasoning before it. */
  #appendText(choice: ChoiceState, builder: TextBuilder, text: string): void {
    builder.append(text);
    this.#dropSnapshots(choice);
    this.#inReasoning = false;
  }

  /** Drops the snapshots that show `choice`. */
  #dropSnapshots(choice: ChoiceState): void {
    choice.snapshot = undefined;
    this.#snapshots = undefined;
  }

  #sortedChoiceStates(): ChoiceState[] {
    const choices = this.#choices;
    if (choices === undefined) return (this.#sortedChoices ??= this.#lastChoice === undefined ? [] : [this.#lastChoice]);
    return (this.#sortedChoices ??= [...choices.values()].sort((a, b) => a.index - b.index));
  }
}

function choiceSnapshot(choice: ChoiceState): ChoiceSnapshot {
  if (choice.snapshot !== undefined) return choice.snapshot;
  const snapshot: ChoiceSnapshot = {
    index: choice.index,
    content: choice.contentText.value,
    reasoning: choice.reasoningText.value,
    refusal: choice.refusalText.value,
    toolCalls: withCallMetadata(choice, choice.calls.snapshotList()),
    finishReason: choice.finishReason,
    rawFinishReason: choice.rawFinishReason,
  };
  const incomplete = choice.calls.incompleteList();
  // Copies: the tracker goes on appending to its own lists.
  const withParts =
    choice.signatures === undefined && incomplete.length === 0
      ? snapshot
      : {
          ...snapshot,
          ...(choice.signatures === undefined ? {} : { reasoningSignatures: [...choice.signatures] }),
          ...(incomplete.length === 0 ? {} : { incompleteToolCalls: incomplete }),
        };
  return (choice.snapshot = choice.extras === undefined ? withParts : withExtras(withParts, choice.extras.view()));
}

/** The fields of a choice that a completion or snapshot shows at its top level too (choice 0's), only those present. */
const CHOICE_PARTS: readonly string[] = ['reasoningSignatures', 'incompleteToolCalls', ...CHOICE_ZERO_PARTS];

/** The calls of `choice`, each that came with provider metadata a copy with it: the list itself when none did. */
function withCallMetadata<T extends { readonly index: number }>(choice: ChoiceState, calls: readonly T[]): T[] {
  return choice.callMetadata === undefined ? (calls as T[]) : choice.callMetadata.shown(choice.index, calls);
}

/** `target` with choice 0's optional parts at its top level, getters kept (see `withExtras`). */
function withChoiceParts<T extends object>(target: T, first: ChoiceSnapshot | CompletionChoice): T {
  for (const key of CHOICE_PARTS) {
    const descriptor = Object.getOwnPropertyDescriptor(first, key);
    if (descriptor !== undefined) Object.defineProperty(target, key, descriptor);
  }
  return target;
}
