import { providerStream } from '../../../src/testing/writeProviderStream';
import { bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('llamacpp-completion');

describe('llamacpp-completion: the bytes', () => {
  const reply = {
    choices: [{ text: 'Paris is the capital of France.' }],
    usage: { promptTokens: 9, completionTokens: 8, totalTokens: 17 },
  };
  const chunks = sseEvents(bodyText(providerStream(reply, 'llamacpp-completion').chunks)).map(
    (event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, unknown>,
  );

  it('are data-only chunks of text with running counts, then the stop chunk with the model and stop_type: no [DONE]', () => {
    const text = chunks.slice(0, -1);
    expect(text.map((chunk) => chunk['content']).join('')).toBe(reply.choices[0]!.text);
    expect(text.every((chunk) => chunk['stop'] === false && chunk['tokens_evaluated'] === 9)).toBe(true);
    expect(text.map((chunk) => chunk['tokens_predicted'])).toEqual(text.map((_, k) => k + 1));
    expect(chunks[chunks.length - 1]).toMatchObject({
      content: '',
      stop: true,
      model: 'test-model',
      stop_type: 'eos',
      tokens_predicted: 8,
      tokens_evaluated: 9,
    });
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'llamacpp-completion').values).toEqual([expectedCompletion(reply, 'llamacpp-completion')]);
  });
});

refusals('llamacpp-completion', [
  ['reasoning', { choices: [{ reasoning: 'hmm', text: 'Hi' }] }, 'choices[0].reasoning'],
  ['a tool call', { choices: [{ toolCalls: [{ name: 'f', arguments: {} }] }] }, 'choices[0].toolCalls[0]'],
  ['an id', { choices: [{ text: 'a' }], id: 'x' }, 'id'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  [
    'reasoning tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, reasoningTokens: 1 } },
    'usage.reasoningTokens',
  ],
]);
