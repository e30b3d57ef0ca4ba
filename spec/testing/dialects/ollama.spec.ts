import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, bodyText, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('ollama');

describe('ollama: the bytes', () => {
  const reply = { ...WEATHER, model: 'qwen3:8b' };
  const stream = providerStream(reply, 'ollama');
  const body = bodyText(stream.chunks);
  const lines = body.split('\n');

  it('are NDJSON, one object a line, each line its own chunk', () => {
    expect(stream.contentType).toBe('application/x-ndjson');
    expect(lines.pop()).toBe('');
    expect(stream.chunks).toHaveLength(lines.length);
    expect(lines.every((line) => line.startsWith('{"model":"qwen3:8b","created_at":"2026-01-01T'))).toBe(true);
  });

  it('send the thinking, the content, then each call whole on a line of its own, and end with the done line and its counts', () => {
    const objects = lines.map((line) => JSON.parse(line) as { message: Record<string, unknown>; done: boolean } & Record<string, unknown>);
    expect(objects.filter((o) => o.message['tool_calls'] !== undefined).map((o) => o.message['tool_calls'])).toEqual([
      [{ id: 'call_0', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } } }],
      [{ id: 'call_1', function: { index: 1, name: 'get_weather', arguments: { city: 'Tokyo', unit: 'celsius' } } }],
    ]);
    const last = objects[objects.length - 1]!;
    expect(last).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 472, eval_count: 161 });
    expect(objects.slice(0, -1).every((o) => o.done === false)).toBe(true);
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'ollama').values).toEqual([expectedCompletion(reply, 'ollama')]);
  });
});

refusals('ollama', [
  ['an id', { choices: [{ text: 'a' }], id: 'x' }, 'id'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['arguments as text', { choices: [{ toolCalls: [{ name: 'f', arguments: { raw: '{}' } }] }] }, 'choices[0].toolCalls[0].arguments'],
  [
    'a total that is not the sum',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 5 } },
    'usage.totalTokens',
  ],
  [
    'cached tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cachedPromptTokens: 1 } },
    'usage.cachedPromptTokens',
  ],
  ['the finish content_filter', { choices: [{ text: 'a', finishReason: 'content_filter' }] }, 'choices[0].finishReason'],
]);
