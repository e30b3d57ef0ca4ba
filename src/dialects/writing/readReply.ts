import { normalizeFinishReason } from '../../internal/finishReason.js';
import type { FinishReason, FinishReasonTable, JsonValue, Usage } from '../../types/replyParts.js';
import type { TestReply, TestToolCall } from './TestReply.js';
import { UnsupportedReplyError } from './UnsupportedReplyError.js';

/** What a format can carry of a reply: what its writer reads of a `TestReply`, and refuses. */
export interface FormatRules {
  /** The format's name, for the errors. */
  readonly format: string;
  /** More than one choice (OpenAI's `n`, Gemini's candidates). */
  readonly choices: boolean;
  readonly reasoning: boolean;
  /** Tool calls: streamed as argument text, sent whole with their arguments as an object, or none. */
  readonly calls: 'streamed' | 'whole' | 'none';
  /** Custom (free-form) calls. */
  readonly custom: boolean;
  /** How many reasoning signatures one choice may carry. */
  readonly signatures: number;
  /** The raw value written for each finish reason the format has one for. */
  readonly finishes: Partial<Record<FinishReason, string>>;
  /** The format has no finish value for calls: `tool_calls` is said by the calls alone (Gemini's `STOP`). */
  readonly toolCallsByCalls: boolean;
  /** A `rawFinishReason` can be written (false where the wire has no finish field). */
  readonly rawFinish: boolean;
  /** The format's own finish reasons (its dialect record's), read before the shared ones. */
  readonly finishReasons?: FinishReasonTable;
}

/** A tool call as a writer writes it. */
export interface WrittenCall {
  /** Its dense position in its choice. */
  readonly index: number;
  /** The reply's id, or the kit's `call_<index>`. */
  readonly id: string;
  /** Whether the reply gave the id (Gemini writes none unless given). */
  readonly idGiven: boolean;
  readonly name: string;
  /** The argument text, as the model wrote it. */
  readonly text: string;
  /** For formats that send calls whole: the arguments as the object they send. */
  readonly object: { readonly [key: string]: JsonValue } | undefined;
  readonly custom: boolean;
}

/** A choice as a writer writes it: every default filled in, every part checked against the format. */
export interface WrittenChoice {
  readonly index: number;
  readonly reasoning: string;
  readonly text: string;
  readonly calls: readonly WrittenCall[];
  /** The finish as the completion will say it. */
  readonly finish: FinishReason;
  /** The provider's value to write. */
  readonly raw: string;
  readonly signatures: readonly string[];
}

/**
 * The choices of `reply` as a format writes them, with the defaults filled in (finish `stop`, or
 * `tool_calls` after calls; call ids `call_0`, `call_1`, ...); a part the format cannot carry is an
 * `UnsupportedReplyError`.
 */
export function readChoices(reply: TestReply, rules: FormatRules): WrittenChoice[] {
  const refuse = (part: string, why: string): never => {
    throw new UnsupportedReplyError(rules.format, part, why);
  };
  if (reply.choices.length === 0) refuse('choices', 'a reply has at least one choice');
  if (reply.choices.length > 1 && !rules.choices) refuse('choices[1]', 'the format streams one choice');
  return reply.choices.map((choice, index) => {
    const where = `choices[${index}]`;
    const reasoning = choice.reasoning ?? '';
    if (reasoning !== '' && !rules.reasoning) refuse(`${where}.reasoning`, 'the format has no reasoning');
    const signatures = choice.reasoningSignatures ?? [];
    if (signatures.length > rules.signatures)
      refuse(
        `${where}.reasoningSignatures`,
        `the format carries ${rules.signatures === 0 ? 'no' : `at most ${rules.signatures}`} per choice`,
      );
    if (signatures.some((signature) => signature === '')) refuse(`${where}.reasoningSignatures`, 'an empty signature is no signature');
    const calls = (choice.toolCalls ?? []).map((call, k) => readCall(call, k, `${where}.toolCalls[${k}]`, rules, refuse));
    const finish =
      choice.finishReason ??
      (choice.rawFinishReason === undefined
        ? undefined
        : normalizeFinishReason(choice.rawFinishReason, calls.length > 0, rules.finishReasons));
    return {
      index,
      reasoning,
      text: choice.text ?? '',
      calls,
      ...readFinish(finish, choice.rawFinishReason, calls.length > 0, `${where}.finishReason`, rules, refuse),
      signatures,
    };
  });
}

