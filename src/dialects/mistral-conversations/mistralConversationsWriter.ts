import type { Usage } from '../../types/replyParts.js';
import { MISTRAL_CONVERSATIONS_DONE, MISTRAL_CONVERSATIONS_FINISH_REASONS } from './mistralConversations.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireCounts } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'mistral-conversations',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: false,
  signatures: 0,
  finishes: { stop: MISTRAL_CONVERSATIONS_DONE, tool_calls: MISTRAL_CONVERSATIONS_DONE },
  toolCallsByCalls: true,
  rawFinish: false,
  finishReasons: MISTRAL_CONVERSATIONS_FINISH_REASONS,
};

/** The time every event of the kit's streams says it was made: 2026-01-01. */
const CREATED_AT = '2026-01-01T00:00:00.000000Z';

/**
 * Mistral's Conversations stream (`POST /v1/conversations`, `stream: true`), as Mistral frames it:
 * each event a named SSE event whose payload's `type` repeats the name, every payload with its
 * `created_at`. `conversation.response.started` (the conversation id), the reasoning as a message's
 * `thinking` chunks and the text as its string content (`message.output.delta`, a word at a time,
 * output 0), per call `function.call.delta`s repeating its `tool_call_id` and `name` with the
 * argument pieces (each call an output of its own), then `conversation.response.done` with the usage
 * (`prompt_tokens`, `completion_tokens`, `total_tokens`; none when the reply has no usage); no `[DONE]`.
 *
 * Cannot write: a model (the kit's events name none), several choices, custom calls, signatures, a
 * raw finish value or the finishes `length`, `content_filter`, `error` and `other` (the stream says no
 * finish reason); usage without all three counts, or with details Mistral does not report. An error
 * mid-stream is a `conversation.response.error` with its `message` and `code`.
 *
 * @example
 * ```ts
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * const stream = providerStream({ choices: [{ text: 'Hello' }] }, 'mistral-conversations');
 * stream.dialect; // 'mistral-conversations'
 * ```
 */
export const mistralConversationsWriter: ProviderWriter = {
  dialect: 'mistral-conversations',
  contentType: 'text/event-stream',
  framing: 'sse',
  write(reply) {
    if (reply.model !== undefined) throw new UnsupportedReplyError('mistral-conversations', 'model', "the kit's events name no model");
    const choice = readChoices(reply, RULES)[0]!;
    const usage = reply.usage === undefined ? undefined : mistralUsage(reply.usage);
    const events: WireEvent[] = [];
    const push = (type: string, payload: Record<string, unknown>, carries?: readonly Carried[]): void => {
      events.push({
        event: type,
        data: JSON.stringify({ type, created_at: CREATED_AT, ...payload }),
        ...(carries === undefined ? {} : { carries }),
      });
    };
    push('conversation.response.started', { conversation_id: reply.id ?? 'conv_test' });
    let output = 0;
    const message = { output_index: output, id: 'msg_test', role: 'assistant' };
    for (const piece of textPieces(choice.reasoning)) {
      push(
        'message.output.delta',
        { ...message, content_index: 0, content: { type: 'thinking', thinking: [{ type: 'text', text: piece }] } },
        [{ kind: 'reasoning', choice: 0, text: piece }],
      );
    }
    for (const piece of textPieces(choice.text)) {
      push('message.output.delta', { ...message, content_index: choice.reasoning === '' ? 0 : 1, content: piece }, [
        { kind: 'text', choice: 0, text: piece },
      ]);
    }
    if (choice.reasoning !== '' || choice.text !== '') output++;
    for (const call of choice.calls) {
      const fragment = { output_index: output, id: `fc_${call.index}`, name: call.name, tool_call_id: call.id };
      const pieces = argumentPieces(call.text);
      // A call with no argument text still has its one event: it names the call.
      if (pieces.length === 0) pieces.push('');
      pieces.forEach((text, k) => {
        const carries: Carried[] = [{ kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 }];
        if (k === 0) carries.unshift({ kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name });
        push('function.call.delta', { ...fragment, arguments: text }, carries);
      });
      output++;
    }
    events.push({
      event: MISTRAL_CONVERSATIONS_DONE,
      data: JSON.stringify({ type: MISTRAL_CONVERSATIONS_DONE, created_at: CREATED_AT, ...(usage === undefined ? {} : { usage }) }),
      carries: [{ kind: 'finish', choice: 0, reason: choice.finish }],
      end: true,
    });
    return events;
  },
  error() {
    const payload = {
      type: 'conversation.response.error',
      created_at: CREATED_AT,
      message: 'Service unavailable, please retry',
      code: 3000,
    };
    return [{ event: 'conversation.response.error', data: JSON.stringify(payload) }];
  },
};

/** Usage as Mistral reports it at `conversation.response.done`: the three counts, as given. */
function mistralUsage(usage: Usage): Record<string, unknown> {
  requireCounts(usage, 'mistral-conversations', ['promptTokens', 'completionTokens', 'totalTokens']);
  refuseDetails(usage, 'mistral-conversations', [
    'cachedPromptTokens',
    'cacheWritePromptTokens',
    'reasoningTokens',
    'audioPromptTokens',
    'audioCompletionTokens',
    'estimated',
  ]);
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens };
}
