import { readReply, sseOf } from '../support/pipeline';

// Whole Anthropic replies that the library refused, each written from the types of
// @anthropic-ai/sdk (anthropics/anthropic-sdk-typescript, src/resources/beta/messages/messages.ts at
// bfa9197f0182084941052be9752c948638421601; the interface named above each event) and read through the
// README pipeline at 1, 7 and 64-byte chunks and whole. The expected values are written here from
// those types, not printed from the code.

describe('anthropic reads every whole reply (issue 30, B)', () => {
  it('reads a reply that is only a compaction block (pause_after_compaction): the block kept, finish compaction', () => {
    // BetaCompact20260112Edit {type: 'compact_20260112', pause_after_compaction: true} in the request
    // makes the API return the compaction block alone and stop with BetaStopReason 'compaction'.
    // BetaRawContentBlockStartEvent {content_block: BetaCompactionBlock {content, encrypted_content,
    // type: 'compaction'}, index, type}; BetaCompactionContentBlockDelta {content, encrypted_content,
    // type: 'compaction_delta'}; BetaRawMessageDeltaEvent {context_management, delta: {container,
    // stop_details, stop_reason, stop_sequence}, usage}.
    const body = sseOf(
      [
        {
          type: 'message_start',
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-opus-4-6',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 150000, output_tokens: 1 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'compaction', content: null, encrypted_content: null } },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'compaction_delta', content: 'The user asked for a trip plan.', encrypted_content: 'EqQBCkYIBx' },
        },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          context_management: null,
          delta: { container: null, stop_details: null, stop_reason: 'compaction', stop_sequence: null },
          usage: { output_tokens: 240 },
        },
        { type: 'message_stop' },
      ],
      true,
    );
    const { completion, error } = readReply(body, 'anthropic');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      id: 'msg_1',
      model: 'claude-opus-4-6',
      content: null,
      toolCalls: [],
      rawFinishReason: 'compaction',
    });
    // What the next turn must send back: the block as it started and its delta, in order.
    expect(completion!.choices[0]!.providerMetadata?.['anthropic']?.['items']).toEqual([
      { type: 'compaction', content: null, encrypted_content: null },
      { type: 'compaction_delta', content: 'The user asked for a trip plan.', encrypted_content: 'EqQBCkYIBx' },
    ]);
    expect(completion!.finishReason).not.toBe('tool_calls');
  });
});

describe('anthropic keeps what a finish means (issue 30, F)', () => {
  const start = {
    type: 'message_start',
    message: {
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  };
  const text = [
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Step 1' } },
    { type: 'content_block_stop', index: 0 },
  ];

  it('reads stop_sequence as the finish details stopSequence', () => {
    // RawMessageDeltaEvent.Delta {container, stop_details, stop_reason: 'stop_sequence', stop_sequence:
    // "Which custom stop sequence was generated, if any."}
    const { completion, error } = readReply(
      sseOf(
        [
          start,
          ...text,
          {
            type: 'message_delta',
            delta: { container: null, stop_details: null, stop_reason: 'stop_sequence', stop_sequence: '###' },
            usage: { output_tokens: 3 },
          },
          { type: 'message_stop' },
        ],
        true,
      ),
      'anthropic',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Step 1', finishReason: 'stop', rawFinishReason: 'stop_sequence' });
    expect(completion!.finishDetails).toEqual({ stopSequence: '###' });
    // As it came, too: the raw delta stays in the open reply.
    expect(completion!.providerMetadata?.['anthropic']).toMatchObject({ stop_sequence: '###' });
  });

  it('reads stop_details (RefusalStopDetails) as the finish details category and message', () => {
    // RefusalStopDetails {category: 'cyber' | 'bio' | ... | null, explanation: string | null, type: 'refusal'}
    const { completion, error } = readReply(
      sseOf(
        [
          start,
          ...text,
          {
            type: 'message_delta',
            delta: {
              container: null,
              stop_details: { type: 'refusal', category: 'cyber', explanation: 'This could enable malware development.' },
              stop_reason: 'refusal',
              stop_sequence: null,
            },
            usage: { output_tokens: 3 },
          },
          { type: 'message_stop' },
        ],
        true,
      ),
      'anthropic',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ finishReason: 'content_filter', rawFinishReason: 'refusal' });
    expect(completion!.finishDetails).toEqual({ category: 'cyber', message: 'This could enable malware development.' });
  });
});

describe('anthropic keeps the usage details (issue 30, F)', () => {
  it('keeps server_tool_use counts and the 5m/1h cache-write split in the open reply', () => {
    // MessageDeltaUsage {cache_creation_input_tokens, cache_read_input_tokens, input_tokens,
    // output_tokens, server_tool_use: ServerToolUsage {web_fetch_requests, web_search_requests}};
    // Usage.cache_creation: CacheCreation {ephemeral_1h_input_tokens, ephemeral_5m_input_tokens}.
    const { completion, error } = readReply(
      sseOf(
        [
          {
            type: 'message_start',
            message: {
              id: 'msg_3',
              type: 'message',
              role: 'assistant',
              model: 'claude-opus-4-6',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: {
                input_tokens: 10,
                cache_creation_input_tokens: 150,
                cache_read_input_tokens: 0,
                cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 50 },
                output_tokens: 1,
              },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Found it.' } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 9, server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 } },
          },
          { type: 'message_stop' },
        ],
        true,
      ),
      'anthropic',
    );
    expect(error).toBeUndefined();
    expect(completion!.usage).toMatchObject({ promptTokens: 160, completionTokens: 9, cacheWritePromptTokens: 150 });
    expect(completion!.providerMetadata?.['anthropic']).toMatchObject({
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 50 },
      server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 },
    });
  });
});