function readCall(
  call: TestToolCall,
  index: number,
  where: string,
  rules: FormatRules,
  refuse: (part: string, why: string) => never,
): WrittenCall {
  if (rules.calls === 'none') refuse(where, 'the format has no tool calls');
  if (call.name === '') refuse(`${where}.name`, 'a call has a name');
  if (call.id === '') refuse(`${where}.id`, 'an empty id is no id: leave it out for the kit to make one');
  const custom = call.kind === 'custom';
  const raw = isRaw(call.arguments) ? call.arguments.raw : undefined;
  if (custom && !rules.custom) refuse(where, 'the format has no custom (free-form) calls');
  if (custom && raw === undefined) refuse(`${where}.arguments`, 'a custom call takes its input as { raw }');
  let object: WrittenCall['object'];
  if (rules.calls === 'whole') {
    const value = raw === undefined ? call.arguments : undefined;
    if (!isObject(value)) refuse(`${where}.arguments`, 'the format sends arguments as a JSON object, not as text');
    object = value as { readonly [key: string]: JsonValue };
  }
  return {
    index,
    id: call.id ?? `call_${index}`,
    idGiven: call.id !== undefined,
    name: call.name,
    text: raw ?? JSON.stringify(call.arguments),
    object,
    custom,
  };
}

/** The finish to write: the reason the completion will say, and the provider's value for it. */
function readFinish(
  given: FinishReason | undefined,
  rawGiven: string | undefined,
  hasCalls: boolean,
  where: string,
  rules: FormatRules,
  refuse: (part: string, why: string) => never,
): { finish: FinishReason; raw: string } {
  const finish = given ?? (hasCalls ? 'tool_calls' : 'stop');
  // The library reads `stop` after calls as `tool_calls`: a reply cannot say both.
  if (finish === 'stop' && hasCalls) refuse(where, 'a choice that made calls finishes with tool_calls, not stop');
  if (rawGiven !== undefined) {
    if (!rules.rawFinish) refuse(`${where.replace('finishReason', 'rawFinishReason')}`, 'the format has no finish value on the wire');
    return { finish, raw: rawGiven };
  }
  if (finish === 'tool_calls' && rules.toolCallsByCalls && !hasCalls) refuse(where, 'the format says tool_calls only by the calls made');
  const raw = rules.finishes[finish];
  if (raw === undefined) refuse(where, `the format has no finish value for ${finish}`);
  return { finish, raw: raw! };
}

function isRaw(value: TestToolCall['arguments']): value is { readonly raw: string } {
  return isObject(value) && Object.keys(value as object).length === 1 && typeof (value as { raw?: unknown }).raw === 'string';
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The usage counts a format needs, each a number: a null count is refused. */
export function requireCounts(
  usage: Usage,
  format: string,
  fields: readonly ('promptTokens' | 'completionTokens' | 'totalTokens')[],
): void {
  for (const field of fields) {
    if (usage[field] === null) throw new UnsupportedReplyError(format, `usage.${field}`, 'the format always reports it: give a number');
  }
}

/** Refuses the usage details a format does not report. */
export function refuseDetails(
  usage: Usage,
  format: string,
  details: readonly (
    'cachedPromptTokens' | 'cacheWritePromptTokens' | 'reasoningTokens' | 'audioPromptTokens' | 'audioCompletionTokens' | 'estimated'
  )[],
): void {
  for (const detail of details) {
    if (usage[detail] !== undefined) throw new UnsupportedReplyError(format, `usage.${detail}`, 'the format does not report it');
  }
}

/** For formats whose total is the sum of prompt and completion: refuses a total that is not. */
export function requireSum(usage: Usage, format: string): void {
  requireCounts(usage, format, ['promptTokens', 'completionTokens', 'totalTokens']);
  if (usage.totalTokens !== usage.promptTokens! + usage.completionTokens!) {
    throw new UnsupportedReplyError(format, 'usage.totalTokens', 'the format reports no total: it is the sum of prompt and completion');
  }
}
