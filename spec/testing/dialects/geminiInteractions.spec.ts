import { providerStream } from '../../../src/testing/writeProviderStream';
import { TestReply } from '../../../src/dialects/writing/TestReply';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('gemini-interactions');

/** The events of a body: each SSE event's name and its payload (`[DONE]` as the string). */
function written(reply: TestReply): { name: string; data: Record<string, unknown> | string }[] {
  return sseEvents(bodyText(providerStream(reply, 'gemini-interactions').chunks)).map((event) => {
    const [name, data] = event.split('\n');
    const text = data!.replace(/^data: /, '');
    return { name: name!.replace(/^event: /, ''), data: text === '[DONE]' ? text : (JSON.parse(text) as Record<string, unknown>) };
  });
}

/** An event's payload as an object. */
const payload = (event: { data: Record<string, unknown> | string }) => event.data as Record<string, unknown>;
/** The kinds of events in order, a run of one kind counted once. */
const kinds = (names: readonly string[]): string[] => names.filter((name, i) => name !== names[i - 1]);

describe('gemini-interactions: the bytes', () => {
  const signed: TestReply = { ...WEATHER, choices: [{ ...WEATHER.choices[0]!, reasoningSignatures: ['c2lnbmF0dXJl'] }] };
  const events = written(signed);

  it('are named events whose event_type repeats the name, from interaction.created to .completed, then done with [DONE]', () => {
    expect(events.slice(0, -1).every((event) => payload(event)['event_type'] === event.name)).toBe(true);
    expect(kinds(events.map((event) => event.name))).toEqual([
      'interaction.created',
      'step.start',
      'step.delta',
      'step.stop',
      'step.start',
      'step.delta',
      'step.stop',
      'step.start',
      'step.delta',
      'step.stop',
      'step.start',
      'step.delta',
      'step.stop',
      'interaction.completed',
      'done',
    ]);
    expect(events[events.length - 1]!.data).toBe('[DONE]');
  });

  it('open a thought step, a model_output step and a function_call step per call, in that order, by index', () => {
    expect(events.filter((event) => event.name === 'step.start').map((event) => payload(event)['step'])).toEqual([
      { type: 'thought' },
      { type: 'model_output' },
      { type: 'function_call', id: 'call_0', name: 'get_weather', arguments: {} },
      { type: 'function_call', id: 'call_1', name: 'get_weather', arguments: {} },
    ]);
  });

  it('send the signature as a thought_signature delta after the summary, and the call’s arguments as arguments_delta pieces', () => {
    const deltas = events.filter((event) => event.name === 'step.delta').map((event) => payload(event));
    const thought = deltas.filter((delta) => delta['index'] === 0).map((delta) => delta['delta'] as Record<string, unknown>);
    expect(thought[thought.length - 1]).toEqual({ type: 'thought_signature', signature: 'c2lnbmF0dXJl' });
    const args = deltas.filter((delta) => delta['index'] === 2).map((delta) => (delta['delta'] as { arguments: string }).arguments);
    expect(args.join('')).toBe('{"city":"Paris","unit":"celsius"}');
  });

  it('end with the status requires_action after calls, and the usage', () => {
    const completed = payload(events[events.length - 2]!);
    expect(completed['interaction']).toEqual({
      id: 'v1_test',
      status: 'requires_action',
      object: 'interaction',
      model: 'gemini-3-flash-preview',
      usage: { total_input_tokens: 472, total_output_tokens: 161, total_tokens: 633 },
    });
  });

  it('send an error as an error event with its code and message', () => {
    const body = bodyText(providerStream(WEATHER, 'gemini-interactions', { fault: 'error' }).chunks);
    expect(body).toMatch(/event: error\ndata: \{"error":\{"code":"internal","message":"An internal error has occurred\. Please retry\."\}/);
  });

  it('name the reply with the id and model it gives', () => {
    const reply = { ...WEATHER, id: 'v1_abc', model: 'gemini-3-pro' };
    expect(assemble(providerStream(reply, 'gemini-interactions')).values[0]).toMatchObject({ id: 'v1_abc', model: 'gemini-3-pro' });
  });

  it('read the same under strict, with a signature and with thought tokens', () => {
    expect(strictOutcome(signed, 'gemini-interactions').values).toEqual([expectedCompletion(signed, 'gemini-interactions')]);
    const thinking: TestReply = {
      choices: [{ reasoning: 'Two and two.', text: 'Four.', finishReason: 'length' }],
      usage: { promptTokens: 5, completionTokens: 9, totalTokens: 14, reasoningTokens: 4, cachedPromptTokens: 2 },
    };
    expect(strictOutcome(thinking, 'gemini-interactions').values).toEqual([expectedCompletion(thinking, 'gemini-interactions')]);
  });
});

refusals('gemini-interactions', [
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  ['two signatures', { choices: [{ reasoning: 'r', text: 'a', reasoningSignatures: ['c2ln', 'c2ln'] }] }, 'choices[0].reasoningSignatures'],
  ['the finish content_filter', { choices: [{ text: 'a', finishReason: 'content_filter' }] }, 'choices[0].finishReason'],
  [
    'more reasoning than completion',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, reasoningTokens: 2 } },
    'usage.reasoningTokens',
  ],
  [
    'cache-write tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cacheWritePromptTokens: 1 } },
    'usage.cacheWritePromptTokens',
  ],
]);
