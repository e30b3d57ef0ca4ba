import type { ChatCompletion } from 'openai/resources/chat/completions';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { openaiSdk } from '../../support/openaiSdk';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('openai-chat');

/** The official SDK's final completion for these chunks (its SSE reader, then its stream runner). */
async function sdkCompletion(chunks: readonly Uint8Array[]): Promise<ChatCompletion> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const stream = openaiSdk.Stream.fromSSEResponse(new Response(body), new AbortController());
  return openaiSdk.ChatCompletionStream.fromReadableStream(stream.toReadableStream()).finalChatCompletion();
}

describe('openai-chat: the bytes', () => {
  const reply = { ...WEATHER, choices: [{ ...WEATHER.choices[0]!, reasoning: undefined }, { text: 'Two ways.' }] };
  const events = sseEvents(bodyText(providerStream(reply, 'openai-chat').chunks));

  it('are data-only events, one JSON chunk each, ending with data: [DONE]', () => {
    expect(events.every((event) => event.startsWith('data: ') && !event.includes('\n'))).toBe(true);
    expect(events[events.length - 1]).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>);
    expect(
      chunks.every(
        (chunk) => chunk['object'] === 'chat.completion.chunk' && chunk['id'] === 'chatcmpl-test' && chunk['usage'] !== undefined,
      ),
    ).toBe(true);
  });

  it('open each choice with a role chunk, and give each call its id, type and name in its first fragment only', () => {
    const deltas = events
      .slice(0, -1)
      .flatMap((event) => (JSON.parse(event.slice(6)) as { choices: { index: number; delta: Record<string, unknown> }[] }).choices);
    expect(deltas.filter((choice) => choice.delta['role'] === 'assistant').map((choice) => choice.index)).toEqual([0, 1]);
    const fragments = deltas.flatMap((choice) => (choice.delta['tool_calls'] as Record<string, unknown>[] | undefined) ?? []);
    expect(fragments.filter((fragment) => fragment['id'] !== undefined)).toEqual([
      { index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
    ]);
    expect(fragments.filter((fragment) => fragment['id'] === undefined).length).toBeGreaterThan(4);
  });

  it('end with a finish chunk per choice, then the usage chunk with no choices', () => {
    const last = events.slice(-4, -1).map((event) => JSON.parse(event.slice(6)) as { choices: unknown[]; usage: unknown });
    expect(last.map((chunk) => chunk.choices)).toEqual([
      [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
      [{ index: 1, delta: {}, logprobs: null, finish_reason: 'stop' }],
      [],
    ]);
    expect(last[2]!.usage).toEqual({ prompt_tokens: 472, completion_tokens: 161, total_tokens: 633 });
  });
});

describe('openai-chat: judged by the official openai SDK', () => {
  it(`the SDK ${openaiSdk.version} reads the kit's stream to the same reply, at any chunking`, async () => {
    const reply = { ...WEATHER, choices: [{ ...WEATHER.choices[0]!, reasoning: undefined }] };
    for (const chunking of ['events', 'whole', 'inside-characters', { every: 3 }] as const) {
      const completion = await sdkCompletion(providerStream(reply, 'openai-chat', { chunking }).chunks);
      const choice = completion.choices[0]!;
      expect(choice.message.content).toBe(reply.choices[0]!.text);
      expect(choice.finish_reason).toBe('tool_calls');
      expect(
        choice.message.tool_calls?.map((call) =>
          call.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : call,
        ),
      ).toEqual([
        ['call_0', 'get_weather', { city: 'Paris', unit: 'celsius' }],
        ['call_1', 'get_weather', { city: 'Tokyo', unit: 'celsius' }],
      ]);
      expect(completion.usage).toEqual({ prompt_tokens: 472, completion_tokens: 161, total_tokens: 633 });
    }
  });

  it('the library reads it under strict too: nothing in it is a quirk', () => {
    expect(strictOutcome(WEATHER, 'openai-chat').values).toEqual([expectedCompletion(WEATHER, 'openai-chat')]);
  });
});

refusals('openai-chat', [
  ['a reasoning signature', { choices: [{ text: 'a', reasoningSignatures: ['sig'] }] }, 'choices[0].reasoningSignatures'],
  ['the finish other, which has no value of its own', { choices: [{ text: 'a', finishReason: 'other' }] }, 'choices[0].finishReason'],
  ['stop after calls', { choices: [{ toolCalls: [{ name: 'f', arguments: {} }], finishReason: 'stop' }] }, 'choices[0].finishReason'],
  [
    'a whole custom call last in a choice cut by length',
    { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }], finishReason: 'length' }] },
    'choices[0].toolCalls',
  ],
  ['usage with no count', { choices: [{ text: 'a' }], usage: { promptTokens: null, completionTokens: null, totalTokens: null } }, 'usage'],
  [
    'a custom call without raw input',
    { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: 'x' }] }] },
    'choices[0].toolCalls[0].arguments',
  ],
  ['a call with an empty name', { choices: [{ toolCalls: [{ name: '', arguments: {} }] }] }, 'choices[0].toolCalls[0].name'],
]);

describe('openai-chat: raw finish values', () => {
  it('writes other when the reply gives its raw value', () => {
    const reply = { choices: [{ text: 'a', finishReason: 'other' as const, rawFinishReason: 'pause' }] };
    expect(bodyText(providerStream(reply, 'openai-chat').chunks)).toContain('"finish_reason":"pause"');
  });
});
