import type { FinishReason, JsonValue } from '../types/replyParts.js';
import type { TestChoice, TestReply, TestToolCall } from '../dialects/writing/TestReply.js';

// What the assertions compare: a reply as the test wrote it, and a completion (or a stream's
// events) reduced to the same shape (actualView.ts), keeping only what the reply says. A reply that
// names no id, no model, no usage, or a call without an id, leaves those out on both sides.

/** A call as compared: its arguments as JSON, or `{ raw }` (compared as text) where the reply gave text. */
export interface CallView {
  readonly id?: string | null;
  readonly kind?: 'function' | 'custom';
  readonly name: string | null;
  readonly arguments: JsonValue | { readonly raw: string };
}

/** A call the token limit cut, as compared: its text. */
export interface CutCallView {
  readonly id?: string | null;
  readonly name: string | null;
  readonly arguments: string;
}

/** One choice as compared. */
export interface ChoiceView {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: readonly CallView[];
  /** Only where the reply has a cut call, or the completion one. */
  readonly incompleteToolCalls?: readonly CutCallView[];
  readonly finishReason: FinishReason | null;
  /** Only where the reply names it. */
  readonly rawFinishReason?: string | null;
  /** Only where the reply names them. */
  readonly reasoningSignatures?: readonly string[];
}

/** A reply as compared. */
export interface ReplyView {
  readonly id?: string | null;
  readonly model?: string | null;
  readonly usage?: { readonly [field: string]: unknown } | null;
  readonly choices: readonly ChoiceView[];
}

/** True when `text` is whole JSON (or blank, which a call reads as `{}`): the library's test of a cut call. */
export function isWholeJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What whole JSON text parses to, blank text as `{}` (as the library reads a call's arguments). */
export function parsedJson(text: string): JsonValue {
  return text.trim() === '' ? {} : (JSON.parse(text) as JsonValue);
}

/** True for arguments given as text (`{ raw }`), not as a JSON value. */
export function isRaw(value: CallView['arguments']): value is { readonly raw: string } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && 'raw' in value;
}

const idOf = (call: { readonly id?: string }): { id?: string } => (call.id === undefined ? {} : { id: call.id });

/** A choice of the reply as the library promises to assemble it. */
function choiceOf(choice: TestChoice): ChoiceView {
  const calls: readonly TestToolCall[] = choice.toolCalls ?? [];
  const finishReason = choice.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  const last = calls[calls.length - 1];
  // At a `length` finish the last call may have been cut: a function call is kept apart when its
  // text is not whole JSON. A custom call's text is free-form: whole as the reply gives it.
  const cut =
    finishReason === 'length' && last !== undefined && last.kind !== 'custom' && isRaw(last.arguments) && !isWholeJson(last.arguments.raw)
      ? last
      : undefined;
  const whole = cut === undefined ? calls : calls.slice(0, -1);
  return {
    text: choice.text ?? '',
    reasoning: choice.reasoning ?? '',
    toolCalls: whole.map((call) => ({
      ...idOf(call),
      ...(call.kind === undefined ? {} : { kind: call.kind }),
      name: call.name,
      arguments: call.arguments,
    })),
    ...(cut === undefined
      ? {}
      : { incompleteToolCalls: [{ ...idOf(cut), name: cut.name, arguments: (cut.arguments as { raw: string }).raw }] }),
    finishReason,
    ...(choice.rawFinishReason === undefined ? {} : { rawFinishReason: choice.rawFinishReason }),
    ...(choice.reasoningSignatures === undefined ? {} : { reasoningSignatures: [...choice.reasoningSignatures] }),
  };
}

/** The view of the reply: each choice as the library promises to assemble it. */
export function expectedView(reply: TestReply): ReplyView {
  return {
    ...(reply.id === undefined ? {} : { id: reply.id }),
    ...(reply.model === undefined ? {} : { model: reply.model }),
    ...(reply.usage === undefined ? {} : { usage: { ...reply.usage } }),
    choices: reply.choices.map(choiceOf),
  };
}
