import type { Completion } from '../types/completion.js';
import type { ChatEvent } from '../types/events.js';
import type { FinishReason, IncompleteToolCall, JsonValue, Usage } from '../types/replyParts.js';
import { CallView, ChoiceView, CutCallView, ReplyView, isRaw, isWholeJson, parsedJson } from './replyView.js';

// What arrived, seen as the expected view sees the reply: from a `Completion`, or folded from a
// stream's events by this file's own small fold (not the library's tracker, which is under test).

/** A call as it arrived. */
interface ArrivedCall {
  readonly kind?: 'function' | 'custom';
  readonly id: string | null;
  readonly name: string | null;
  readonly arguments: string;
  /** The parsed arguments, when the call is whole. */
  readonly args?: JsonValue;
}

/** A choice as it arrived, before it is seen like the expected one. */
interface ArrivedChoice {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: readonly ArrivedCall[];
  readonly incompleteToolCalls: readonly IncompleteToolCall[];
  readonly finishReason: FinishReason | null;
  readonly rawFinishReason: string | null;
  readonly reasoningSignatures: readonly string[];
}

interface ArrivedTop {
  readonly id: string | null;
  readonly model: string | null;
  readonly usage: Usage | null;
}

/** The id of an arrived call or cut, shown only where the expected one names an id (or there is no expected one). */
const idLike = (call: { readonly id: string | null }, like: { readonly id?: unknown } | undefined): { id?: string | null } =>
  like === undefined || like.id !== undefined ? { id: call.id } : {};

function callView(call: ArrivedCall, like: CallView | undefined): CallView {
  const asRaw = like !== undefined && isRaw(like.arguments);
  return {
    ...idLike(call, like),
    ...(like?.kind === undefined ? {} : { kind: call.kind ?? 'function' }),
    name: call.name,
    arguments: asRaw || call.args === undefined ? { raw: call.arguments } : call.args,
  };
}

function cutView(call: IncompleteToolCall, like: CutCallView | undefined): CutCallView {
  return { ...idLike(call, like), name: call.name, arguments: call.arguments };
}

/** The fields of `usage` the expected usage names, or all of it when none is expected. */
function usageView(usage: Usage | null, like: ReplyView['usage']): ReplyView['usage'] {
  if (usage === null) return null;
  const fields: Readonly<Record<string, unknown>> = { ...usage };
  if (like === null || like === undefined) return fields;
  return Object.fromEntries(Object.keys(like).map((field) => [field, fields[field]]));
}

function topView(top: ArrivedTop, like: ReplyView): Omit<ReplyView, 'choices'> {
  return {
    ...(like.id === undefined ? {} : { id: top.id }),
    ...(like.model === undefined ? {} : { model: top.model }),
    ...(like.usage === undefined ? {} : { usage: usageView(top.usage, like.usage) }),
  };
}

function choiceView(arrived: ArrivedChoice, like: ChoiceView | undefined): ChoiceView {
  const showCut = arrived.incompleteToolCalls.length > 0 || like?.incompleteToolCalls !== undefined;
  return {
    text: arrived.text,
    reasoning: arrived.reasoning,
    toolCalls: arrived.toolCalls.map((call, i) => callView(call, like?.toolCalls[i])),
    ...(showCut
      ? { incompleteToolCalls: arrived.incompleteToolCalls.map((call, i) => cutView(call, like?.incompleteToolCalls?.[i])) }
      : {}),
    finishReason: arrived.finishReason,
    ...(like?.rawFinishReason === undefined ? {} : { rawFinishReason: arrived.rawFinishReason }),
    ...(like?.reasoningSignatures === undefined ? {} : { reasoningSignatures: arrived.reasoningSignatures }),
  };
}

/** A completion seen as `like` (the expected view) sees a reply. */
export function completionView(completion: Completion, like: ReplyView): ReplyView {
  return {
    ...topView(completion, like),
    choices: completion.choices.map((choice, i) =>
      choiceView(
        {
          text: choice.content ?? '',
          reasoning: choice.reasoning ?? '',
          toolCalls: choice.toolCalls,
          incompleteToolCalls: choice.incompleteToolCalls ?? [],
          finishReason: choice.finishReason,
          rawFinishReason: choice.rawFinishReason,
          reasoningSignatures: choice.reasoningSignatures ?? [],
        },
        like.choices[i],
      ),
    ),
  };
}

/** One choice's events, folded. */
interface ChoiceFold {
  text: string;
  reasoning: string;
  readonly signatures: string[];
  /** From `tool-call` events (groupToolCallsByIndex), by index. */
  readonly closed: Map<number, ArrivedCall>;
  readonly cut: Map<number, IncompleteToolCall>;
  /** From `tool-call-delta` fragments, by index: what an ungrouped stream has. */
  readonly fragments: Map<number, ArrivedCall>;
  /** The calls a `tool-call-end` closed. */
  readonly ended: Set<number>;
  finishReason: FinishReason | null;
  rawFinishReason: string | null;
}

