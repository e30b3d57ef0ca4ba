import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER_PLAIN, bodyText, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('openai-realtime');

describe('openai-realtime: the bytes', () => {
  const stream = providerStream(WEATHER_PLAIN, 'openai-realtime');
  const lines = bodyText(stream.chunks).split('\n');
  const events = lines.slice(0, -1).map((line) => JSON.parse(line) as { type: string; event_id: string } & Record<string, unknown>);

  it('are one server event a line, each with its own event_id, from response.created to response.done', () => {
    expect(lines.pop()).toBe('');
    expect(events[0]!.type).toBe('response.created');
    expect(events[events.length - 1]!.type).toBe('response.done');
    expect(new Set(events.map((event) => event.event_id)).size).toBe(events.length);
  });

  it('stream the text in response.output_text.delta and each call in response.function_call_arguments.delta, by item', () => {
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'response.output_item.added')).toHaveLength(3);
    expect(types.filter((type) => type === 'response.function_call_arguments.done')).toHaveLength(2);
    const calls = events.filter((event) => event.type === 'response.function_call_arguments.done');
    expect(calls.map((event) => [event['call_id'], event['name'], event['arguments']])).toEqual([
      ['call_0', 'get_weather', '{"city":"Paris","unit":"celsius"}'],
      ['call_1', 'get_weather', '{"city":"Tokyo","unit":"celsius"}'],
    ]);
  });

  it('read the same under strict', () => {
    expect(strictOutcome(WEATHER_PLAIN, 'openai-realtime').values).toEqual([expectedCompletion(WEATHER_PLAIN, 'openai-realtime')]);
  });
});

refusals('openai-realtime', [
  ['a model', { choices: [{ text: 'a' }], model: 'gpt-realtime' }, 'model'],
  ['reasoning', { choices: [{ reasoning: 'r', text: 'a' }] }, 'choices[0].reasoning'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  [
    'cache writes',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cacheWritePromptTokens: 1 } },
    'usage.cacheWritePromptTokens',
  ],
]);
