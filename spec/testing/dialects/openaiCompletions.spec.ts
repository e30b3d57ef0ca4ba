import { providerStream } from '../../../src/testing/writeProviderStream';
import { bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('openai-completions');

describe('openai-completions: the bytes', () => {
  const reply = {
    choices: [{ text: 'Paris is the capital.' }, { text: 'It is Paris.', finishReason: 'length' as const }],
    usage: { promptTokens: 9, completionTokens: 8, totalTokens: 17 },
  };
  const stream = providerStream(reply, 'openai-completions');
  const events = sseEvents(bodyText(stream.chunks));

  it('are read by the openai-chat dialect', () => {
    expect(stream.dialect).toBe('openai-chat');
  });

  it('are text_completion chunks with the text in choices[].text and no delta, then data: [DONE]', () => {
    expect(events[events.length - 1]).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)) as { object: string; choices: Record<string, unknown>[] });
    expect(chunks.every((chunk) => chunk.object === 'text_completion')).toBe(true);
    const choices = chunks.flatMap((chunk) => chunk.choices);
    expect(choices.every((choice) => typeof choice['text'] === 'string' && !('delta' in choice))).toBe(true);
    expect(choices.filter((choice) => choice['finish_reason'] !== null)).toEqual([
      { text: '', index: 0, logprobs: null, finish_reason: 'stop' },
      { text: '', index: 1, logprobs: null, finish_reason: 'length' },
    ]);
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'openai-completions').values).toEqual([expectedCompletion(reply, 'openai-completions')]);
  });
});

refusals('openai-completions', [
  ['reasoning', { choices: [{ reasoning: 'hmm', text: 'a' }] }, 'choices[0].reasoning'],
  ['a tool call', { choices: [{ toolCalls: [{ name: 'f', arguments: {} }] }] }, 'choices[0].toolCalls[0]'],
  ['the finish error', { choices: [{ text: 'a', finishReason: 'error' }] }, 'choices[0].finishReason'],
]);
