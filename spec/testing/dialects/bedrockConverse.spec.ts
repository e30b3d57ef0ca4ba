import { ProviderError } from '../../../src/errors/errors';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { codec } from '../../support/awsEventStream';
import { WEATHER, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('bedrock-converse');

/** Each message of a body written one message a chunk, as AWS's own codec decodes it (it checks both CRCs). */
function decoded(chunks: readonly Uint8Array[]): { headers: Record<string, unknown>; payload: Record<string, unknown> }[] {
  return chunks.map((chunk) => {
    const message = codec.decode(chunk);
    const headers = Object.fromEntries(Object.entries(message.headers).map(([name, header]) => [name, header.value]));
    return { headers, payload: JSON.parse(new TextDecoder().decode(message.body)) as Record<string, unknown> };
  });
}

const REPLY = {
  ...WEATHER,
  choices: [{ ...WEATHER.choices[0]!, reasoningSignatures: ['ErcBCkgIBRABGAIiQL'] }],
  usage: { ...WEATHER.usage!, cachedPromptTokens: 12 },
};

describe('bedrock-converse: judged by @smithy/eventstream-codec', () => {
  const messages = decoded(providerStream(REPLY, 'bedrock-converse').chunks);

  it('every message decodes, CRCs and all, as a JSON event with its event type, with Bedrock padding', () => {
    expect(messages.every((m) => m.headers[':message-type'] === 'event' && m.headers[':content-type'] === 'application/json')).toBe(true);
    expect(messages.every((m) => typeof m.payload['p'] === 'string')).toBe(true);
    const types = messages.map((m) => m.headers[':event-type']);
    expect(types[0]).toBe('messageStart');
    expect(types.slice(-2)).toEqual(['messageStop', 'metadata']);
    expect(types.filter((type) => type === 'contentBlockStart')).toHaveLength(2);
  });

  it('hold each call as a toolUse block, its input in pieces, and the usage in three parts of the prompt', () => {
    const starts = messages.filter((m) => m.headers[':event-type'] === 'contentBlockStart').map((m) => m.payload['start']);
    expect(starts).toEqual([
      { toolUse: { toolUseId: 'call_0', name: 'get_weather' } },
      { toolUse: { toolUseId: 'call_1', name: 'get_weather' } },
    ]);
    const metadata = messages[messages.length - 1]!.payload;
    expect(metadata['usage']).toEqual({ inputTokens: 460, outputTokens: 161, totalTokens: 633, cacheReadInputTokens: 12 });
    expect(messages[messages.length - 2]!.payload).toMatchObject({ stopReason: 'tool_use' });
  });

  it("an error mid-stream is an exception message, which the codec decodes and the library reads as Bedrock's retryable error", () => {
    const stream = providerStream(REPLY, 'bedrock-converse', { fault: 'error' });
    const last = codec.decode(stream.chunks[stream.chunks.length - 1]!);
    expect(last.headers[':message-type']?.value).toBe('exception');
    expect(last.headers[':exception-type']?.value).toBe('modelStreamErrorException');
    expect(assemble(stream).error).toMatchObject({ name: 'ProviderError', type: 'modelStreamErrorException', retryable: true });
    expect(assemble(stream).error).toBeInstanceOf(ProviderError);
  });

  it('the library reads it the same under strict', () => {
    expect(strictOutcome(REPLY, 'bedrock-converse').values).toEqual([expectedCompletion(REPLY, 'bedrock-converse')]);
  });
});

refusals('bedrock-converse', [
  ['an id', { choices: [{ text: 'a' }], id: 'x' }, 'id'],
  ['a model', { choices: [{ text: 'a' }], model: 'm' }, 'model'],
  [
    'reasoning tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, reasoningTokens: 1 } },
    'usage.reasoningTokens',
  ],
  [
    'a total that is not the sum',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 9 } },
    'usage.totalTokens',
  ],
  ['the finish other', { choices: [{ text: 'a', finishReason: 'other' }] }, 'choices[0].finishReason'],
]);
