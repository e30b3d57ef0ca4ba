import type { Usage } from '../../types/replyParts.js';
import type { TestReply } from '../writing/TestReply.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireSum } from '../writing/readReply.js';
import { Carried, ProviderWriter, argumentPieces, textPieces } from '../writing/wire.js';

/** One event of Anthropic's Messages stream, before its framing (SSE, or Bedrock's `chunk` messages). */
export interface AnthropicEvent {
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly carries?: readonly Carried[];
}

/**
 * The events of Anthropic's Messages stream for `reply`: `message_start` (id, model, the input
 * usage), a `ping`, one group of `content_block_start`, `content_block_delta`*,
 * `content_block_stop` per block in the order Claude writes them (a `thinking` block with
 * `thinking_delta`s and its `signature_delta`, a `text` block with `text_delta`s, a `tool_use`
 * block per call with `input_json_delta`s, the first one `""`, as Anthropic sends it), then
 * `message_delta` with the `stop_reason` and the output usage, then `message_stop`.
 *
 * Cannot write: several choices, custom calls, more than one signature; usage whose total is not
 * prompt plus completion, or whose cached parts exceed the prompt (Anthropic counts the input in
 * three parts that add up to it).
 */
export function anthropicEvents(reply: TestReply, format: string): AnthropicEvent[] {
  const rules: FormatRules = {
    format,
    choices: false,
    reasoning: true,
    calls: 'streamed',
    custom: false,
    signatures: 1,
    finishes: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal', other: 'pause_turn' },
    toolCallsByCalls: false,
    rawFinish: true,
  };
  const choice = readChoices(reply, rules)[0]!;
  const usage = reply.usage === undefined ? undefined : anthropicUsage(reply.usage, format);
  const events: AnthropicEvent[] = [];
  const message = {
    id: reply.id ?? 'msg_test',
    type: 'message',
    role: 'assistant',
    model: reply.model ?? 'test-model',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    ...(usage === undefined ? {} : { usage: usage.start }),
  };
  events.push({ type: 'message_start', payload: { message } });
  let block = 0;
  const start = (contentBlock: Record<string, unknown>, carries?: readonly Carried[]): void => {
    events.push({ type: 'content_block_start', payload: { index: block, content_block: contentBlock }, ...(carries ? { carries } : {}) });
    if (block === 0) events.push({ type: 'ping', payload: {} });
  };
  const delta = (body: Record<string, unknown>, carries?: readonly Carried[]): void => {
    events.push({ type: 'content_block_delta', payload: { index: block, delta: body }, ...(carries ? { carries } : {}) });
  };
  const stop = (): void => {
    events.push({ type: 'content_block_stop', payload: { index: block } });
    block++;
  };
  if (choice.reasoning !== '' || choice.signatures.length > 0) {
    start({ type: 'thinking', thinking: '', signature: '' });
    for (const text of textPieces(choice.reasoning))
      delta({ type: 'thinking_delta', thinking: text }, [{ kind: 'reasoning', choice: 0, text }]);
    for (const signature of choice.signatures) delta({ type: 'signature_delta', signature }, [{ kind: 'named', choice: 0 }]);
    stop();
  }
  if (choice.text !== '') {
    start({ type: 'text', text: '' });
    for (const text of textPieces(choice.text)) delta({ type: 'text_delta', text }, [{ kind: 'text', choice: 0, text }]);
    stop();
  }
  for (const call of choice.calls) {
    start({ type: 'tool_use', id: call.id, name: call.name, input: {} }, [
      { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
    ]);
    delta({ type: 'input_json_delta', partial_json: '' });
    const pieces = argumentPieces(call.text);
    pieces.forEach((text, k) => {
      delta({ type: 'input_json_delta', partial_json: text }, [
        { kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 },
      ]);
    });
    stop();
  }
  if (block === 0) events.push({ type: 'ping', payload: {} });
  events.push({
    type: 'message_delta',
    payload: { delta: { stop_reason: choice.raw, stop_sequence: null }, ...(usage === undefined ? {} : { usage: usage.end }) },
    carries: [{ kind: 'finish', choice: 0, reason: choice.finish }],
  });
  events.push({ type: 'message_stop', payload: {} });
  return events;
}

/**
 * Usage as Anthropic reports it: the input in three parts (`input_tokens`, the cache read and the
 * cache written) at `message_start` with a first small `output_tokens`, and the output total at
 * `message_delta`.
 */
function anthropicUsage(usage: Usage, format: string): { start: Record<string, number>; end: Record<string, unknown> } {
  requireSum(usage, format);
  refuseDetails(usage, format, ['estimated']);
  const cached = usage.cachedPromptTokens ?? 0;
  const written = usage.cacheWritePromptTokens ?? 0;
  const input = usage.promptTokens! - cached - written;
  if (input < 0)
    throw new UnsupportedReplyError(format, 'usage.cachedPromptTokens', 'the cached parts of the prompt are more than the prompt');
  const output = usage.completionTokens!;
  return {
    start: {
      input_tokens: input,
      ...(usage.cacheWritePromptTokens === undefined ? {} : { cache_creation_input_tokens: written }),
      ...(usage.cachedPromptTokens === undefined ? {} : { cache_read_input_tokens: cached }),
      output_tokens: Math.min(1, output),
    },
    end: {
      output_tokens: output,
      ...(usage.reasoningTokens === undefined ? {} : { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }),
    },
  };
}

/**
 * Anthropic's Messages stream (`POST /v1/messages`, `stream: true`), as Anthropic frames it: each
 * event of `anthropicEvents` as a named SSE event whose `type` repeats the name, ending with
 * `message_stop` (no `[DONE]`). Finish values: `end_turn`, `max_tokens`, `tool_use`, `refusal`
 * (`content_filter`), `pause_turn` (`other`). An error mid-stream is an `error` event,
 * `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`.
 */
export const anthropicWriter: ProviderWriter = {
  dialect: 'anthropic',
  contentType: 'text/event-stream; charset=utf-8',
  framing: 'sse',
  write(reply) {
    return anthropicEvents(reply, 'anthropic').map(({ type, payload, carries }) => ({
      event: type,
      data: JSON.stringify({ type, ...payload }),
      ...(carries === undefined ? {} : { carries }),
      ...(type === 'message_stop' ? { end: true as const } : {}),
    }));
  },
  error() {
    return [{ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) }];
  },
};
