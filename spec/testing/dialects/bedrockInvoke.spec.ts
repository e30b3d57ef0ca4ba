import { providerStream } from '../../../src/testing/writeProviderStream';
import { codec } from '../../support/awsEventStream';
import { WEATHER, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('bedrock-invoke');

describe('bedrock-invoke: judged by @smithy/eventstream-codec', () => {
  const stream = providerStream(WEATHER, 'bedrock-invoke');
  const messages = stream.chunks.map((chunk) => codec.decode(chunk));
  const inner = messages.map((message) => {
    const payload = JSON.parse(new TextDecoder().decode(message.body)) as { bytes: string; p: string };
    return JSON.parse(Buffer.from(payload.bytes, 'base64').toString('utf8')) as Record<string, unknown>;
  });

  it("every message decodes as a chunk event whose base64 bytes are one of Anthropic's events", () => {
    expect(messages.every((m) => m.headers[':event-type']?.value === 'chunk' && m.headers[':message-type']?.value === 'event')).toBe(true);
    expect(inner[0]!['type']).toBe('message_start');
    expect(inner.slice(-2).map((event) => event['type'])).toEqual(['message_delta', 'message_stop']);
  });

  it("carry Bedrock's invocation metrics on the last event, beside Anthropic's own usage", () => {
    expect(inner[inner.length - 1]).toEqual({
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { inputTokenCount: 472, outputTokenCount: 161, invocationLatency: 1204, firstByteLatency: 388 },
    });
    expect(assemble(stream).values[0]!.usage).toEqual(WEATHER.usage);
  });

  it('the library reads it the same under strict', () => {
    expect(strictOutcome(WEATHER, 'bedrock-invoke').values).toEqual([expectedCompletion(WEATHER, 'bedrock-invoke')]);
  });
});

refusals('bedrock-invoke', [
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  [
    'a total that is not the sum',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 5 } },
    'usage.totalTokens',
  ],
]);
