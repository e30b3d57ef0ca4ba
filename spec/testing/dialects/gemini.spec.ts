import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, bodyText, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('gemini');

describe('gemini: the bytes', () => {
  const reply = {
    choices: [
      { ...WEATHER.choices[0]!, reasoningSignatures: ['EqUCCqICAb4+9vsh', 'Cg0IAhAB'] },
      { text: 'Two cities.', finishReason: 'length' as const },
    ],
    usage: { promptTokens: 58, completionTokens: 129, totalTokens: 187, reasoningTokens: 88 },
  };
  const body = bodyText(providerStream(reply, 'gemini').chunks);
  const chunks = body
    .split('\r\n\r\n')
    .filter((event) => event !== '')
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, unknown>);

  it('are data-only events with CRLF line ends and no [DONE], as Google sends them', () => {
    expect(body.replace(/\r\n/g, '')).not.toContain('\n');
    expect(body.endsWith('\r\n\r\n')).toBe(true);
    expect(body).not.toContain('[DONE]');
  });

  it('send each call whole, its args an object, the first signature on its part, and no id', () => {
    const parts = chunks.flatMap((chunk) =>
      (chunk['candidates'] as { content: { parts: Record<string, unknown>[] } }[]).flatMap((c) => c.content.parts),
    );
    expect(parts.filter((part) => part['functionCall'] !== undefined)).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } }, thoughtSignature: 'EqUCCqICAb4+9vsh' },
      { functionCall: { name: 'get_weather', args: { city: 'Tokyo', unit: 'celsius' } } },
    ]);
    expect(
      parts
        .filter((part) => part['thought'] === true)
        .map((part) => part['text'])
        .join(''),
    ).toBe(WEATHER.choices[0]!.reasoning);
  });

  it('finish every candidate in the last chunk, with the usage in it, the thoughts counted apart', () => {
    const last = chunks[chunks.length - 1]!;
    expect((last['candidates'] as { finishReason: string }[]).map((candidate) => candidate.finishReason)).toEqual(['STOP', 'MAX_TOKENS']);
    expect(last['usageMetadata']).toEqual({ promptTokenCount: 58, candidatesTokenCount: 41, totalTokenCount: 187, thoughtsTokenCount: 88 });
    expect(chunks.slice(0, -1).every((chunk) => JSON.stringify(chunk['usageMetadata']) === '{"promptTokenCount":58}')).toBe(true);
  });

  it('leave the calls to be named by the library, <responseId>-call-<n>, or carry the ids a reply gives', () => {
    expect(assemble(providerStream(reply, 'gemini')).values[0]!.toolCalls.map((call) => call.id)).toEqual([
      'test-response-call-0',
      'test-response-call-1',
    ]);
    const named = { choices: [{ toolCalls: [{ id: 'fc-1', name: 'f', arguments: {} }] }] };
    expect(bodyText(providerStream(named, 'gemini').chunks)).toContain('"functionCall":{"id":"fc-1","name":"f","args":{}}');
    expect(assemble(providerStream(named, 'gemini')).values[0]!.toolCalls[0]!.id).toBe('fc-1');
  });

  it('cut inside the arguments of a call sent whole, even one whose name reads like them', () => {
    const named = { choices: [{ toolCalls: [{ name: '{"city":"Paris"}', arguments: { city: 'Paris' } }] }], model: '{"city":"Paris"}' };
    const body = bodyText(providerStream(named, 'gemini', { fault: 'cut-in-arguments' }).chunks);
    const tail = body.slice(body.lastIndexOf('"args":') + '"args":'.length);
    expect(tail.length).toBeGreaterThan(0);
    expect('{"city":"Paris"}'.startsWith(tail)).toBe(true);
    expect(tail).not.toBe('{"city":"Paris"}');
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'gemini').values).toEqual([expectedCompletion(reply, 'gemini')]);
  });
});

refusals('gemini', [
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  ['arguments as text', { choices: [{ toolCalls: [{ name: 'f', arguments: { raw: '{"a":1}' } }] }] }, 'choices[0].toolCalls[0].arguments'],
  ['arguments that are no object', { choices: [{ toolCalls: [{ name: 'f', arguments: [1, 2] }] }] }, 'choices[0].toolCalls[0].arguments'],
  ['tool_calls without calls', { choices: [{ text: 'a', finishReason: 'tool_calls' }] }, 'choices[0].finishReason'],
  [
    'more thoughts than output',
    { choices: [{ text: 'a' }], usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, reasoningTokens: 3 } },
    'usage.reasoningTokens',
  ],
  [
    'cache writes',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cacheWritePromptTokens: 1 } },
    'usage.cacheWritePromptTokens',
  ],
]);
