import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('ai-sdk-ui');

/** The kit's chunks as the `ai` package's chat transport reads them: its strict chunk schema, then `readUIMessageStream`. */
async function readWithAi(chunks: readonly Uint8Array[]): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const stream = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: Error }, UIMessageChunk>({
      transform(part, controller) {
        if (!part.success) throw part.error;
        controller.enqueue(part.value);
      },
    }),
  );
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push((error as Error).message) }))
    message = snapshot;
  return { message, errors };
}

const REPLY = {
  choices: [
    {
      reasoning: WEATHER.choices[0]!.reasoning!,
      text: WEATHER.choices[0]!.text!,
      toolCalls: [...WEATHER.choices[0]!.toolCalls!, { name: 'run_sql', kind: 'custom' as const, arguments: { raw: 'SELECT 1' } }],
    },
  ],
};

describe('ai-sdk-ui: judged by the ai package', () => {
  it('its schema-checked reader takes every chunk, and rebuilds the same message', async () => {
    const stream = providerStream(REPLY, 'ai-sdk-ui', { chunking: { random: 5 } });
    expect(stream.headers).toEqual({ 'x-vercel-ai-ui-message-stream': 'v1' });
    const { message, errors } = await readWithAi(stream.chunks);
    expect(errors).toEqual([]);
    expect(message?.id).toBe('msg-test');
    const parts = message!.parts.filter((part) => part.type !== 'step-start');
    expect(parts).toMatchObject([
      { type: 'reasoning', text: REPLY.choices[0]!.reasoning, state: 'done' },
      { type: 'text', text: REPLY.choices[0]!.text, state: 'done' },
      { type: 'tool-get_weather', toolCallId: 'call_0', state: 'input-available', input: { city: 'Paris', unit: 'celsius' } },
      { type: 'tool-get_weather', toolCallId: 'call_1', state: 'input-available', input: { city: 'Tokyo', unit: 'celsius' } },
      { type: 'tool-run_sql', toolCallId: 'call_2', state: 'input-available', input: 'SELECT 1' },
    ]);
  });

  it('its reader takes the error the kit writes mid-stream as the error chunk it is', async () => {
    const { errors } = await readWithAi(providerStream(REPLY, 'ai-sdk-ui', { fault: 'error' }).chunks);
    expect(errors).toEqual(['the model failed while writing its reply']);
  });

  it('the library reads it the same under strict', () => {
    expect(strictOutcome(REPLY, 'ai-sdk-ui').values).toEqual([expectedCompletion(REPLY, 'ai-sdk-ui')]);
  });
});

refusals('ai-sdk-ui', [
  ['usage', { choices: [{ text: 'a' }], usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, 'usage'],
  ['a model', { choices: [{ text: 'a' }], model: 'm' }, 'model'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a signature', { choices: [{ reasoning: 'r', reasoningSignatures: ['s'] }] }, 'choices[0].reasoningSignatures'],
  [
    'a call without argument text',
    { choices: [{ toolCalls: [{ name: 'f', arguments: { raw: '' } }] }] },
    'choices[0].toolCalls[0].arguments',
  ],
]);
