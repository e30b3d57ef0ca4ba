import { UnsupportedReplyError } from '../writing/UnsupportedReplyError.js';
import { FormatRules, readChoices } from '../writing/readReply.js';
import { ProviderWriter, WireEvent, argumentPieces, textPieces } from '../writing/wire.js';

const RULES: FormatRules = {
  format: 'typed-events',
  choices: false,
  reasoning: false,
  calls: 'streamed',
  custom: false,
  signatures: 0,
  finishes: { stop: 'stop', tool_calls: 'tool_calls' },
  toolCallsByCalls: true,
  rawFinish: false,
};

/**
 * The typed-event stream of the specification this library grew from, framed as its own test
 * frames it: a `: keep-alive` comment, then each event as `data:` with Python's `json.dumps`
 * spacing (`", "`, `": "`, non-ASCII as is) and CRLF line ends: `{"type": "text", "delta"}` a
 * word at a time, every call's `tool_call_start` (`index`, `id`, `name`), their `tool_call_delta`
 * `args` pieces interleaved call by call, each call's `tool_call_end` after its last piece; then
 * `event: done` and `data: [DONE]` with LF line ends.
 *
 * Cannot write: an id, a model, usage, reasoning, several choices, custom calls, signatures, or a
 * finish: the format has none (the library says `tool_calls` when calls were made, else `stop`).
 * An error mid-stream is `{"type": "error", "message": ...}`.
 */
export const typedEventsWriter: ProviderWriter = {
  dialect: 'typed-events',
  contentType: 'text/event-stream',
  framing: 'sse-crlf',
  write(reply) {
    for (const part of ['id', 'model', 'usage'] as const) {
      if (reply[part] !== undefined) throw new UnsupportedReplyError('typed-events', part, 'the format carries none');
    }
    const choice = readChoices(reply, RULES)[0]!;
    const events: WireEvent[] = [{ data: 'keep-alive', comment: true, lineEnd: '\n' }];
    for (const text of textPieces(choice.text)) {
      events.push({ data: pythonJson({ type: 'text', delta: text }), carries: [{ kind: 'text', choice: 0, text }] });
    }
    for (const call of choice.calls) {
      events.push({
        data: pythonJson({ type: 'tool_call_start', index: call.index, id: call.id, name: call.name }),
        carries: [{ kind: 'call', choice: 0, index: call.index, id: call.id, name: call.name }],
      });
    }
    // The calls' pieces interleave, one piece of each call in turn, as in the specification's test.
    const pieces = choice.calls.map((call) => argumentPieces(call.text));
    const longest = choice.calls.length === 0 ? 0 : Math.max(1, ...pieces.map((list) => list.length));
    for (let k = 0; k < longest; k++) {
      for (const call of choice.calls) {
        const list = pieces[call.index]!;
        const text = list[k];
        if (text !== undefined) {
          events.push({
            data: pythonJson({ type: 'tool_call_delta', index: call.index, args: text }),
            carries: [{ kind: 'arguments', choice: 0, index: call.index, text, last: k === list.length - 1 }],
          });
        }
        if (k === Math.max(0, list.length - 1)) events.push({ data: pythonJson({ type: 'tool_call_end', index: call.index }) });
      }
    }
    events.push({
      event: 'done',
      data: '[DONE]',
      lineEnd: '\n',
      carries: [{ kind: 'finish', choice: 0, reason: choice.finish }],
      end: true,
    });
    return events;
  },
  error() {
    return [{ data: pythonJson({ type: 'error', message: 'the model failed while writing its reply' }) }];
  },
};

/** JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it: `", "` and `": "` between items. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}
