import { ProtocolError, StreamClosedEarlyError } from '../../src/index';
import { assembleBedrock, concat, eventMessage, invokeStream } from '../support/awsEventStream';

// InvokeModelWithResponseStream: `chunk` events whose PayloadPart `bytes` is base64, here one
// Anthropic Messages event each, the last with Bedrock's invocation metrics:
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_PayloadPart.html
// https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
// Each message is written by @smithy/eventstream-codec.

const metrics = { inputTokenCount: 25, outputTokenCount: 31, invocationLatency: 930, firstByteLatency: 410 };

function events(withUsage: boolean): unknown[] {
  const usage = (value: object): object => (withUsage ? { usage: value } : {});
  return [
    {
      type: 'message_start',
      message: {
        id: 'msg_bdrk_01Xb',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4',
        ...usage({ input_tokens: 25, output_tokens: 1 }),
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Weather: call the tool.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'ErUBCkYIBRgCIkB' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Checking ' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Paris.' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_bdrk_01A', name: 'get_weather', input: {} } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: ' "Paris"}' } },
    { type: 'content_block_stop', index: 2 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, ...usage({ output_tokens: 31 }) },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': metrics },
  ];
}

const complete = assembleBedrock;

describe('bedrock-invoke', () => {
  const bytes = invokeStream(events(true));

  it.each([1, 2, 3, 7, 64, bytes.length])('assembles the Anthropic reply inside the chunks in pieces of %i', (size) => {
    const { values, error } = complete(bytes, size);
    expect(error).toBeUndefined();
    expect(values[0]).toMatchObject({
      id: 'msg_bdrk_01Xb',
      model: 'claude-sonnet-4',
      content: 'Checking Paris.',
      reasoning: 'Weather: call the tool.',
      reasoningSignatures: ['ErUBCkYIBRgCIkB'],
      toolCalls: [{ index: 0, id: 'toolu_bdrk_01A', name: 'get_weather', args: { city: 'Paris' } }],
      finishReason: 'tool_calls',
      usage: { promptTokens: 25, completionTokens: 31, totalTokens: 56 },
    });
  });

  it('takes the usage from the invocation metrics when the Anthropic events carry none', () => {
    const { values, error } = complete(invokeStream(events(false)));
    expect(error).toBeUndefined();
    expect(values[0]?.usage).toEqual({ promptTokens: 25, completionTokens: 31, totalTokens: 56 });
  });

  it('ends with StreamClosedEarlyError at every cut before message_stop', () => {
    const all = events(true);
    const boundaries = new Set(all.map((_, n) => invokeStream(all.slice(0, n)).length));
    for (let cut = 1; cut < bytes.length; cut++) {
      const { error } = complete(bytes.subarray(0, cut));
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as StreamClosedEarlyError).reason).toBe(boundaries.has(cut) ? 'no-end-signal' : 'mid-message');
    }
  });

  it('refuses a chunk whose bytes are not base64', () => {
    const { error } = complete(concat([invokeStream(events(true).slice(0, 1)), eventMessage('chunk', { bytes: 'not base64!' })]));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ position: { event: 2 } });
  });
});
