import { providerStream } from '../../../src/testing/writeProviderStream';
import { TestReply } from '../../../src/dialects/writing/TestReply';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('mistral-conversations');

/** The events of a body: each SSE event's name and its payload. */
function written(reply: TestReply): { name: string; data: Record<string, unknown> }[] {
  return sseEvents(bodyText(providerStream(reply, 'mistral-conversations').chunks)).map((event) => {
    const [name, data] = event.split('\n');
    return { name: name!.replace(/^event: /, ''), data: JSON.parse(data!.replace(/^data: /, '')) as Record<string, unknown> };
  });
}

/** The kinds of events in order, a run of one kind counted once. */
const kinds = (names: readonly string[]): string[] => names.filter((name, i) => name !== names[i - 1]);

describe('mistral-conversations: the bytes', () => {
  const events = written(WEATHER);

  it('are named events whose type repeats the name, from conversation.response.started to .done, with no [DONE]', () => {
    expect(events.every((event) => event.data['type'] === event.name)).toBe(true);
    expect(kinds(events.map((event) => event.name))).toEqual([
      'conversation.response.started',
      'message.output.delta',
      'function.call.delta',
      'conversation.response.done',
    ]);
    expect(bodyText(providerStream(WEATHER, 'mistral-conversations').chunks)).not.toContain('[DONE]');
  });

  it('write the reasoning as thinking chunks of text, then the text as string content', () => {
    const deltas = events.filter((event) => event.name === 'message.output.delta').map((event) => event.data['content']);
    expect(deltas[0]).toEqual({ type: 'thinking', thinking: [{ type: 'text', text: 'The' }] });
    expect(deltas.filter((content) => typeof content === 'string').join('')).toBe(WEATHER.choices[0]!.text);
  });

  it('repeat each call’s tool_call_id and name on every piece of its arguments, each call an output of its own', () => {
    const calls = events.filter((event) => event.name === 'function.call.delta').map((event) => event.data);
    expect(new Set(calls.map((call) => `${String(call['output_index'])} ${String(call['tool_call_id'])} ${String(call['name'])}`))).toEqual(
      new Set(['1 call_0 get_weather', '2 call_1 get_weather']),
    );
    expect(
      calls
        .filter((call) => call['tool_call_id'] === 'call_0')
        .map((call) => call['arguments'])
        .join(''),
    ).toBe('{"city":"Paris","unit":"celsius"}');
  });

  it('end with the usage as given', () => {
    expect(events[events.length - 1]!.data).toEqual({
      type: 'conversation.response.done',
      created_at: '2026-01-01T00:00:00.000000Z',
      usage: { prompt_tokens: 472, completion_tokens: 161, total_tokens: 633 },
    });
  });

  it('send an error as conversation.response.error with its message and code', () => {
    const body = bodyText(providerStream(WEATHER, 'mistral-conversations', { fault: 'error' }).chunks);
    const data =
      '{"type":"conversation.response.error","created_at":"2026-01-01T00:00:00.000000Z",' +
      '"message":"Service unavailable, please retry","code":3000}';
    expect(body).toContain(`event: conversation.response.error\ndata: ${data}\n\n`);
  });

  it('name the reply with the conversation id it gives, and no model', () => {
    expect(assemble(providerStream({ ...WEATHER, id: 'conv_0195' }, 'mistral-conversations')).values[0]).toMatchObject({
      id: 'conv_0195',
      model: null,
    });
  });

  it('read the same under strict', () => {
    expect(strictOutcome(WEATHER, 'mistral-conversations').values).toEqual([expectedCompletion(WEATHER, 'mistral-conversations')]);
  });
});

refusals('mistral-conversations', [
  ['a model', { choices: [{ text: 'a' }], model: 'mistral-medium-latest' }, 'model'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  ['a signature', { choices: [{ reasoning: 'r', text: 'a', reasoningSignatures: ['c2ln'] }] }, 'choices[0].reasoningSignatures'],
  ['the finish length', { choices: [{ text: 'a', finishReason: 'length' }] }, 'choices[0].finishReason'],
  ['a raw finish value', { choices: [{ text: 'a', rawFinishReason: 'stop' }] }, 'choices[0].rawFinishReason'],
  ['tool_calls without calls', { choices: [{ text: 'a', finishReason: 'tool_calls' }] }, 'choices[0].finishReason'],
  [
    'a null count',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: null, totalTokens: 4 } },
    'usage.completionTokens',
  ],
  [
    'cached tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cachedPromptTokens: 1 } },
    'usage.cachedPromptTokens',
  ],
]);
