import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireSum } from '../writing/readReply.js';
import { ProviderWriter, WireEvent, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'ollama',
  choices: false,
  reasoning: true,
  calls: 'whole',
  custom: false,
  signatures: 0,
  finishes: { stop: 'stop', tool_calls: 'stop', length: 'length' },
  toolCallsByCalls: true,
  rawFinish: true,
};

/** The time of the first line; each later line is a little later, as a model writes them. */
const STARTED = Date.UTC(2026, 0, 1);

/**
 * Ollama's native chat stream (`POST /api/chat`), as Ollama frames it: NDJSON
 * (`application/x-ndjson`), one Go-marshalled object per line,
 * `{model, created_at, message: {role, content, thinking?, tool_calls?}, done: false}`: the thinking,
 * then the content, a word a line, then one line per call (`tool_calls: [{id, function: {index,
 * name, arguments}}]`, the arguments an object, the call whole), then the `done: true` line with
 * `done_reason` and, when the reply has usage, `prompt_eval_count` and `eval_count` beside the
 * durations. No `[DONE]`, no id.
 *
 * Cannot write: an id, several choices, custom calls, arguments that are not an object, reasoning
 * signatures, a total that is not prompt plus completion, usage details. Finish values: `stop`
 * (also after calls: Ollama has no tool-call reason), `length`. An error mid-stream is an
 * `{"error": "..."}` line.
 */
export const ollamaWriter: ProviderWriter = {
  dialect: 'ollama',
  contentType: 'application/x-ndjson',
  framing: 'ndjson',
  write(reply) {
    if (reply.id !== undefined) throw new UnsupportedReplyError('ollama', 'id', 'the format names no reply id');
    const choice = readChoices(reply, RULES)[0]!;
    const model = reply.model ?? 'test-model';
    const events: WireEvent[] = [];
    const line = (message: Record<string, unknown>, rest: Record<string, unknown> = { done: false }): string =>
      JSON.stringify({
        model,
        created_at: new Date(STARTED + 21 * events.length).toISOString(),
        message: { role: 'assistant', ...message },
        ...rest,
      });
    for (const text of textPieces(choice.reasoning)) {
      events.push({ data: line({ content: '', thinking: text }), carries: [{ kind: 'reasoning', choice: 0, text }] });
    }
    for (const text of textPieces(choice.text))
      events.push({ data: line({ content: text }), carries: [{ kind: 'text', choice: 0, text }] });
    for (const call of choice.calls) {
      const entry = { id: call.id, function: { index: call.index, name: call.name, arguments: call.object } };
      const text = JSON.stringify(call.object);
      events.push({
        data: line({ content: '', tool_calls: [entry] }),
        carries: [
          { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
          { kind: 'arguments', choice: 0, index: call.index, text, last: true },
        ],
        wholeArguments: { key: 'arguments', text },
      });
    }
    let counts: Record<string, number> = {};
    if (reply.usage !== undefined) {
      requireSum(reply.usage, 'ollama');
      refuseDetails(reply.usage, 'ollama', [
        'cachedPromptTokens',
        'cacheWritePromptTokens',
        'reasoningTokens',
        'audioPromptTokens',
        'audioCompletionTokens',
        'estimated',
      ]);
      counts = { prompt_eval_count: reply.usage.promptTokens!, prompt_eval_duration: 142389000, eval_count: reply.usage.completionTokens! };
    }
    const done = {
      done: true,
      done_reason: choice.raw,
      total_duration: 2183477125,
      load_duration: 31250875,
      ...counts,
      eval_duration: 1952103000,
    };
    events.push({ data: line({ content: '' }, done), carries: [{ kind: 'finish', choice: 0, reason: choice.finish }], end: true });
    return events;
  },
  error() {
    return [{ data: JSON.stringify({ error: 'an error was encountered while running the model: unexpected EOF' }) }];
  },
};
