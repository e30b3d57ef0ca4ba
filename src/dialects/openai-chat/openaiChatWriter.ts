import type { Usage } from '../../types/replyParts.js';
import type { TestReply } from '../writing/TestReply.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, WrittenChoice, readChoices, refuseDetails } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'openai-chat',
  choices: true,
  reasoning: true,
  calls: 'streamed',
  custom: true,
  signatures: 0,
  finishes: { stop: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter', error: 'error' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/** The `created` time of every chunk: one reply, one time. */
export const CREATED = 1767225600;

/** One delta of a choice and what it carries. */
interface Delta {
  readonly delta: Record<string, unknown>;
  readonly carries: readonly Carried[];
}

/**
 * OpenAI's Chat Completions stream (`stream: true`, and `stream_options.include_usage` when the
 * reply has usage), as OpenAI and its compatible servers frame it: data-only SSE, every chunk
 * `{id, object: "chat.completion.chunk", created, model, system_fingerprint, choices: [{index,
 * delta, logprobs, finish_reason}]}` (with `"usage": null` under `include_usage`); per choice a role
 * chunk (`{"role": "assistant", "content": "", "refusal": null}`), the reasoning as
 * `reasoning_content` deltas (DeepSeek's and llama.cpp's field: OpenAI streams none), the content a
 * word at a time, each call's first fragment with its `index`, `id`, `type` and name and `""`
 * arguments, then its arguments a few characters at a time (`custom.input` for a custom call); the
 * choices interleaved chunk by chunk, as OpenAI sends `n > 1`; a finish chunk (`delta: {}`) per
 * choice; the usage chunk (`choices: []`); `data: [DONE]`.
 *
 * Cannot write: reasoning signatures; a whole custom call as the last call of a choice that finishes
 * with `length` (nothing on this wire ends a call, so the library keeps it apart as cut). Finish values: `stop`, `length`, `tool_calls`,
 * `content_filter`, `error` (OpenRouter's); `other` only as a `rawFinishReason`. An error mid-stream
 * is `{"error": {message, type: "server_error", param, code}}`, then `[DONE]`.
 */
export const openaiChatWriter: ProviderWriter = {
  dialect: 'openai-chat',
  contentType: 'text/event-stream; charset=utf-8',
  framing: 'sse',
  write(reply) {
    const choices = readChoices(reply, RULES);
    for (const choice of choices) {
      // No event ends a call here: at a `length` finish, the library keeps a last custom call apart as cut.
      if (choice.finish === 'length' && choice.calls[choice.calls.length - 1]?.custom === true) {
        throw new UnsupportedReplyError(
          'openai-chat',
          `choices[${choice.index}].toolCalls`,
          'a custom call last in a choice cut by length is read as cut',
        );
      }
    }
    const envelope = chunkEnvelope(reply);
    const chunk = (index: number, delta: unknown, finish: string | null): string =>
      JSON.stringify({ ...envelope.head, choices: [{ index, delta, logprobs: null, finish_reason: finish }], ...envelope.tail });
    const events: WireEvent[] = [];
    const deltas = choices.map(choiceDeltas);
    // OpenAI interleaves the choices of `n > 1` chunk by chunk.
    const longest = Math.max(...deltas.map((list) => list.length));
    for (let k = 0; k < longest; k++) {
      for (const choice of choices) {
        const delta = deltas[choice.index]![k];
        if (delta !== undefined) events.push({ data: chunk(choice.index, delta.delta, null), carries: delta.carries });
      }
    }
    // The finish chunks and the usage chunk end the reply with [DONE]: once they all came, a reply is whole
    // without [DONE] (servers that omit it), so a cut before the end drops them too.
    for (const choice of choices) {
      events.push({
        data: chunk(choice.index, {}, choice.raw),
        carries: [{ kind: 'finish', choice: choice.index, reason: choice.finish }],
        end: true,
      });
    }
    if (reply.usage !== undefined) {
      events.push({ end: true, data: JSON.stringify({ ...envelope.head, choices: [], usage: chatUsage(reply.usage, 'openai-chat') }) });
    }
    events.push({ data: '[DONE]', end: true });
    return events;
  },
  error: openaiErrorEvents,
};

/** OpenAI's error mid-stream, as its servers send one on both endpoints: an `error` payload, then `[DONE]`. */
export function openaiErrorEvents(): readonly WireEvent[] {
  const error = {
    message: 'The server had an error processing your request. Sorry about that!',
    type: 'server_error',
    param: null,
    code: null,
  };
  return [{ data: JSON.stringify({ error }) }, { data: '[DONE]', end: true }];
}

/** The fields every chunk repeats: before the choices, and after them (`usage: null` under `include_usage`). */
export function chunkEnvelope(reply: TestReply, object = 'chat.completion.chunk', id = 'chatcmpl-test') {
  return {
    head: { id: reply.id ?? id, object, created: CREATED, model: reply.model ?? 'test-model', system_fingerprint: 'fp_test' },
    tail: reply.usage === undefined ? {} : { usage: null },
  };
}

/** The deltas of one choice, in the order OpenAI sends them: role, reasoning, content, calls. */
function choiceDeltas(choice: WrittenChoice): Delta[] {
  const c = choice.index;
  const deltas: Delta[] = [{ delta: { role: 'assistant', content: '', refusal: null }, carries: [] }];
  for (const text of textPieces(choice.reasoning))
    deltas.push({ delta: { reasoning_content: text }, carries: [{ kind: 'reasoning', choice: c, text }] });
  for (const text of textPieces(choice.text)) deltas.push({ delta: { content: text }, carries: [{ kind: 'text', choice: c, text }] });
  for (const call of choice.calls) {
    const field = call.custom ? 'custom' : 'function';
    const textField = call.custom ? 'input' : 'arguments';
    const first = {
      index: call.index,
      id: call.id,
      type: call.custom ? 'custom' : 'function',
      [field]: { name: call.name, [textField]: '' },
    };
    deltas.push({
      delta: { tool_calls: [first] },
      carries: [{ kind: 'call', choice: c, index: call.index, id: call.id, name: call.name }],
    });
    const pieces = argumentPieces(call.text);
    pieces.forEach((text, k) => {
      deltas.push({
        delta: { tool_calls: [{ index: call.index, [field]: { [textField]: text } }] },
        carries: [{ kind: 'arguments', choice: c, index: call.index, text, last: k === pieces.length - 1 }],
      });
    });
  }
  return deltas;
}

/** A usage object of OpenAI's shape: the counts given, and the details only when given. */
export function chatUsage(usage: Usage, format: string): Record<string, unknown> {
  refuseDetails(usage, format, ['estimated']);
  const out: Record<string, unknown> = {};
  if (usage.promptTokens !== null) out['prompt_tokens'] = usage.promptTokens;
  if (usage.completionTokens !== null) out['completion_tokens'] = usage.completionTokens;
  if (usage.totalTokens !== null) out['total_tokens'] = usage.totalTokens;
  const prompt: Record<string, number> = {};
  if (usage.cachedPromptTokens !== undefined) prompt['cached_tokens'] = usage.cachedPromptTokens;
  if (usage.cacheWritePromptTokens !== undefined) prompt['cache_write_tokens'] = usage.cacheWritePromptTokens;
  if (usage.audioPromptTokens !== undefined) prompt['audio_tokens'] = usage.audioPromptTokens;
  if (Object.keys(prompt).length > 0) out['prompt_tokens_details'] = prompt;
  const completion: Record<string, number> = {};
  if (usage.reasoningTokens !== undefined) completion['reasoning_tokens'] = usage.reasoningTokens;
  if (usage.audioCompletionTokens !== undefined) completion['audio_tokens'] = usage.audioCompletionTokens;
  if (Object.keys(completion).length > 0) out['completion_tokens_details'] = completion;
  if (Object.keys(out).length === 0) throw new UnsupportedReplyError(format, 'usage', 'a usage with no count at all is none: leave it out');
  return out;
}
