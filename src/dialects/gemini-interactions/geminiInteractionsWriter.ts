import type { Usage } from '../../types/replyParts.js';
import { GEMINI_INTERACTIONS_FINISH_REASONS } from './geminiInteractions.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireCounts } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'gemini-interactions',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: false,
  signatures: 1,
  finishes: { stop: 'completed', tool_calls: 'requires_action', length: 'incomplete', error: 'failed', other: 'cancelled' },
  toolCallsByCalls: false,
  rawFinish: true,
  finishReasons: GEMINI_INTERACTIONS_FINISH_REASONS,
};

/** The model the kit's interactions name when the reply names none. */
const DEFAULT_MODEL = 'gemini-3-flash-preview';

/**
 * Gemini's Interactions API stream (`POST /v1beta/interactions`, `stream: true`), as Google frames it:
 * each event a named SSE event whose payload's `event_type` repeats the name, with an `event_id`.
 * `interaction.created` (the id, the model, `in_progress`), a `thought` step (its summary in
 * `thought_summary` deltas, a word at a time, then its signature as a `thought_signature` delta), a
 * `model_output` step (`text` deltas), per call a `function_call` step (its id and name at the start,
 * `arguments: {}`, then `arguments_delta` pieces), each closed by `step.stop`, then
 * `interaction.completed` with the status and the usage, and `event: done` with `[DONE]`. Status:
 * `completed`, `requires_action` after calls, `incomplete`, `failed`, `cancelled`. Usage:
 * `total_input_tokens`, `total_output_tokens` (the completion less its reasoning), `total_thought_tokens`
 * and `total_cached_tokens` when given, `total_tokens`.
 *
 * Cannot write: several choices, custom calls, more than one signature, the finish `content_filter`;
 * usage without all three counts, or with cache-write or audio counts, or reasoning tokens that
 * exceed the completion. An error mid-stream is an `error` event with its `code` and `message`.
 *
 * @example
 * ```ts
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * const stream = providerStream({ choices: [{ text: 'Hello' }] }, 'gemini-interactions');
 * stream.dialect; // 'gemini-interactions'
 * ```
 */
export const geminiInteractionsWriter: ProviderWriter = {
  dialect: 'gemini-interactions',
  contentType: 'text/event-stream',
  framing: 'sse',
  write(reply) {
    const choice = readChoices(reply, RULES)[0]!;
    const usage = reply.usage === undefined ? undefined : interactionUsage(reply.usage);
    const id = reply.id ?? 'v1_test';
    const interaction = { id, status: 'in_progress', object: 'interaction', model: reply.model ?? DEFAULT_MODEL };
    const events: WireEvent[] = [];
    const push = (type: string, payload: Record<string, unknown>, carries?: readonly Carried[]): void => {
      const data = JSON.stringify({ ...payload, event_type: type, event_id: `evt_${events.length}` });
      events.push({ event: type, data, ...(carries === undefined ? {} : { carries }) });
    };
    push('interaction.created', { interaction });
    let index = 0;
    if (choice.reasoning !== '' || choice.signatures.length > 0) {
      push('step.start', { index, step: { type: 'thought' } });
      for (const text of textPieces(choice.reasoning)) {
        push('step.delta', { index, delta: { type: 'thought_summary', content: { type: 'text', text } } }, [
          { kind: 'reasoning', choice: 0, text },
        ]);
      }
      for (const signature of choice.signatures) {
        push('step.delta', { index, delta: { type: 'thought_signature', signature } }, [{ kind: 'named', choice: 0 }]);
      }
      push('step.stop', { index });
      index++;
    }
    if (choice.text !== '') {
      push('step.start', { index, step: { type: 'model_output' } });
      for (const text of textPieces(choice.text))
        push('step.delta', { index, delta: { type: 'text', text } }, [{ kind: 'text', choice: 0, text }]);
      push('step.stop', { index });
      index++;
    }
    for (const call of choice.calls) {
      push('step.start', { index, step: { type: 'function_call', id: call.id, name: call.name, arguments: {} } }, [
        { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
      ]);
      const pieces = argumentPieces(call.text);
      pieces.forEach((text, k) => {
        push('step.delta', { index, delta: { type: 'arguments_delta', arguments: text } }, [
          { kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 },
        ]);
      });
      push('step.stop', { index });
      index++;
    }
    const completed = { ...interaction, status: choice.raw, ...(usage === undefined ? {} : { usage }) };
    push('interaction.completed', { interaction: completed }, [{ kind: 'finish', choice: 0, reason: choice.finish }]);
    events[events.length - 1] = { ...events[events.length - 1]!, end: true };
    events.push({ event: 'done', data: '[DONE]', end: true });
    return events;
  },
  error(before) {
    const error = { code: 'internal', message: 'An internal error has occurred. Please retry.' };
    return [{ event: 'error', data: JSON.stringify({ error, event_type: 'error', event_id: `evt_${before}` }) }];
  },
};

/** Usage as an interaction reports it: the prompt, the output less its thoughts, the thoughts, the cache, the total. */
function interactionUsage(usage: Usage): Record<string, unknown> {
  requireCounts(usage, 'gemini-interactions', ['promptTokens', 'completionTokens', 'totalTokens']);
  refuseDetails(usage, 'gemini-interactions', ['cacheWritePromptTokens', 'audioPromptTokens', 'audioCompletionTokens', 'estimated']);
  const thought = usage.reasoningTokens;
  const output = usage.completionTokens! - (thought ?? 0);
  if (output < 0)
    throw new UnsupportedReplyError('gemini-interactions', 'usage.reasoningTokens', 'the reasoning is a part of the completion');
  return {
    total_input_tokens: usage.promptTokens,
    total_output_tokens: output,
    ...(thought === undefined ? {} : { total_thought_tokens: thought }),
    ...(usage.cachedPromptTokens === undefined ? {} : { total_cached_tokens: usage.cachedPromptTokens }),
    total_tokens: usage.totalTokens,
  };
}
