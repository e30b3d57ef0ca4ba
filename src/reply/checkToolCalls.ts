/**
 * The tool calls of the two inputs `validateToolCalls` takes, checked: a `tool-call` event, and
 * every call of every choice of a `Completion`. Each answers the input as it may go on (with the
 * validated `args` in place), or through a promise when a check is asynchronous, or throws the
 * refusal.
 */
import { ChatEvent, Completion, CompletionChoice } from '../types/events.js';
import { ToolCallCheck, Verdict, refusal, settle } from './checkToolCall.js';

/** An event as it may go on: the same event, or a `tool-call` whose arguments the schema transformed. */
export function checkEvent(event: ChatEvent, check: ToolCallCheck): ChatEvent | Promise<ChatEvent> {
  if (event.type === 'tool-call-delta' && event.call === undefined) {
    // Without groupToolCallsByIndex in front, no `tool-call` ever comes, and a finalizeCompletion
    // further on would assemble calls that nothing checked.
    throw new TypeError(
      'validateToolCalls() over events needs groupToolCallsByIndex() before it: a tool-call-delta arrived without `call`',
    );
  }
  if (event.type !== 'tool-call') return event;
  return settle(check(event.call), (verdict) => {
    if (!verdict.passed) throw refusal(event.choice, event.call, verdict);
    return verdict.args === event.call.args ? event : { ...event, call: { ...event.call, args: verdict.args } };
  });
}

/** A completion as it may go on, once every call of every choice passed. */
export function checkCompletion(completion: Completion, check: ToolCallCheck): Completion | Promise<Completion> {
  // A hand-made completion without choices still has its top-level calls, which are choice 0's.
  const choices: readonly CompletionChoice[] =
    completion.choices.length > 0
      ? completion.choices
      : [
          {
            index: 0,
            content: completion.content,
            reasoning: completion.reasoning,
            refusal: completion.refusal,
            toolCalls: completion.toolCalls,
            finishReason: completion.finishReason,
            rawFinishReason: completion.rawFinishReason,
          },
        ];
  const calls = choices.flatMap((choice) => choice.toolCalls.map((call) => ({ choice: choice.index, call })));
  if (calls.length === 0) return completion;
  const verdicts = calls.map(({ call }) => check(call));
  const decide = (settled: readonly Verdict[]): Completion => {
    // The first refusal in choice and index order is the one reported.
    for (const [i, verdict] of settled.entries()) {
      if (verdict.passed) continue;
      const { choice, call } = calls[i]!;
      const error = refusal(choice, call, verdict);
      error.partial = completion;
      throw error;
    }
    let at = 0;
    const checked = choices.map((choice) => ({
      ...choice,
      toolCalls: choice.toolCalls.map((call) => {
        const verdict = settled[at++]!;
        return verdict.passed && verdict.args !== call.args ? { ...call, args: verdict.args } : call;
      }),
    }));
    return { ...completion, toolCalls: checked[0]!.toolCalls, ...(completion.choices.length > 0 ? { choices: checked } : {}) };
  };
  if (!verdicts.some((verdict) => verdict instanceof Promise)) return decide(verdicts as Verdict[]);
  // Run concurrently, read in order: awaiting one after another means the first refusal or throw
  // in call order is the one reported, whichever settles first. Each promise already has handlers,
  // so one left unread after an earlier refusal is not an unhandled rejection.
  const outcomes = verdicts.map((verdict) =>
    Promise.resolve(verdict).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
  );
  return (async () => {
    const settled: Verdict[] = [];
    for (const outcome of outcomes) {
      const result = await outcome;
      if ('error' in result) throw result.error;
      settled.push(result.value);
    }
    return decide(settled);
  })();
}
