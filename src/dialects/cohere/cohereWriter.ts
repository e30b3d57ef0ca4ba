import type { Usage } from '../../types/replyParts.js';
import { COHERE_FINISH_REASONS } from './cohere.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireSum } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'cohere',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: false,
  signatures: 0,
  finishes: { stop: 'COMPLETE', length: 'MAX_TOKENS', tool_calls: 'TOOL_CALL', error: 'ERROR' },
  toolCallsByCalls: false,
  rawFinish: true,
  finishReasons: COHERE_FINISH_REASONS,
};

/**
 * Cohere's v2 chat stream (`POST /v2/chat`, `stream: true`), as Cohere frames it: each event a named
 * SSE event whose payload's `type` repeats the name. `message-start` (the id; the stream names no
 * model), the reasoning, a `text` content block with `content-delta`s a word at a time, per call
 * `tool-call-start` (id, name, `arguments: ""`), its `tool-call-delta` pieces and `tool-call-end`,
 * then `message-end` with the `finish_reason` and the usage; no `[DONE]`. The reasoning is what
 * Cohere's models write: the tool plan (`tool-plan-delta`s) when the reply makes calls, as Command A
 * plans before its calls, else a `thinking` content block, as Command A Reasoning thinks. Finish
 * values: `COMPLETE`, `MAX_TOKENS`, `TOOL_CALL`, `ERROR`. Usage: `tokens` (`input_tokens`,
 * `output_tokens`), `cached_tokens` when the reply has `cachedPromptTokens`, and `billed_units` (the
 * input less the cached tokens).
 *
 * Cannot write: a model, several choices, custom calls, signatures, the finishes `content_filter`
 * and `other` (Cohere has none); usage whose total is not prompt plus completion, whose cached part
 * exceeds the prompt, or with cache-write or reasoning counts (Cohere reports neither). An error
 * mid-stream is a `message-end` whose `delta.error` says why, with `finish_reason` `ERROR`.
 *
 * @example
 * ```ts
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * const stream = providerStream({ choices: [{ text: 'Hello' }] }, 'cohere');
 * stream.dialect; // 'cohere'
 * ```
 */
export const cohereWriter: ProviderWriter = {
  dialect: 'cohere',
  contentType: 'text/event-stream',
  framing: 'sse',
  write(reply) {
    if (reply.model !== undefined) throw new UnsupportedReplyError('cohere', 'model', 'the stream names no model');
    const choice = readChoices(reply, RULES)[0]!;
    const usage = reply.usage === undefined ? undefined : cohereUsage(reply.usage);
    const events: WireEvent[] = [];
    const push = (type: string, payload: Record<string, unknown>, carries?: readonly Carried[]): void => {
      events.push({ event: type, data: JSON.stringify({ type, ...payload }), ...(carries === undefined ? {} : { carries }) });
    };
    events.push({
      event: 'message-start',
      // Cohere writes the id before the type in this one event.
      data: JSON.stringify({
        id: reply.id ?? 'cohere-test',
        type: 'message-start',
        delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
      }),
    });
    let block = 0;
    const contentBlock = (kind: 'text' | 'thinking', text: string): void => {
      push('content-start', { index: block, delta: { message: { content: { type: kind, [kind]: '' } } } });
      for (const piece of textPieces(text)) {
        push('content-delta', { index: block, delta: { message: { content: { [kind]: piece } } } }, [
          { kind: kind === 'text' ? 'text' : 'reasoning', choice: 0, text: piece },
        ]);
      }
      push('content-end', { index: block });
      block++;
    };
    if (choice.reasoning !== '' && choice.calls.length > 0) {
      for (const piece of textPieces(choice.reasoning)) {
        push('tool-plan-delta', { delta: { message: { tool_plan: piece } } }, [{ kind: 'reasoning', choice: 0, text: piece }]);
      }
    } else if (choice.reasoning !== '') {
      contentBlock('thinking', choice.reasoning);
    }
    if (choice.text !== '') contentBlock('text', choice.text);
    for (const call of choice.calls) {
      const toolCall = { id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      push('tool-call-start', { index: call.index, delta: { message: { tool_calls: toolCall } } }, [
        { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
      ]);
      const pieces = argumentPieces(call.text);
      pieces.forEach((text, k) => {
        push('tool-call-delta', { index: call.index, delta: { message: { tool_calls: { function: { arguments: text } } } } }, [
          { kind: 'arguments', choice: 0, index: call.index, text, last: k === pieces.length - 1 },
        ]);
      });
      push('tool-call-end', { index: call.index });
    }
    events.push({
      event: 'message-end',
      data: JSON.stringify({ type: 'message-end', delta: { finish_reason: choice.raw, ...(usage === undefined ? {} : { usage }) } }),
      carries: [{ kind: 'finish', choice: 0, reason: choice.finish }],
      end: true,
    });
    return events;
  },
  error() {
    const delta = { error: 'an internal error occurred while generating the reply', finish_reason: 'ERROR' };
    return [{ event: 'message-end', data: JSON.stringify({ type: 'message-end', delta }) }];
  },
};

/** Usage as Cohere reports it at `message-end`: the model's `tokens`, the cache hits, the billed units. */
function cohereUsage(usage: Usage): Record<string, unknown> {
  requireSum(usage, 'cohere');
  refuseDetails(usage, 'cohere', ['cacheWritePromptTokens', 'reasoningTokens', 'audioPromptTokens', 'audioCompletionTokens', 'estimated']);
  const cached = usage.cachedPromptTokens ?? 0;
  const billed = usage.promptTokens! - cached;
  if (billed < 0)
    throw new UnsupportedReplyError('cohere', 'usage.cachedPromptTokens', 'the cached part of the prompt is more than the prompt');
  return {
    billed_units: { input_tokens: billed, output_tokens: usage.completionTokens! },
    tokens: { input_tokens: usage.promptTokens!, output_tokens: usage.completionTokens! },
    ...(usage.cachedPromptTokens === undefined ? {} : { cached_tokens: cached }),
  };
}
