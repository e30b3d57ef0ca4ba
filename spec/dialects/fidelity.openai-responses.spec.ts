import { readReply, sseOf } from '../support/pipeline';

// Whole Responses replies that the library refused or misread, each written from the types of the
// openai SDK 7.x (node_modules/openai-current/resources/responses/responses.d.ts; the interface named
// above each stream) and read through the README pipeline at 1, 7 and 64-byte chunks and whole. The
// expected values are written here from those types, not printed from the code.

type Payload = Record<string, unknown>;

/** `ResponseCreatedEvent` / `ResponseCompletedEvent`'s `response` (`Response`), with the fields the reply needs. */
const response = (status: string, extra: Payload = {}): Payload => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1767225600,
  status,
  model: 'gpt-5',
  output: [],
  usage: null,
  error: null,
  incomplete_details: null,
  ...extra,
});

const USAGE = { input_tokens: 5, output_tokens: 7, total_tokens: 12 };

/** A reply: `response.created`, the events given, `response.completed`; `sequence_number` counting from 0, `event:` named. */
function reply(events: readonly Payload[]): string {
  const all: Payload[] = [
    { type: 'response.created', response: response('in_progress') },
    ...events,
    { type: 'response.completed', response: response('completed', { usage: USAGE }) },
  ];
  return sseOf(
    all.map((event, n) => ({ type: event['type'], sequence_number: n, ...event })),
    true,
  );
}

/** `ResponseOutputItemAddedEvent` and `ResponseOutputItemDoneEvent` of one item. */
const added = (item: Payload, output_index = 0): Payload => ({ type: 'response.output_item.added', output_index, item });
const done = (item: Payload, output_index = 0): Payload => ({ type: 'response.output_item.done', output_index, item });

describe('openai-responses reads every whole reply (issue 30, B)', () => {
  it('reads a reply whose output is only audio: its data and transcript on `audio`', () => {
    // ResponseAudioDeltaEvent {delta, sequence_number, type}, ResponseAudioTranscriptDeltaEvent
    // {delta, ...}, ResponseAudioDoneEvent and ResponseAudioTranscriptDoneEvent {sequence_number, type}.
    const { completion, error } = readReply(
      reply([
        { type: 'response.audio.delta', delta: 'UklGRiQA' },
        { type: 'response.audio.transcript.delta', delta: 'Hello' },
        { type: 'response.audio.delta', delta: 'AABXQVZF' },
        { type: 'response.audio.transcript.delta', delta: ' there.' },
        { type: 'response.audio.done' },
        { type: 'response.audio.transcript.done' },
      ]),
      'openai-responses',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      id: 'resp_1',
      content: null,
      toolCalls: [],
      finishReason: 'stop',
      audio: { id: null, data: 'UklGRiQAAABXQVZF', transcript: 'Hello there.', expiresAt: null },
    });
  });

  it('reads a reply that is only an mcp_approval_request: a tool request waiting for approval, finish stop', () => {
    // ResponseOutputItem.McpApprovalRequest {id, arguments, name, server_label, type}.
    const item = {
      id: 'mcpr_1',
      type: 'mcp_approval_request',
      name: 'create_issue',
      server_label: 'github',
      arguments: '{"title":"Crash on start"}',
    };
    const { completion, error } = readReply(reply([added(item), done(item)]), 'openai-responses');
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.finishReason).toBe('stop');
    expect(completion!.toolRequests).toEqual([
      {
        id: 'mcpr_1',
        type: 'mcp_approval_request',
        kind: 'approval',
        name: 'create_issue',
        input: { server_label: 'github', arguments: '{"title":"Crash on start"}' },
      },
    ]);
  });

  it('reads a reply that is only a shell call streamed in shell_call_command events: a client tool request', () => {
    // ResponseFunctionShellToolCall {id, action: {commands, max_output_length, timeout_ms}, call_id,
    // environment (ResponseLocalEnvironment {type: 'local'}), status, type: 'shell_call'};
    // ResponseShellCallCommandAddedEvent {command, command_index, output_index},
    // ResponseShellCallCommandDeltaEvent {command_index, delta, output_index, obfuscation?},
    // ResponseShellCallCommandDoneEvent {command, command_index, output_index}.
    const opened = {
      id: 'sh_1',
      type: 'shell_call',
      call_id: 'call_sh',
      status: 'in_progress',
      environment: { type: 'local' },
      action: { commands: [], max_output_length: null, timeout_ms: null },
    };
    const finished = { ...opened, status: 'completed', action: { commands: ['ls -la'], max_output_length: 4096, timeout_ms: 10000 } };
    const { completion, error } = readReply(
      reply([
        added(opened),
        { type: 'response.shell_call_command.added', output_index: 0, command_index: 0, command: '' },
        { type: 'response.shell_call_command.delta', output_index: 0, command_index: 0, delta: 'ls', obfuscation: 'x1' },
        { type: 'response.shell_call_command.delta', output_index: 0, command_index: 0, delta: ' -la', obfuscation: 'x2' },
        { type: 'response.shell_call_command.done', output_index: 0, command_index: 0, command: 'ls -la' },
        done(finished),
      ]),
      'openai-responses',
    );
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.finishReason).toBe('stop');
    expect(completion!.toolRequests).toEqual([
      {
        id: 'call_sh',
        type: 'shell_call',
        kind: 'client-tool',
        name: null,
        input: { environment: { type: 'local' }, action: { commands: ['ls -la'], max_output_length: 4096, timeout_ms: 10000 } },
      },
    ]);
  });
});

