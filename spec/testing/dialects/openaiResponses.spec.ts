import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('openai-responses');

/** The events of a Responses body: their names and payloads. */
function events(chunks: readonly Uint8Array[]): { name: string; data: Record<string, unknown> }[] {
  return sseEvents(bodyText(chunks)).map((event) => {
    const [name, data] = event.split('\n');
    return { name: name!.replace(/^event: /, ''), data: JSON.parse(data!.replace(/^data: /, '')) as Record<string, unknown> };
  });
}

describe('openai-responses: the bytes', () => {
  const reply = { ...WEATHER, choices: [{ ...WEATHER.choices[0]!, reasoningSignatures: ['gAAAAB-encrypted'] }] };
  const written = events(providerStream(reply, 'openai-responses').chunks);

  it('are named events whose type repeats the name and whose sequence_number counts from 0', () => {
    expect(written.every((event) => event.data['type'] === event.name)).toBe(true);
    expect(written.map((event) => event.data['sequence_number'])).toEqual(written.map((_, k) => k));
  });

  it('hold the reasoning, message and call items in order, and end with response.completed: no [DONE]', () => {
    const added = written
      .filter((event) => event.name === 'response.output_item.added')
      .map((event) => (event.data['item'] as { type: string }).type);
    expect(added).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(written[0]!.name).toBe('response.created');
    expect(written[written.length - 1]!.name).toBe('response.completed');
    const done = written[written.length - 1]!.data['response'] as { status: string; output: unknown[]; usage: unknown };
    expect(done.status).toBe('completed');
    expect(done.output).toHaveLength(4);
    expect(done.usage).toEqual({ input_tokens: 472, output_tokens: 161, total_tokens: 633 });
  });

  it('give a call its call_id as the id and its arguments in delta pieces, the whole text once more at .done', () => {
    const deltas = written.filter((event) => event.name === 'response.function_call_arguments.delta' && event.data['output_index'] === 2);
    expect(deltas.map((event) => event.data['delta']).join('')).toBe('{"city":"Paris","unit":"celsius"}');
    const call = written.find((event) => event.name === 'response.output_item.added' && event.data['output_index'] === 2)!.data['item'];
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_0', name: 'get_weather', arguments: '' });
  });

  it('read the same under strict (a type on every event, sequence numbers without a gap)', () => {
    expect(strictOutcome(reply, 'openai-responses').values).toEqual([expectedCompletion(reply, 'openai-responses')]);
  });

  it('end a reply cut by the token limit with response.incomplete and its reason', () => {
    const cut = events(providerStream({ choices: [{ text: 'Long', finishReason: 'length' }] }, 'openai-responses').chunks);
    expect(cut[cut.length - 1]).toMatchObject({
      name: 'response.incomplete',
      data: { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    });
  });
});

refusals('openai-responses', [
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['two signatures', { choices: [{ reasoning: 'r', reasoningSignatures: ['a', 'b'] }] }, 'choices[0].reasoningSignatures'],
  ['tool_calls without calls', { choices: [{ text: 'a', finishReason: 'tool_calls' }] }, 'choices[0].finishReason'],
  [
    // The Responses usage has cache writes (input_tokens_details.cache_write_tokens), not audio tokens.
    'audio tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, audioPromptTokens: 1 } },
    'usage.audioPromptTokens',
  ],
  [
    'usage without its total',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: null } },
    'usage.totalTokens',
  ],
]);
