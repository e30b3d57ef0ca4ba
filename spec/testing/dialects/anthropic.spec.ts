import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('anthropic');

describe('anthropic: the bytes', () => {
  const reply = {
    ...WEATHER,
    choices: [{ ...WEATHER.choices[0]!, reasoningSignatures: ['EqQBCkYIBxgCKkDdN3v0mZ1x'] }],
    usage: { promptTokens: 500, completionTokens: 161, totalTokens: 661, cachedPromptTokens: 20, cacheWritePromptTokens: 8 },
  };
  const written = sseEvents(bodyText(providerStream(reply, 'anthropic').chunks)).map((event) => {
    const [name, data] = event.split('\n');
    return { name: name!.replace(/^event: /, ''), data: JSON.parse(data!.replace(/^data: /, '')) as Record<string, unknown> };
  });

  it('are named events whose type repeats the name, from message_start to message_stop, with a ping', () => {
    expect(written.every((event) => event.data['type'] === event.name)).toBe(true);
    expect(written[0]!.name).toBe('message_start');
    expect(written.slice(-2).map((event) => event.name)).toEqual(['message_delta', 'message_stop']);
    expect(written.filter((event) => event.name === 'ping')).toHaveLength(1);
  });

  it('hold a thinking block with its signature, a text block and a tool_use block per call, in that order', () => {
    const blocks = written.filter((event) => event.name === 'content_block_start').map((event) => event.data['content_block']);
    expect(blocks).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'call_0', name: 'get_weather', input: {} },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} },
    ]);
    const deltas = written
      .filter((event) => event.name === 'content_block_delta')
      .map((event) => event.data['delta'] as Record<string, unknown>);
    expect(deltas.filter((delta) => delta['type'] === 'signature_delta')).toEqual([
      { type: 'signature_delta', signature: 'EqQBCkYIBxgCKkDdN3v0mZ1x' },
    ]);
    // Each call's input begins with an empty piece, as Anthropic sends it.
    expect(deltas.filter((delta) => delta['type'] === 'input_json_delta')[0]).toEqual({ type: 'input_json_delta', partial_json: '' });
  });

  it('count the input in three parts at message_start and the output at message_delta', () => {
    expect((written[0]!.data['message'] as { usage: unknown }).usage).toEqual({
      input_tokens: 472,
      cache_creation_input_tokens: 8,
      cache_read_input_tokens: 20,
      output_tokens: 1,
    });
    expect(written[written.length - 2]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 161 },
    });
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'anthropic').values).toEqual([expectedCompletion(reply, 'anthropic')]);
  });
});

refusals('anthropic', [
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  [
    'a total that is not the sum',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 5 } },
    'usage.totalTokens',
  ],
  [
    'more cached than the prompt',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cachedPromptTokens: 4 } },
    'usage.cachedPromptTokens',
  ],
  ['the finish error', { choices: [{ text: 'a', finishReason: 'error' }] }, 'choices[0].finishReason'],
]);
