import { readReply, sseOf } from '../support/pipeline';

// AI SDK UI message streams written from ai 7.x's own `UIMessageChunk` type
// (node_modules/ai-current/dist/index.d.ts: `tool-input-start`, `tool-input-available`,
// `tool-input-error`, `tool-output-available`, `tool-approval-request`, ...), read through the
// README pipeline at 1, 7 and 64-byte chunks and whole. Expected values are written from those types.

const START = { type: 'start', messageId: 'msg-1' };

describe('ai-sdk-ui reads every whole reply and keeps the program calls apart (issue 30, B and C)', () => {
  it('reads a stream with tool-input-error after tool-input-start: no call to run, the chunk kept', () => {
    const error = { type: 'tool-input-error', toolCallId: 'c1', toolName: 'f', input: '{"a":', errorText: 'Invalid input' };
    const { completion, error: failure } = readReply(
      sseOf([
        START,
        { type: 'start-step' },
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 'f' },
        error,
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(failure).toBeUndefined();
    expect(completion).toMatchObject({ toolCalls: [], finishReason: 'stop' });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ 'ai-sdk': { items: [error] } });
  });

  it('reads a tool the server executed (tool-output-available follows) as a provider tool call with its output; stop stays stop', () => {
    const { completion, error } = readReply(
      sseOf([
        START,
        { type: 'start-step' },
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 'weather' },
        { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"city":"Oslo"}' },
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } },
        { type: 'tool-output-available', toolCallId: 'c1', output: { celsius: 4 } },
        { type: 'finish-step' },
        { type: 'start-step' },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'It is 4 degrees.' },
        { type: 'text-end', id: 't1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'It is 4 degrees.', toolCalls: [], finishReason: 'stop' });
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'c1',
        name: 'weather',
        type: 'tool-weather',
        input: { city: 'Oslo' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { celsius: 4 },
      },
    ]);
  });

  it('reads a tool-approval-request as a tool request, not a call to run', () => {
    const { completion, error } = readReply(
      sseOf([
        START,
        { type: 'start-step' },
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 'delete_file', input: { path: 'a.txt' } },
        { type: 'tool-approval-request', approvalId: 'ap_1', toolCallId: 'c1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'tool-calls' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.finishReason).not.toBe('tool_calls');
    expect(completion!.toolRequests).toEqual([
      { id: 'ap_1', type: 'tool-approval-request', kind: 'approval', name: 'delete_file', input: { path: 'a.txt' } },
    ]);
  });
});

describe('ai-sdk-ui keeps what the stream says is the reply (issue 30, F)', () => {
  it('reset-step removes the parts of the step it resets: the retried text replaces the discarded text', () => {
    // UIMessageChunk {type: 'reset-step'}: "Removes all message parts added during the current step"
    // (ai 7, index.d.ts), the parts received since the most recent `start-step` (the stream protocol's
    // page): what WorkflowAgent sends before a retried model call's output.
    const { completion, error, events } = readReply(
      sseOf([
        START,
        { type: 'start-step' },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Checking. ' },
        { type: 'text-end', id: 't1' },
        { type: 'finish-step' },
        { type: 'start-step' },
        { type: 'reasoning-start', id: 'r1' },
        { type: 'reasoning-delta', id: 'r1', delta: 'The user wants' },
        { type: 'text-start', id: 't2' },
        { type: 'text-delta', id: 't2', delta: 'It is 9 deg' },
        { type: 'source-url', sourceId: 's1', url: 'https://bad.example' },
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 'weather' },
        { type: 'reset-step' },
        { type: 'text-start', id: 't3' },
        { type: 'text-delta', id: 't3', delta: 'It is 4 degrees.' },
        { type: 'text-end', id: 't3' },
        { type: 'source-url', sourceId: 's2', url: 'https://good.example' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Checking. It is 4 degrees.', reasoning: null, toolCalls: [], finishReason: 'stop' });
    expect(completion!.sources).toEqual([{ kind: 'url', url: 'https://good.example' }]);
    // The discarded text did stream: a live reader is told to take it back.
    expect(events.filter((event) => event.type === 'content').map((event) => (event as { text: string }).text)).toContain('It is 9 deg');
  });

  it('reset-step with no step boundary removes every part of the message so far', () => {
    const { completion, error } = readReply(
      sseOf([
        START,
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Half an ans' },
        { type: 'reset-step' },
        { type: 'text-start', id: 't2' },
        { type: 'text-delta', id: 't2', delta: 'A whole answer.' },
        { type: 'text-end', id: 't2' },
        { type: 'finish', finishReason: 'stop' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'A whole answer.', finishReason: 'stop' });
  });
});
