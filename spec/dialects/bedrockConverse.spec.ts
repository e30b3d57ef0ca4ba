import { StreamClosedEarlyError, ProviderError } from '../../src/index';
import { assembleBedrock, concat, converseStream, exceptionMessage } from '../support/awsEventStream';

// ConverseStream's events, as AWS documents them:
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlockDelta.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
// Each message is written by @smithy/eventstream-codec, as Bedrock's own encoder writes it.

const toolReply: ReadonlyArray<readonly [string, unknown]> = [
  ['messageStart', { role: 'assistant', p: 'abcd' }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'The user wants ' } }, p: 'ab' }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'the weather.' } } }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'EqoBCkgIARABGAIiQL' } } }],
  ['contentBlockStop', { contentBlockIndex: 0 }],
  ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Let me ' } }],
  ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'check.' } }],
  ['contentBlockStop', { contentBlockIndex: 1 }],
  ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' } } }],
  ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city": "Se' } } }],
  ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: 'attle"}' } } }],
  ['contentBlockStop', { contentBlockIndex: 2 }],
  ['messageStop', { stopReason: 'tool_use' }],
  [
    'metadata',
    {
      usage: { inputTokens: 12, outputTokens: 40, totalTokens: 1152, cacheReadInputTokens: 1000, cacheWriteInputTokens: 100 },
      metrics: { latencyMs: 812 },
    },
  ],
];

const complete = assembleBedrock;

describe('bedrock-converse', () => {
  const bytes = converseStream(toolReply);

  it.each([1, 2, 3, 7, 64, bytes.length])('assembles text, reasoning with its signature, a tool call and usage in pieces of %i', (size) => {
    const { values, error } = complete(bytes, size);
    expect(error).toBeUndefined();
    expect(values).toHaveLength(1);
    expect(values[0]).toMatchObject({
      id: '',
      content: 'Let me check.',
      reasoning: 'The user wants the weather.',
      reasoningSignatures: ['EqoBCkgIARABGAIiQL'],
      toolCalls: [
        {
          index: 0,
          id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
          name: 'get_weather',
          arguments: '{"city": "Seattle"}',
          args: { city: 'Seattle' },
        },
      ],
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_use',
      // OpenAI's meaning: inputTokens leaves the cache out, promptTokens has it all.
      usage: { promptTokens: 1112, completionTokens: 40, totalTokens: 1152, cachedPromptTokens: 1000, cacheWritePromptTokens: 100 },
    });
  });

  it('ends at messageStop when no metadata follows', () => {
    const { values, error } = complete(converseStream(toolReply.slice(0, -1)));
    expect(error).toBeUndefined();
    expect(values[0]).toMatchObject({ finishReason: 'tool_calls', usage: null });
  });

  it.each([
    ['max_tokens', 'length'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['end_turn', 'stop'],
  ])('normalizes stopReason %s to %s', (raw, reason) => {
    const { values } = complete(
      converseStream([
        ['messageStart', { role: 'assistant' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
        ['contentBlockStop', { contentBlockIndex: 0 }],
        ['messageStop', { stopReason: raw }],
      ]),
    );
    expect(values[0]).toMatchObject({ content: 'Hi', finishReason: reason, rawFinishReason: raw });
  });

  it('ends with StreamClosedEarlyError at every cut before messageStop', () => {
    const boundaries = new Set(toolReply.map((_, n) => converseStream(toolReply.slice(0, n)).length));
    const stopAt = converseStream(toolReply.slice(0, -2)).length;
    for (let cut = 1; cut < stopAt; cut++) {
      const { values, error } = complete(bytes.subarray(0, cut));
      expect(values).toEqual([]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      // Between messages the dialect says what it lacked; inside one, the byte layer does.
      expect((error as StreamClosedEarlyError).reason).toBe(boundaries.has(cut) ? 'no-end-signal' : 'mid-message');
    }
  });

  it('fails with the exception Bedrock sends mid-stream', () => {
    const { values, error } = complete(
      concat([converseStream(toolReply.slice(0, 3)), exceptionMessage('modelStreamErrorException', 'The model stream failed')]),
    );
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type: 'modelStreamErrorException', retryable: true });
    expect((error as ProviderError).message).toContain('The model stream failed');
  });
});
