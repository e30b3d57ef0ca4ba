import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireSum } from '../writing/readReply.js';
import { ProviderWriter, WireEvent, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'llamacpp-completion',
  choices: false,
  reasoning: false,
  calls: 'none',
  custom: false,
  signatures: 0,
  finishes: { stop: 'eos', length: 'limit', other: 'none' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/**
 * llama.cpp's native `/completion` stream (`stream: true`), as `llama-server` frames it: data-only
 * SSE, no `[DONE]`; a chunk per piece of text, `{index, content, tokens, stop: false, id_slot,
 * tokens_predicted, tokens_evaluated}` (the counts running, when the reply has usage), then the last
 * chunk, `stop: true` with `content: ""`, the `model`, `stop_type`, the final counts and the
 * server's other fields. Its `timings` are left out: the reply has none to give them.
 *
 * Cannot write: an id, several choices, reasoning, tool calls, signatures (the endpoint does no chat
 * parsing), a total that is not prompt plus completion, usage details. Finish values: `eos`
 * (`stop`), `limit` (`length`), `none` (`other`). An error mid-stream is
 * `{"error": {"code": 500, "message": ..., "type": "server_error"}}`.
 */
export const llamacppCompletionWriter: ProviderWriter = {
  dialect: 'llamacpp-completion',
  contentType: 'text/event-stream',
  framing: 'sse',
  write(reply) {
    if (reply.id !== undefined) throw new UnsupportedReplyError('llamacpp-completion', 'id', 'the format names no reply id');
    const choice = readChoices(reply, RULES)[0]!;
    const usage = reply.usage;
    if (usage !== undefined) {
      requireSum(usage, 'llamacpp-completion');
      refuseDetails(usage, 'llamacpp-completion', [
        'cachedPromptTokens',
        'cacheWritePromptTokens',
        'reasoningTokens',
        'audioPromptTokens',
        'audioCompletionTokens',
        'estimated',
      ]);
    }
    const pieces = textPieces(choice.text);
    const completion = usage?.completionTokens ?? 0;
    const events: WireEvent[] = pieces.map((text, k) => {
      // Running counts that never pass the final ones.
      const counts = usage === undefined ? {} : { tokens_predicted: Math.min(k + 1, completion), tokens_evaluated: usage.promptTokens };
      return {
        data: JSON.stringify({ index: 0, content: text, tokens: [], stop: false, id_slot: -1, ...counts }),
        carries: [{ kind: 'text', choice: 0, text }],
      };
    });
    const counts = usage === undefined ? {} : { tokens_predicted: usage.completionTokens, tokens_evaluated: usage.promptTokens };
    const last = {
      index: 0,
      content: '',
      tokens: [],
      id_slot: 0,
      stop: true,
      model: reply.model ?? 'test-model',
      ...counts,
      prompt: '',
      has_new_line: false,
      truncated: false,
      stop_type: choice.raw,
      stopping_word: '',
    };
    events.push({ data: JSON.stringify(last), carries: [{ kind: 'finish', choice: 0, reason: choice.finish }], end: true });
    return events;
  },
  error() {
    return [{ data: JSON.stringify({ error: { code: 500, message: 'the server failed to generate the reply', type: 'server_error' } }) }];
  },
};
