import { FormatRules, readChoices } from '../writing/readReply.js';
import { chatUsage, chunkEnvelope, openaiErrorEvents } from './openaiChatWriter.js';
import { ProviderWriter, WireEvent, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'openai-completions',
  choices: true,
  reasoning: false,
  calls: 'none',
  custom: false,
  signatures: 0,
  finishes: { stop: 'stop', length: 'length', content_filter: 'content_filter' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/**
 * The legacy Completions stream (`POST /v1/completions`, `stream: true`: OpenAI's legacy endpoint,
 * llama.cpp's and vLLM's), which the `openai-chat` dialect reads: data-only SSE, every chunk
 * `{id, object: "text_completion", created, model, system_fingerprint, choices: [{text, index,
 * logprobs, finish_reason}]}`, the text a word at a time with no `delta`, the choices of `n > 1`
 * interleaved, the finish on a last chunk of `""` per choice, the usage chunk (`choices: []`) under
 * `include_usage`, `data: [DONE]`.
 *
 * Cannot write: reasoning, tool calls, reasoning signatures (the endpoint has none). Finish values:
 * `stop`, `length`, `content_filter`. An error mid-stream is OpenAI's `{"error": {...}}`, then `[DONE]`.
 */
export const openaiCompletionsWriter: ProviderWriter = {
  dialect: 'openai-chat',
  contentType: 'text/event-stream; charset=utf-8',
  framing: 'sse',
  write(reply) {
    const choices = readChoices(reply, RULES);
    const envelope = chunkEnvelope(reply, 'text_completion', 'cmpl-test');
    const chunk = (index: number, text: string, finish: string | null): string =>
      JSON.stringify({ ...envelope.head, choices: [{ text, index, logprobs: null, finish_reason: finish }], ...envelope.tail });
    const pieces = choices.map((choice) => textPieces(choice.text));
    const events: WireEvent[] = [];
    const longest = Math.max(...pieces.map((list) => list.length));
    for (let k = 0; k < longest; k++) {
      for (const choice of choices) {
        const text = pieces[choice.index]![k];
        if (text !== undefined)
          events.push({ data: chunk(choice.index, text, null), carries: [{ kind: 'text', choice: choice.index, text }] });
      }
    }
    // The finish chunks and the usage chunk end the reply with [DONE]: once they all came, a reply is whole
    // without [DONE] (servers that omit it), so a cut before the end drops them too.
    for (const choice of choices) {
      events.push({
        data: chunk(choice.index, '', choice.raw),
        carries: [{ kind: 'finish', choice: choice.index, reason: choice.finish }],
        end: true,
      });
    }
    if (reply.usage !== undefined) {
      events.push({
        end: true,
        data: JSON.stringify({ ...envelope.head, choices: [], usage: chatUsage(reply.usage, 'openai-completions') }),
      });
    }
    events.push({ data: '[DONE]', end: true });
    return events;
  },
  error: openaiErrorEvents,
};
