import type { ResponsesServerEvent } from 'openai-current/resources/responses/responses';

// Responses API WebSocket events, each typed by the openai SDK 7.x (`ResponsesServerEvent`,
// node_modules/openai-current/resources/responses/responses.d.ts): a field the SDK does not have, or
// one it requires and an event lacks, fails `tsc`. The values are made up; the shapes are the SDK's.

/** The `response` object of a lifecycle event, with what the SDK requires of it. */
function response(id: string, status: 'in_progress' | 'completed' | 'incomplete' | 'failed', extra: object = {}) {
  return {
    id,
    object: 'response' as const,
    created_at: 1767000000,
    model: 'gpt-5.4',
    status,
    output: [],
    output_text: '',
    parallel_tool_calls: true,
    tool_choice: 'auto' as const,
    tools: [],
    temperature: null,
    top_p: null,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    access_programs: null,
    ...extra,
  };
}

/** Each event as the JSON text of one WebSocket message. */
export const text = (event: ResponsesServerEvent): string => JSON.stringify(event);

export const created = (id: string, sequence = 0, streamId?: string): ResponsesServerEvent => ({
  type: 'response.created',
  sequence_number: sequence,
  response: response(id, 'in_progress'),
  ...(streamId === undefined ? {} : { stream_id: streamId }),
});

export const messageAdded = (itemId: string, sequence: number, streamId?: string): ResponsesServerEvent => ({
  type: 'response.output_item.added',
  sequence_number: sequence,
  output_index: 0,
  item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
  ...(streamId === undefined ? {} : { stream_id: streamId }),
});

export const textDelta = (itemId: string, delta: string, sequence: number, streamId?: string): ResponsesServerEvent => ({
  type: 'response.output_text.delta',
  sequence_number: sequence,
  item_id: itemId,
  output_index: 0,
  content_index: 0,
  delta,
  logprobs: [],
  ...(streamId === undefined ? {} : { stream_id: streamId }),
});

export const completed = (id: string, sequence: number, streamId?: string): ResponsesServerEvent => ({
  type: 'response.completed',
  sequence_number: sequence,
  response: response(id, 'completed', {
    usage: {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 17,
    },
  }),
  ...(streamId === undefined ? {} : { stream_id: streamId }),
});

export const incomplete = (id: string, reason: 'steered' | 'max_output_tokens', sequence: number): ResponsesServerEvent => ({
  type: 'response.incomplete',
  sequence_number: sequence,
  response: response(id, 'incomplete', { incomplete_details: { reason } }),
});

/** The error event of the Responses WebSocket (`ResponsesServerEvent.ResponseWsError`). */
export const wsError = (code: string, message: string, streamId?: string): ResponsesServerEvent => ({
  type: 'error',
  error: { type: 'invalid_request_error', code, message, param: null },
  status: 400,
  ...(streamId === undefined ? {} : { stream_id: streamId }),
});

/** The error event of a response's stream (`ResponsesServerEvent.ResponseWsStreamingError`). */
export const streamError = (code: string, message: string, sequence: number): ResponsesServerEvent => ({
  type: 'error',
  code,
  message,
  param: null,
  sequence_number: sequence,
});

export const steerAccepted = (steerId: string, responseId: string, sequence: number): ResponsesServerEvent => ({
  type: 'response.steer.accepted',
  sequence_number: sequence,
  steer: { id: steerId, previous_response_id: responseId },
});

export const steerPending = (steerId: string, responseId: string, sequence: number): ResponsesServerEvent => ({
  type: 'response.steer.pending',
  sequence_number: sequence,
  reason: 'waiting_for_required_input',
  required_input: [],
  steer: { id: steerId, previous_response_id: responseId },
});