describe('openai-responses keeps the calls a program runs apart from those that wait for it (issue 30, C)', () => {
  it('reads a tool_search_call with execution "client" as a tool request, not an empty stop', () => {
    // ResponseToolSearchCall {id, arguments: unknown, call_id: string | null, execution, status, type}.
    const item = {
      id: 'ts_1',
      type: 'tool_search_call',
      call_id: 'call_ts',
      execution: 'client',
      status: 'completed',
      arguments: { query: 'crm' },
    };
    const { completion, error } = readReply(reply([added({ ...item, status: 'in_progress' }), done(item)]), 'openai-responses');
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.finishReason).toBe('stop');
    expect(completion!.toolRequests).toEqual([
      { id: 'call_ts', type: 'tool_search_call', kind: 'client-tool', name: null, input: { arguments: { query: 'crm' } } },
    ]);
  });

  it('reads an apply_patch_call alone as a tool request with its operation', () => {
    // ResponseApplyPatchToolCall {id, call_id, operation: UpdateFile {diff, path, type}, status, type}.
    const operation = { type: 'update_file', path: 'src/app.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' };
    const item = { id: 'apc_1', type: 'apply_patch_call', call_id: 'call_ap', status: 'completed', operation };
    const { completion, error } = readReply(reply([added({ ...item, status: 'in_progress' }), done(item)]), 'openai-responses');
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.finishReason).toBe('stop');
    expect(completion!.toolRequests).toEqual([
      { id: 'call_ap', type: 'apply_patch_call', kind: 'client-tool', name: null, input: { operation } },
    ]);
  });

  it('reads a computer_call as a tool request with its action and pending safety checks', () => {
    // ResponseComputerToolCall {id, call_id, pending_safety_checks, status, type, action?}.
    const item = {
      id: 'cu_1',
      type: 'computer_call',
      call_id: 'call_cu',
      status: 'completed',
      pending_safety_checks: [{ id: 'sc_1', code: 'malicious_instructions', message: 'Check the page.' }],
      action: { type: 'click', button: 'left', x: 10, y: 20 },
    };
    const { completion, error } = readReply(reply([added({ ...item, status: 'in_progress' }), done(item)]), 'openai-responses');
    expect(error).toBeUndefined();
    expect(completion!.finishReason).toBe('stop');
    expect(completion!.toolRequests).toEqual([
      {
        id: 'call_cu',
        type: 'computer_call',
        kind: 'client-tool',
        name: null,
        input: { pending_safety_checks: item.pending_safety_checks, action: item.action },
      },
    ]);
  });

  it('keeps function_call.namespace: crm.search and calendar.search stay apart, and a request beside calls does not count', () => {
    // ResponseFunctionToolCall {arguments, call_id, name, type, id?, namespace?, status?}.
    const crm = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'search', namespace: 'crm', arguments: '' };
    const calendar = { id: 'fc_2', type: 'function_call', call_id: 'call_2', name: 'search', namespace: 'calendar', arguments: '' };
    const { completion, error } = readReply(
      reply([
        added(crm, 0),
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"q":"Ada"}' },
        done({ ...crm, arguments: '{"q":"Ada"}', status: 'completed' }, 0),
        added(calendar, 1),
        { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 1, delta: '{"q":"Monday"}' },
        done({ ...calendar, arguments: '{"q":"Monday"}', status: 'completed' }, 1),
      ]),
      'openai-responses',
    );
    expect(error).toBeUndefined();
    expect(completion!.finishReason).toBe('tool_calls');
    expect(completion!.toolCalls).toEqual([
      { index: 0, id: 'call_1', name: 'search', namespace: 'crm', arguments: '{"q":"Ada"}', args: { q: 'Ada' } },
      { index: 1, id: 'call_2', name: 'search', namespace: 'calendar', arguments: '{"q":"Monday"}', args: { q: 'Monday' } },
    ]);
  });
});

