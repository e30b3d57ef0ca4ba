import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'ai-sdk-ui',
  choices: false,
  reasoning: true,
  calls: 'streamed',
  custom: true,
  signatures: 0,
  finishes: { stop: 'stop', length: 'length', tool_calls: 'tool-calls', content_filter: 'content-filter', error: 'error', other: 'other' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/**
 * The AI SDK's UI message stream, as `streamText(...).toUIMessageStreamResponse()` writes it
 * (headers `x-vercel-ai-ui-message-stream: v1`): data-only SSE, `{"type": "start", "messageId"}`,
 * `start-step`, the reasoning part (`reasoning-start`, `reasoning-delta`s, `reasoning-end`), the
 * text part (`text-start`, `text-delta`s a word at a time, `text-end`), per call `tool-input-start`
 * (with `inputEncoding: "text"` for a custom call), its `tool-input-delta` pieces and
 * `tool-input-available` with the input parsed, `finish-step`, `{"type": "finish", "finishReason"}`,
 * `data: [DONE]`.
 *
 * Cannot write: a model, usage (the format sends it only in `messageMetadata`, whose shape is each
 * application's), several choices, reasoning signatures, a function call with no argument text (the
 * library reads its input, `{}`, as the text). Finish values: `stop`, `length`,
 * `tool-calls`, `content-filter`, `error`, `other`. An error mid-stream is
 * `{"type": "error", "errorText"}`, then `finish-step`, a `finish` with `error`, `[DONE]`, as the SDK
 * ends a stream whose model failed.
 */
export const aiSdkUiWriter: ProviderWriter = {
  dialect: 'ai-sdk-ui',
  contentType: 'text/event-stream',
  headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
  framing: 'sse',
  write(reply) {
    for (const part of ['model', 'usage'] as const) {
      if (reply[part] !== undefined) throw new UnsupportedReplyError('ai-sdk-ui', part, 'the format carries none');
    }
    const choice = readChoices(reply, RULES)[0]!;
    for (const call of choice.calls) {
      // A call that streamed no text is given its input as text: `{}`, where the reply said "".
      if (!call.custom && call.text === '') {
        throw new UnsupportedReplyError(
          'ai-sdk-ui',
          `choices[0].toolCalls[${call.index}].arguments`,
          'a call without argument text is written {}: give {}',
        );
      }
    }
    const events: WireEvent[] = [];
    const push = (chunk: Record<string, unknown>, carries?: readonly Carried[]): void => {
      events.push(carries === undefined ? { data: JSON.stringify(chunk) } : { data: JSON.stringify(chunk), carries });
    };
    push({ type: 'start', messageId: reply.id ?? 'msg-test' });
    push({ type: 'start-step' });
    for (const [kind, text, id] of [
      ['reasoning', choice.reasoning, 'reasoning-0'],
      ['text', choice.text, 'text-0'],
    ] as const) {
      if (text === '') continue;
      push({ type: `${kind}-start`, id });
      for (const delta of textPieces(text)) push({ type: `${kind}-delta`, id, delta }, [{ kind, choice: 0, text: delta }]);
      push({ type: `${kind}-end`, id });
    }
    // The reader settles a step's calls at its end (a tool the server runs gives its output within
    // the step): each call, and its arguments, arrive with `finish-step`.
    const settled: Carried[] = [];
    for (const call of choice.calls) {
      const encoding = call.custom ? { inputEncoding: 'text' } : {};
      push({ type: 'tool-input-start', toolCallId: call.id, toolName: call.name, ...encoding });
      for (const inputTextDelta of argumentPieces(call.text)) push({ type: 'tool-input-delta', toolCallId: call.id, inputTextDelta });
      // Its input whole again, where a cut inside the arguments falls: nothing of the call has arrived yet.
      const input = call.custom ? call.text : inputOf(call.text);
      events.push({
        data: JSON.stringify({ type: 'tool-input-available', toolCallId: call.id, toolName: call.name, input }),
        wholeArguments: { key: 'input', text: JSON.stringify(input) },
      });
      settled.push({ kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name });
      settled.push({ kind: 'arguments', choice: 0, index: call.index, text: call.text, last: true });
    }
    push({ type: 'finish-step' }, settled.length > 0 ? settled : undefined);
    push({ type: 'finish', finishReason: choice.raw }, [{ kind: 'finish', choice: 0, reason: choice.finish }]);
    events.push({ data: '[DONE]', end: true });
    return events;
  },
  error() {
    return [
      { data: JSON.stringify({ type: 'error', errorText: 'the model failed while writing its reply' }) },
      { data: JSON.stringify({ type: 'finish-step' }) },
      { data: JSON.stringify({ type: 'finish', finishReason: 'error' }) },
      { data: '[DONE]', end: true },
    ];
  },
};

/** The input `tool-input-available` carries: the arguments parsed (`""` is `{}`), or their text when they do not parse. */
function inputOf(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
