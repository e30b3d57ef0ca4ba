import type { Usage } from '../../types/replyParts.js';
import type { TestReply } from '../writing/TestReply.js';
import { CREATED } from '../openai-chat/openaiChatWriter.js';
import { FormatRules, WrittenCall, WrittenChoice, readChoices, refuseDetails, requireCounts } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'openai-responses',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: true,
  signatures: 1,
  // The raw value of response.completed is its status; of response.incomplete, its reason.
  finishes: { stop: 'completed', tool_calls: 'completed', length: 'max_output_tokens', content_filter: 'content_filter' },
  toolCallsByCalls: true,
  rawFinish: true,
};

/**
 * OpenAI's Responses stream (`POST /v1/responses`, `stream: true`), as OpenAI frames it: named SSE
 * events whose `type` repeats the name and whose `sequence_number` counts from 0;
 * `response.created` and `response.in_progress`; a `reasoning` item (its summary part streamed as
 * `response.reasoning_summary_text.delta`, its `encrypted_content`, the reasoning signature, on the
 * finished item); a `message` item (an `output_text` part, `response.output_text.delta` a word at a
 * time, the `.done` events); a `function_call` item per call (`call_id` the call's id, arguments in
 * `response.function_call_arguments.delta` pieces, then `.done`), `custom_tool_call` items for custom
 * calls; then `response.completed` (or `response.incomplete` with `incomplete_details.reason` for
 * `length` and `content_filter`) with the whole output and the usage. No `[DONE]`.
 *
 * Cannot write: several choices, more than one reasoning signature, usage without its three counts
 * or with `cacheWritePromptTokens`. Finish: `stop` and `tool_calls` are `completed` (the calls say
 * which), `length` is `max_output_tokens`, `content_filter` stays; a `rawFinishReason` other than
 * `completed` is written as the incomplete reason. An error mid-stream is an `error` event (the
 * nested shape OpenAI sends), then `response.failed`.
 */
export const openaiResponsesWriter: ProviderWriter = {
  dialect: 'openai-responses',
  contentType: 'text/event-stream; charset=utf-8',
  framing: 'sse',
  write(reply) {
    const choice = readChoices(reply, RULES)[0]!;
    const id = reply.id ?? 'resp_test';
    // Item ids name their response, as OpenAI's are unique: two replies on one socket keep theirs apart.
    const tag = id.replace(/^resp_/, '');
    const events: WireEvent[] = [];
    const push = (type: string, fields: Record<string, unknown>, carries?: readonly Carried[]): void => {
      const data = JSON.stringify({ type, sequence_number: events.length, ...fields });
      events.push(carries === undefined ? { event: type, data } : { event: type, data, carries });
    };
    const base = response(reply, id);
    push('response.created', { response: { ...base, status: 'in_progress', output: [], usage: null } });
    push('response.in_progress', { response: { ...base, status: 'in_progress', output: [], usage: null } });
    const output: unknown[] = [];
    if (choice.reasoning !== '' || choice.signatures.length > 0) output.push(writeReasoning(choice, tag, output.length, push));
    if (choice.text !== '') output.push(writeMessage(choice, tag, output.length, push));
    for (const call of choice.calls) {
      // A last call the token limit cut (its arguments do not parse) finishes `incomplete`, as OpenAI marks it.
      const cut = choice.finish === 'length' && call.index === choice.calls.length - 1 && !call.custom && !parses(call.text);
      output.push(writeCall(call, tag, output.length, push, cut));
    }

    const finish: Carried[] = [{ kind: 'finish', choice: 0, reason: choice.finish }];
    const usage = reply.usage === undefined ? null : responsesUsage(reply.usage);
    const before = events.length;
    if (choice.raw === 'completed') {
      push('response.completed', { response: { ...base, status: 'completed', output, usage } }, finish);
    } else {
      const incomplete = { reason: choice.raw };
      push('response.incomplete', { response: { ...base, status: 'incomplete', incomplete_details: incomplete, output, usage } }, finish);
    }
    events[before] = { ...events[before]!, end: true };
    return events;
  },
  error(before) {
    const error = {
      type: 'server_error',
      code: 'server_error',
      message: 'The server had an error while processing your request.',
      param: null,
    };
    const failed = {
      id: 'resp_test',
      object: 'response',
      status: 'failed',
      error: { code: 'server_error', message: error.message },
      output: [],
      usage: null,
    };
    return [
      { event: 'error', data: JSON.stringify({ type: 'error', sequence_number: before, error }) },
      {
        event: 'response.failed',
        data: JSON.stringify({ type: 'response.failed', sequence_number: before + 1, response: failed }),
        end: true,
      },
    ];
  },
};

