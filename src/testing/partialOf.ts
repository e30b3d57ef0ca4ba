import type { FinishReason } from '../types/replyParts.js';
import type { TestPartial, TestPartialCall, TestPartialChoice } from './FaultOutcome.js';
import type { Carried } from '../dialects/writing/wire.js';

/** One choice being told from what its events carried. */
interface ChoiceSoFar {
  content: string;
  reasoning: string;
  readonly calls: Map<number, { id: string | null; name: string | null; arguments: string }>;
  finishReason: FinishReason | null;
}

/**
 * What the given events carried, as a `TestPartial`: the kit's own account of the frames that
 * arrived whole before a fault, told from what it wrote into them (never by reading them back).
 * A choice is listed once an event named it; text a choice never got is `null`, as in a snapshot.
 */
export function partialOf(carried: readonly Carried[]): TestPartial {
  const choices = new Map<number, ChoiceSoFar>();
  const choiceOf = (index: number): ChoiceSoFar => {
    let choice = choices.get(index);
    if (choice === undefined) choices.set(index, (choice = { content: '', reasoning: '', calls: new Map(), finishReason: null }));
    return choice;
  };
  for (const item of carried) {
    const choice = choiceOf(item.choice);
    switch (item.kind) {
      case 'text':
        choice.content += item.text;
        break;
      case 'reasoning':
        choice.reasoning += item.text;
        break;
      case 'call':
        choice.calls.set(item.index, { id: item.id, name: item.name, arguments: '' });
        break;
      case 'arguments': {
        const call = choice.calls.get(item.index);
        if (call === undefined) choice.calls.set(item.index, { id: null, name: null, arguments: item.text });
        else call.arguments += item.text;
        break;
      }
      case 'finish':
        choice.finishReason = item.reason;
        break;
      default:
      // `named`: the choice is listed, nothing more.
    }
  }
  const list: TestPartialChoice[] = [...choices.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, choice]) => ({
      index,
      content: choice.content === '' ? null : choice.content,
      reasoning: choice.reasoning === '' ? null : choice.reasoning,
      toolCalls: [...choice.calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([callIndex, call]): TestPartialCall => ({ index: callIndex, ...call })),
      finishReason: choice.finishReason,
    }));
  const first = list[0];
  if (first === undefined || first.index !== 0) return { choices: list };
  return {
    content: first.content,
    reasoning: first.reasoning,
    toolCalls: first.toolCalls,
    finishReason: first.finishReason,
    choices: list,
  };
}
