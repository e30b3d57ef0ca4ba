import type { Usage } from '../../types/replyParts.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, WrittenCall, WrittenChoice, readChoices, refuseDetails, requireCounts } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'openai-realtime',
  choices: false,
  reasoning: false,
  calls: 'streamed',
  custom: false,
  signatures: 0,
  // The raw value of a completed response is its status; of an incomplete one, its status_details.reason.
  finishes: { stop: 'completed', tool_calls: 'completed', length: 'max_output_tokens', content_filter: 'content_filter' },
  toolCallsByCalls: true,
  rawFinish: true,
};

/**
 * One reply of an OpenAI Realtime session, as the server sends its events over the socket, one JSON
 * message each (here one a line: NDJSON, as a session is recorded): every event with its `type` and
 * an `event_id` of its own; `response.created` (a `realtime.response`, `in_progress`, text output);
 * a `message` item whose `output_text` part streams as `response.output_text.delta` a word at a time,
 * then its `.done` events; a `function_call` item per call (`call_id` the call's id, arguments in
 * `response.function_call_arguments.delta` pieces, then `.done` with the name and the whole text);
 * then `response.done` with the status (`completed`, or `incomplete` and `status_details.reason` for
 * `length` and `content_filter`), the whole output and the usage.
 *
 * Cannot write: a model or an id of its own (the Realtime response names no model; the kit's id is
 * `resp_test`), reasoning, signatures, custom calls, several choices, usage without its three counts
 * or with cache writes or reasoning tokens. An error mid-stream is an `error` event (`server_error`).
 */
export const openaiRealtimeWriter: ProviderWriter = {
  dialect: 'openai-realtime',
  contentType: 'application/x-ndjson',
  framing: 'ndjson',
  write(reply) {
    if (reply.model !== undefined) throw new UnsupportedReplyError('openai-realtime', 'model', 'a Realtime response names no model');
    const choice = readChoices(reply, RULES)[0]!;
    const id = reply.id ?? 'resp_test';
    const events: WireEvent[] = [];
    const push = (type: string, fields: Record<string, unknown>, carries?: readonly Carried[]): void => {
      const data = JSON.stringify({ type, event_id: `event_${1000 + events.length}`, ...fields });
      events.push(carries === undefined ? { data } : { data, carries });
    };
    const base = { object: 'realtime.response', id, conversation_id: 'conv_test', output_modalities: ['text'], max_output_tokens: 'inf' };
    push('response.created', {
      response: { ...base, status: 'in_progress', status_details: null, output: [], usage: null, metadata: null },
    });
    const output: unknown[] = [];
    if (choice.text !== '') output.push(writeMessage(choice, id, output.length, push));
    for (const call of choice.calls) output.push(writeCall(call, id, output.length, push));

    const status = choice.raw === 'completed' ? 'completed' : 'incomplete';
    const details = status === 'completed' ? { type: 'completed' } : { type: 'incomplete', reason: choice.raw };
    const usage = reply.usage === undefined ? null : realtimeUsage(reply.usage);
    const done = { ...base, status, status_details: details, output, usage, metadata: null };
    push('response.done', { response: done }, [{ kind: 'finish', choice: 0, reason: choice.finish }]);
    events[events.length - 1] = { ...events[events.length - 1]!, end: true };
    return events;
  },
  error(before) {
    const error = {
      type: 'server_error',
      code: 'server_error',
      message: 'The server had an error while processing your request.',
      param: null,
      event_id: null,
    };
    return [{ data: JSON.stringify({ type: 'error', event_id: `event_${1000 + before}`, error }), end: true }];
  },
};

type Push = (type: string, fields: Record<string, unknown>, carries?: readonly Carried[]) => void;

function writeMessage(choice: WrittenChoice, responseId: string, outputIndex: number, push: Push): unknown {
  const itemId = 'item_msg_test';
  const at = { response_id: responseId, item_id: itemId, output_index: outputIndex, content_index: 0 };
  const item = { id: itemId, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  push('response.output_item.added', { response_id: responseId, output_index: outputIndex, item });
  // The part events name the part `text`; the message item's content, `output_text` (both as the SDK types them).
  push('response.content_part.added', { ...at, part: { type: 'text', text: '' } });
  for (const text of textPieces(choice.text))
    push('response.output_text.delta', { ...at, delta: text }, [{ kind: 'text', choice: 0, text }]);
  push('response.output_text.done', { ...at, text: choice.text });
  push('response.content_part.done', { ...at, part: { type: 'text', text: choice.text } });
  const done = { ...item, status: 'completed', content: [{ type: 'output_text', text: choice.text }] };
  push('response.output_item.done', { response_id: responseId, output_index: outputIndex, item: done });
  return done;
}

function writeCall(call: WrittenCall, responseId: string, outputIndex: number, push: Push): unknown {
  const itemId = `item_fc_test_${call.index}`;
  const item = {
    id: itemId,
    object: 'realtime.item',
    type: 'function_call',
    status: 'in_progress',
    call_id: call.id,
    name: call.name,
    arguments: '',
  };
  push('response.output_item.added', { response_id: responseId, output_index: outputIndex, item }, [
    { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
  ]);
  const at = { response_id: responseId, item_id: itemId, output_index: outputIndex, call_id: call.id };
  const pieces = argumentPieces(call.text);
  pieces.forEach((text, k) => {
    push('response.function_call_arguments.delta', { ...at, delta: text }, [
      { kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 },
    ]);
  });
  push('response.function_call_arguments.done', { ...at, name: call.name, arguments: call.text });
  const done = { ...item, status: 'completed', arguments: call.text };
  push('response.output_item.done', { response_id: responseId, output_index: outputIndex, item: done });
  return done;
}

/** `RealtimeResponseUsage`: the three counts, `input_token_details` (cached, audio), `output_token_details` (audio). */
function realtimeUsage(usage: Usage): Record<string, unknown> {
  requireCounts(usage, 'openai-realtime', ['promptTokens', 'completionTokens', 'totalTokens']);
  refuseDetails(usage, 'openai-realtime', ['cacheWritePromptTokens', 'reasoningTokens', 'estimated']);
  const input = {
    ...(usage.cachedPromptTokens === undefined ? {} : { cached_tokens: usage.cachedPromptTokens }),
    ...(usage.audioPromptTokens === undefined ? {} : { audio_tokens: usage.audioPromptTokens }),
  };
  return {
    total_tokens: usage.totalTokens,
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    ...(Object.keys(input).length === 0 ? {} : { input_token_details: input }),
    ...(usage.audioCompletionTokens === undefined ? {} : { output_token_details: { audio_tokens: usage.audioCompletionTokens } }),
  };
}