type Push = (type: string, fields: Record<string, unknown>, carries?: readonly Carried[]) => void;

/** The fields of the response object every lifecycle event carries. */
function response(reply: TestReply, id: string): Record<string, unknown> {
  return { id, object: 'response', created_at: CREATED, error: null, incomplete_details: null, model: reply.model ?? 'test-model' };
}

function writeReasoning(choice: WrittenChoice, tag: string, outputIndex: number, push: Push): unknown {
  const itemId = `rs_${tag}`;
  const at = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
  push('response.output_item.added', { output_index: outputIndex, item: { id: itemId, type: 'reasoning', summary: [] } });
  const summary = choice.reasoning === '' ? [] : [{ type: 'summary_text', text: choice.reasoning }];
  if (choice.reasoning !== '') {
    push('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    for (const text of textPieces(choice.reasoning)) {
      push('response.reasoning_summary_text.delta', { ...at, delta: text }, [{ kind: 'reasoning', choice: 0, text }]);
    }
    push('response.reasoning_summary_text.done', { ...at, text: choice.reasoning });
    push('response.reasoning_summary_part.done', { ...at, part: summary[0] });
  }
  const signature = choice.signatures[0];
  const item = { id: itemId, type: 'reasoning', summary, ...(signature === undefined ? {} : { encrypted_content: signature }) };
  push(
    'response.output_item.done',
    { output_index: outputIndex, item },
    signature === undefined ? undefined : [{ kind: 'named', choice: 0 }],
  );
  return item;
}

function writeMessage(choice: WrittenChoice, tag: string, outputIndex: number, push: Push): unknown {
  const itemId = `msg_${tag}`;
  const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
  push('response.output_item.added', {
    output_index: outputIndex,
    item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
  });
  push('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  for (const text of textPieces(choice.text)) {
    push('response.output_text.delta', { ...at, delta: text, logprobs: [] }, [{ kind: 'text', choice: 0, text }]);
  }
  const part = { type: 'output_text', annotations: [], logprobs: [], text: choice.text };
  push('response.output_text.done', { ...at, text: choice.text, logprobs: [] });
  push('response.content_part.done', { ...at, part });
  const item = { id: itemId, type: 'message', status: 'completed', content: [part], role: 'assistant' };
  push('response.output_item.done', { output_index: outputIndex, item });
  return item;
}

function writeCall(call: WrittenCall, tag: string, outputIndex: number, push: Push, cut: boolean): unknown {
  const itemId = `${call.custom ? 'ctc' : 'fc'}_${tag}_${call.index}`;
  const type = call.custom ? 'custom_tool_call' : 'function_call';
  const field = call.custom ? 'input' : 'arguments';
  const events = call.custom ? 'response.custom_tool_call_input' : 'response.function_call_arguments';
  const item = { id: itemId, type, status: 'in_progress', [field]: '', call_id: call.id, name: call.name };
  push('response.output_item.added', { output_index: outputIndex, item }, [
    { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
  ]);
  const pieces = argumentPieces(call.text);
  pieces.forEach((text, k) => {
    push(`${events}.delta`, { item_id: itemId, output_index: outputIndex, delta: text }, [
      { kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 },
    ]);
  });
  push(`${events}.done`, { item_id: itemId, output_index: outputIndex, [field]: call.text });
  const done = { ...item, status: cut ? 'incomplete' : 'completed', [field]: call.text };
  push('response.output_item.done', { output_index: outputIndex, item: done });
  return done;
}

function parses(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The usage of the terminal event: `input_tokens`, `output_tokens`, `total_tokens` and their details. */
function responsesUsage(usage: Usage): Record<string, unknown> {
  requireCounts(usage, 'openai-responses', ['promptTokens', 'completionTokens', 'totalTokens']);
  refuseDetails(usage, 'openai-responses', ['audioPromptTokens', 'audioCompletionTokens', 'estimated']);
  const input = {
    ...(usage.cachedPromptTokens === undefined ? {} : { cached_tokens: usage.cachedPromptTokens }),
    ...(usage.cacheWritePromptTokens === undefined ? {} : { cache_write_tokens: usage.cacheWritePromptTokens }),
  };
  return {
    input_tokens: usage.promptTokens,
    ...(Object.keys(input).length === 0 ? {} : { input_tokens_details: input }),
    output_tokens: usage.completionTokens,
    ...(usage.reasoningTokens === undefined ? {} : { output_tokens_details: { reasoning_tokens: usage.reasoningTokens } }),
    total_tokens: usage.totalTokens,
  };
}
