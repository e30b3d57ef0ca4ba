import type { Usage } from '../../types/replyParts.js';
import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, WrittenChoice, readChoices, refuseDetails, requireCounts } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'gemini',
  choices: true,
  reasoning: true,
  calls: 'whole',
  custom: false,
  signatures: Infinity,
  finishes: {
    stop: 'STOP',
    tool_calls: 'STOP',
    length: 'MAX_TOKENS',
    content_filter: 'SAFETY',
    error: 'MALFORMED_FUNCTION_CALL',
    other: 'OTHER',
  },
  toolCallsByCalls: true,
  rawFinish: true,
};

/** One part of a candidate, and what it carries. */
interface Part {
  readonly part: Record<string, unknown>;
  readonly carries: readonly Carried[];
  readonly wholeArguments?: { readonly key: string; readonly text: string };
}

/**
 * Gemini's native stream (`models/{model}:streamGenerateContent?alt=sse`), as Google frames it:
 * data-only SSE with CRLF line ends, no `[DONE]`, each event a whole `GenerateContentResponse`
 * (`candidates`, `usageMetadata`, `modelVersion`, `responseId`): per candidate the reasoning as
 * `thought: true` text parts and the text a word at a time, each call a whole `functionCall` part
 * (`args` an object; the first reasoning signature as its `thoughtSignature`, the others on empty
 * text parts, as Gemini sends them), the candidates of `candidateCount > 1` interleaved; the last
 * chunk has every candidate's `finishReason` (with an empty text part) and the final
 * `usageMetadata`, the earlier ones the prompt count only.
 *
 * Cannot write: custom calls, arguments that are not a JSON object, `cacheWritePromptTokens`,
 * reasoning tokens above the completion (Gemini counts them apart: `candidatesTokenCount` is the
 * completion less the thoughts). Finish values: `STOP` (also after calls: Gemini has no tool-call
 * reason, so `tool_calls` needs calls), `MAX_TOKENS`, `SAFETY`, `MALFORMED_FUNCTION_CALL`
 * (`error`), `OTHER`. Calls carry no id unless the reply gives one (then `functionCall.id`); the
 * library names the others `<responseId>-call-<n>`. An error mid-stream is
 * `{"error": {"code": 503, "message": ..., "status": "UNAVAILABLE"}}`.
 */
export const geminiWriter: ProviderWriter = {
  dialect: 'gemini',
  contentType: 'text/event-stream',
  framing: 'sse-crlf',
  write(reply) {
    const choices = readChoices(reply, RULES);
    const usage = reply.usage === undefined ? undefined : usageMetadata(reply.usage);
    const tail = { modelVersion: reply.model ?? 'test-model', responseId: reply.id ?? 'test-response' };
    const running = usage?.['promptTokenCount'] === undefined ? {} : { usageMetadata: { promptTokenCount: usage['promptTokenCount'] } };
    const chunk = (candidates: unknown[], usageFields: object): string => JSON.stringify({ candidates, ...usageFields, ...tail });
    const parts = choices.map((choice) => candidateParts(choice, tail.responseId));
    const events: WireEvent[] = [];
    const longest = Math.max(...parts.map((list) => list.length));
    for (let k = 0; k < longest; k++) {
      for (const choice of choices) {
        const part = parts[choice.index]![k];
        if (part === undefined) continue;
        const candidate = { content: { parts: [part.part], role: 'model' }, index: choice.index };
        events.push({
          data: chunk([candidate], running),
          carries: part.carries,
          ...(part.wholeArguments === undefined ? {} : { wholeArguments: part.wholeArguments }),
        });
      }
    }
    const finished = choices.map((choice) => ({
      content: { parts: [{ text: '' }], role: 'model' },
      finishReason: choice.raw,
      index: choice.index,
    }));
    events.push({
      data: chunk(finished, usage === undefined ? {} : { usageMetadata: usage }),
      carries: choices.map((choice): Carried => ({ kind: 'finish', choice: choice.index, reason: choice.finish })),
      end: true,
    });
    return events;
  },
  error() {
    return [
      {
        data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }),
      },
    ];
  },
};

/** The parts of one candidate, in the order Gemini sends them: thoughts, text, calls, signatures. */
function candidateParts(choice: WrittenChoice, responseId: string): Part[] {
  const c = choice.index;
  const parts: Part[] = [];
  for (const text of textPieces(choice.reasoning))
    parts.push({ part: { text, thought: true }, carries: [{ kind: 'reasoning', choice: c, text }] });
  for (const text of textPieces(choice.text)) parts.push({ part: { text }, carries: [{ kind: 'text', choice: c, text }] });
  const [first, ...others] = choice.signatures;
  choice.calls.forEach((call, k) => {
    const args = call.object!;
    const functionCall = { ...(call.idGiven ? { id: call.id } : {}), name: call.name, args };
    const signature = k === 0 && first !== undefined ? { thoughtSignature: first } : {};
    // The library names a call the wire left without an id after the response and the call's position.
    const id = call.idGiven ? call.id : c === 0 ? `${responseId}-call-${call.index}` : `${responseId}-choice-${c}-call-${call.index}`;
    const text = JSON.stringify(args);
    parts.push({
      part: { functionCall, ...signature },
      carries: [
        { kind: 'call', choice: c, index: call.index, id, name: call.name },
        { kind: 'arguments', choice: c, index: call.index, text, last: true },
      ],
      wholeArguments: { key: 'args', text },
    });
  });
  const loose = choice.calls.length === 0 ? choice.signatures : others;
  for (const signature of loose) parts.push({ part: { text: '', thoughtSignature: signature }, carries: [{ kind: 'named', choice: c }] });
  return parts;
}

/** The final `usageMetadata`: the thoughts counted apart from the candidates, as Gemini counts them. */
function usageMetadata(usage: Usage): Record<string, number> {
  refuseDetails(usage, 'gemini', ['cacheWritePromptTokens', 'estimated']);
  requireCounts(usage, 'gemini', ['completionTokens']);
  const thoughts = usage.reasoningTokens ?? 0;
  const candidates = usage.completionTokens! - thoughts;
  if (candidates < 0)
    throw new UnsupportedReplyError('gemini', 'usage.reasoningTokens', 'the thoughts are part of the completion: they cannot be more');
  return {
    ...(usage.promptTokens === null ? {} : { promptTokenCount: usage.promptTokens }),
    candidatesTokenCount: candidates,
    ...(usage.totalTokens === null ? {} : { totalTokenCount: usage.totalTokens }),
    ...(usage.cachedPromptTokens === undefined ? {} : { cachedContentTokenCount: usage.cachedPromptTokens }),
    ...(usage.reasoningTokens === undefined ? {} : { thoughtsTokenCount: usage.reasoningTokens }),
  };
}