const emptyFold = (): ChoiceFold => ({
  text: '',
  reasoning: '',
  signatures: [],
  closed: new Map(),
  cut: new Map(),
  fragments: new Map(),
  ended: new Set(),
  finishReason: null,
  rawFinishReason: null,
});

function foldEvents(events: readonly ChatEvent[]): { top: ArrivedTop; choices: ChoiceFold[] } {
  let top: ArrivedTop = { id: null, model: null, usage: null };
  const choices: ChoiceFold[] = [];
  const choice = (index: number): ChoiceFold => (choices[index] ??= emptyFold());
  for (const event of events) {
    if (event.type === 'start') top = { ...top, id: top.id ?? (event.id === '' ? null : event.id), model: top.model ?? event.model };
    else if (event.type === 'content') choice(event.choice).text += event.text;
    else if (event.type === 'reasoning') choice(event.choice).reasoning += event.text;
    else if (event.type === 'retract') {
      const fold = choice(event.choice);
      fold.text = fold.text.slice(0, Math.max(0, fold.text.length - event.content));
      fold.reasoning = fold.reasoning.slice(0, Math.max(0, fold.reasoning.length - event.reasoning));
    } else if (event.type === 'reasoning-signature') choice(event.choice).signatures.push(event.signature);
    else if (event.type === 'tool-call') choice(event.choice).closed.set(event.call.index, event.call);
    else if (event.type === 'tool-call-incomplete') choice(event.choice).cut.set(event.call.index, event.call);
    else if (event.type === 'tool-call-delta') {
      const fragments = choice(event.choice).fragments;
      const call = fragments.get(event.index);
      fragments.set(event.index, {
        ...(event.kind === undefined && call?.kind === undefined ? {} : { kind: 'custom' }),
        id: call?.id ?? event.id ?? null,
        name: call?.name ?? event.name ?? null,
        arguments: (call?.arguments ?? '') + event.arguments,
      });
    } else if (event.type === 'finish') {
      choice(event.choice).finishReason = event.reason;
      choice(event.choice).rawFinishReason = event.raw;
    } else if (event.type === 'usage') top = { ...top, usage: mergedUsage(top.usage, event.usage) };
    else if (event.type === 'tool-call-end') choice(event.choice).ended.add(event.index);
  }
  return { top, choices };
}

/** Usage reports joined as the events promise: a later value replaces an earlier one; a field it lacks (or leaves null) keeps its value. */
function mergedUsage(previous: Usage | null, next: Usage): Usage {
  const known = Object.entries(next).filter(([, value]) => value !== null && value !== undefined);
  return { promptTokens: null, completionTokens: null, totalTokens: null, ...previous, ...Object.fromEntries(known) };
}

const byIndex = <T>(map: Map<number, T>): [number, T][] => [...map.entries()].sort(([a], [b]) => a - b);

/** The calls of a folded choice: the closed ones when the stream was grouped, else its fragments, a cut last one kept apart. */
function callsOf(fold: ChoiceFold): Pick<ArrivedChoice, 'toolCalls' | 'incompleteToolCalls'> {
  if (fold.closed.size > 0 || fold.cut.size > 0) {
    return { toolCalls: byIndex(fold.closed).map(([, call]) => call), incompleteToolCalls: byIndex(fold.cut).map(([, call]) => call) };
  }
  // Ungrouped: the fragments joined, read as groupToolCallsByIndex would (a function call's whole
  // text parsed; at a `length` finish, a last call that is not whole kept apart as cut: a function
  // call whose text is not JSON, a custom call no `tool-call-end` closed).
  const fragments = byIndex(fold.fragments);
  const last = fragments[fragments.length - 1];
  const whole = ([index, call]: [number, ArrivedCall]): boolean =>
    call.kind === 'custom' ? fold.ended.has(index) : isWholeJson(call.arguments);
  const cut = fold.finishReason === 'length' && last !== undefined && !whole(last) ? last : undefined;
  return {
    toolCalls: (cut === undefined ? fragments : fragments.slice(0, -1)).map(([, call]) =>
      call.kind !== 'custom' && isWholeJson(call.arguments) ? { ...call, args: parsedJson(call.arguments) } : call,
    ),
    incompleteToolCalls: cut === undefined ? [] : [{ index: cut[0], id: cut[1].id, name: cut[1].name, arguments: cut[1].arguments }],
  };
}

/** A stream's events seen as `like` sees a reply: the text, calls, finish and usage they carry. */
export function eventsView(events: readonly ChatEvent[], like: ReplyView): ReplyView {
  const { top, choices } = foldEvents(events);
  return {
    ...topView(top, like),
    choices: Array.from(choices, (fold = emptyFold(), i) =>
      choiceView(
        {
          text: fold.text,
          reasoning: fold.reasoning,
          ...callsOf(fold),
          finishReason: fold.finishReason,
          rawFinishReason: fold.rawFinishReason,
          reasoningSignatures: fold.signatures,
        },
        like.choices[i],
      ),
    ),
  };
}
