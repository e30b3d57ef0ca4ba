import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices, refuseDetails, requireSum } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, padding, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'bedrock-converse',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: false,
  signatures: 1,
  finishes: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'content_filtered' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/**
 * Amazon Bedrock's `ConverseStream` reply, as Bedrock frames it: AWS event-stream messages
 * (`application/vnd.amazon.eventstream`, each CRC-32 checked), `:event-type` naming the event, the
 * JSON payload with Bedrock's `p` padding: `messageStart`; the reasoning block
 * (`contentBlockDelta`s with `reasoningContent.text`, then its `signature`) and the text block
 * (`delta.text` a word at a time), each closed by `contentBlockStop` (text blocks have no start);
 * per call a `contentBlockStart` with its `toolUse` id and name, `toolUse.input` pieces, a stop; then
 * `messageStop` with the `stopReason` and, when the reply has usage, `metadata` with it.
 *
 * Cannot write: an id or a model (the stream names neither), several choices, custom calls, more
 * than one signature, usage whose total is not prompt plus completion, reasoning tokens. Finish
 * values: `end_turn`, `max_tokens`, `tool_use`, `content_filtered`. An error mid-stream is an
 * `exception` message, `modelStreamErrorException`, which the library marks retryable.
 */
export const bedrockConverseWriter: ProviderWriter = {
  dialect: 'bedrock-converse',
  contentType: 'application/vnd.amazon.eventstream',
  framing: 'aws',
  write(reply) {
    for (const part of ['id', 'model'] as const) {
      if (reply[part] !== undefined) throw new UnsupportedReplyError('bedrock-converse', part, 'the stream names none');
    }
    const choice = readChoices(reply, RULES)[0]!;
    const events: WireEvent[] = [];
    const push = (event: string, payload: Record<string, unknown>, carries?: readonly Carried[]): void => {
      const data = JSON.stringify({ ...payload, p: padding(events.length) });
      events.push(carries === undefined ? { event, data } : { event, data, carries });
    };
    push('messageStart', { role: 'assistant' });
    let block = 0;
    if (choice.reasoning !== '' || choice.signatures.length > 0) {
      for (const text of textPieces(choice.reasoning)) {
        push('contentBlockDelta', { contentBlockIndex: block, delta: { reasoningContent: { text } } }, [
          { kind: 'reasoning', choice: 0, text },
        ]);
      }
      for (const signature of choice.signatures) {
        push('contentBlockDelta', { contentBlockIndex: block, delta: { reasoningContent: { signature } } }, [{ kind: 'named', choice: 0 }]);
      }
      push('contentBlockStop', { contentBlockIndex: block++ });
    }
    if (choice.text !== '') {
      for (const text of textPieces(choice.text)) {
        push('contentBlockDelta', { contentBlockIndex: block, delta: { text } }, [{ kind: 'text', choice: 0, text }]);
      }
      push('contentBlockStop', { contentBlockIndex: block++ });
    }
    for (const call of choice.calls) {
      push('contentBlockStart', { contentBlockIndex: block, start: { toolUse: { toolUseId: call.id, name: call.name } } }, [
        { kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name },
      ]);
      const pieces = argumentPieces(call.text);
      pieces.forEach((input, k) => {
        push('contentBlockDelta', { contentBlockIndex: block, delta: { toolUse: { input } } }, [
          { kind: 'arguments', choice: 0, index: call.index, text: input, last: k === pieces.length - 1 },
        ]);
      });
      push('contentBlockStop', { contentBlockIndex: block++ });
    }
    push('messageStop', { stopReason: choice.raw }, [{ kind: 'finish', choice: 0, reason: choice.finish }]);
    events[events.length - 1] = { ...events[events.length - 1]!, end: true };
    const usage = reply.usage;
    if (usage !== undefined) {
      requireSum(usage, 'bedrock-converse');
      refuseDetails(usage, 'bedrock-converse', ['reasoningTokens', 'audioPromptTokens', 'audioCompletionTokens', 'estimated']);
      const cacheRead = usage.cachedPromptTokens ?? 0;
      const cacheWrite = usage.cacheWritePromptTokens ?? 0;
      const inputTokens = usage.promptTokens! - cacheRead - cacheWrite;
      if (inputTokens < 0)
        throw new UnsupportedReplyError('bedrock-converse', 'usage.cachedPromptTokens', 'the cached parts are more than the prompt');
      const counts = {
        inputTokens,
        outputTokens: usage.completionTokens,
        totalTokens: usage.totalTokens,
        ...(usage.cachedPromptTokens === undefined ? {} : { cacheReadInputTokens: cacheRead }),
        ...(usage.cacheWritePromptTokens === undefined ? {} : { cacheWriteInputTokens: cacheWrite }),
      };
      push('metadata', { usage: counts, metrics: { latencyMs: 812 } });
      events[events.length - 1] = { ...events[events.length - 1]!, end: true };
    }
    return events;
  },
  error() {
    return [
      { exception: 'modelStreamErrorException', data: JSON.stringify({ message: 'The model stream failed. Try your request again.' }) },
    ];
  },
};
