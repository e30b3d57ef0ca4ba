import { FormatRules, WrittenChoice, readChoices } from '../writing/readReply.js';
import { Carried, ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'chat-events',
  choices: true,
  reasoning: true,
  calls: 'streamed',
  custom: true,
  signatures: Infinity,
  finishes: { stop: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter', error: 'error', other: 'other' },
  toolCallsByCalls: false,
  rawFinish: true,
};

/** One of this library's events as a server relays it, and what it carries. */
interface Relayed {
  readonly event: Record<string, unknown> & { readonly type: string };
  readonly carries?: readonly Carried[];
}

/**
 * This library's own events on the wire, as a NestJS `@Sse()` endpoint that returns
 * `assembleChunks()` then `toMessageEvents()` sends them: one SSE event per `ChatEvent`, `event:` its
 * type, `id:` a running number, `data:` the event as JSON: `start`, per choice its `reasoning`,
 * `reasoning-signature`, `content` (a word at a time), per call a `tool-call-delta` with its id and
 * name, its argument pieces, its `tool-call-end`, the choices interleaved; a `finish` per choice, the
 * `usage`, then `done`.
 *
 * Writes every part of a reply. Finish: the normalized reason, and as the raw value the
 * `rawFinishReason` given, else the reason itself. An error mid-stream is the `error` event the
 * server ends with (`StreamErrorData` of a `ProviderError`), which the client rebuilds as the same
 * class.
 */
export const chatEventsWriter: ProviderWriter = {
  dialect: 'chat-events',
  contentType: 'text/event-stream',
  framing: 'sse',
  write(reply) {
    const choices = readChoices(reply, RULES);
    const relayed: Relayed[] = [{ event: { type: 'start', id: reply.id ?? 'chatcmpl-test', model: reply.model ?? 'test-model' } }];
    const lists = choices.map(choiceEvents);
    const longest = Math.max(...lists.map((list) => list.length));
    for (let k = 0; k < longest; k++) for (const list of lists) if (list[k] !== undefined) relayed.push(list[k]!);
    for (const choice of choices) {
      relayed.push({
        event: { type: 'finish', choice: choice.index, reason: choice.finish, raw: choice.raw },
        carries: [{ kind: 'finish', choice: choice.index, reason: choice.finish }],
      });
    }
    if (reply.usage !== undefined) relayed.push({ event: { type: 'usage', usage: reply.usage } });
    relayed.push({ event: { type: 'done' } });
    return relayed.map(({ event, carries }, k): WireEvent => {
      const wire: WireEvent = {
        event: event.type,
        id: String(k + 1),
        data: JSON.stringify(event),
        ...(carries === undefined ? {} : { carries }),
      };
      return event.type === 'done' ? { ...wire, end: true } : wire;
    });
  },
  error(before) {
    const error = {
      name: 'ProviderError',
      reason: 'in-stream',
      message: 'the provider reported an error at frame 4: Overloaded (overloaded_error)',
      position: { event: 4 },
      type: 'overloaded_error',
    };
    return [{ event: 'error', id: String(before + 1), data: JSON.stringify(error) }];
  },
};

/** The events of one choice after the start, in the order a dialect emits them. */
function choiceEvents(choice: WrittenChoice): Relayed[] {
  const c = choice.index;
  const events: Relayed[] = [];
  for (const text of textPieces(choice.reasoning))
    events.push({ event: { type: 'reasoning', choice: c, text }, carries: [{ kind: 'reasoning', choice: c, text }] });
  for (const signature of choice.signatures)
    events.push({ event: { type: 'reasoning-signature', choice: c, signature }, carries: [{ kind: 'named', choice: c }] });
  for (const text of textPieces(choice.text))
    events.push({ event: { type: 'content', choice: c, text }, carries: [{ kind: 'text', choice: c, text }] });
  for (const call of choice.calls) {
    const kind = call.custom ? { kind: 'custom' } : {};
    events.push({
      event: { type: 'tool-call-delta', choice: c, index: call.index, id: call.id, name: call.name, arguments: '', ...kind },
      carries: [{ kind: 'call', choice: c, index: call.index, id: call.id, name: call.name }],
    });
    const pieces = argumentPieces(call.text);
    pieces.forEach((text, k) => {
      events.push({
        event: { type: 'tool-call-delta', choice: c, index: call.index, arguments: text, ...kind },
        carries: [{ kind: 'arguments', choice: c, index: call.index, text, last: k === pieces.length - 1 }],
      });
    });
    events.push({ event: { type: 'tool-call-end', choice: c, index: call.index } });
  }
  return events;
}