describe('openai-responses keeps the usage details (issue 30, F)', () => {
  it('reads input_tokens_details.cache_write_tokens as cacheWritePromptTokens, and its TTL split in the open reply', () => {
    // ResponseUsage.InputTokensDetails {cache_write_tokens, cached_tokens, cache_write_tokens_details?:
    // {ttl_12h_tokens, ttl_30m_tokens}}.
    const usage = {
      input_tokens: 500,
      input_tokens_details: {
        cached_tokens: 100,
        cache_write_tokens: 300,
        cache_write_tokens_details: { ttl_12h_tokens: 200, ttl_30m_tokens: 100 },
      },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 507,
    };
    const body = sseOf(
      [
        { type: 'response.created', sequence_number: 0, response: response('in_progress') },
        { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
        { type: 'response.completed', sequence_number: 2, response: response('completed', { usage }) },
      ],
      true,
    );
    const { completion, error } = readReply(body, 'openai-responses');
    expect(error).toBeUndefined();
    expect(completion!.usage).toEqual({
      promptTokens: 500,
      completionTokens: 7,
      totalTokens: 507,
      cachedPromptTokens: 100,
      cacheWritePromptTokens: 300,
      reasoningTokens: 0,
    });
    expect(completion!.providerMetadata?.['openai']).toMatchObject({
      cache_write_tokens_details: { ttl_12h_tokens: 200, ttl_30m_tokens: 100 },
    });
  });
});

describe('openai-responses shows the previews of a generated image live, and keeps only the image (issue 30, F)', () => {
  // ResponseImageGenCallPartialImageEvent {item_id, output_index, partial_image_b64, partial_image_index
  // (0-based), sequence_number, type: 'response.image_generation_call.partial_image', background?,
  // output_format?, quality?, size?}; the finished item (ResponseOutputItem.ImageGenerationCall {id,
  // result: string | null (the base64 image), status, type: 'image_generation_call'}) has the image.
  // A preview is a preview: each is an `image-preview` event, the latest of its call replacing the
  // earlier for a UI; the completion keeps the finished item's image only.
  const PREVIEW_0 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const PREVIEW_1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
  const partial = (index: number, b64: string): Payload => ({
    type: 'response.image_generation_call.partial_image',
    item_id: 'ig_1',
    output_index: 0,
    partial_image_index: index,
    partial_image_b64: b64,
    output_format: 'png',
    size: '1024x1024',
  });

  it('emits each partial image as an image-preview of its call, in order; the completion has the finished image and no preview', () => {
    const { completion, error, events } = readReply(
      reply([
        added({ id: 'ig_1', type: 'image_generation_call', status: 'in_progress', result: null }),
        { type: 'response.image_generation_call.in_progress', item_id: 'ig_1', output_index: 0 },
        { type: 'response.image_generation_call.generating', item_id: 'ig_1', output_index: 0 },
        partial(0, PREVIEW_0),
        partial(1, PREVIEW_1),
        done({ id: 'ig_1', type: 'image_generation_call', status: 'completed', result: IMAGE, revised_prompt: 'A red pixel' }),
      ]),
      'openai-responses',
    );
    expect(error).toBeUndefined();
    expect(events.filter((event) => (event.type as string) === 'image-preview')).toEqual([
      { type: 'image-preview', choice: 0, id: 'ig_1', index: 0, data: PREVIEW_0, format: 'png' },
      { type: 'image-preview', choice: 0, id: 'ig_1', index: 1, data: PREVIEW_1, format: 'png' },
    ]);
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'ig_1',
        name: 'image_generation',
        type: 'image_generation_call',
        input: { revised_prompt: 'A red pixel' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: IMAGE,
      },
    ]);
    const kept = JSON.stringify(completion);
    expect(kept).not.toContain(PREVIEW_0);
    expect(kept).not.toContain(PREVIEW_1);
  });
});
