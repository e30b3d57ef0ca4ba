import { geminiInteractions } from '../../src/dialects/gemini-interactions/geminiInteractions';
import { detectDialect } from '../../src/dialects/auto';
import { DialectOptions } from '../../src/dialects/Dialect';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent } from '../../src/types/events';
import { SseFrame } from '../../src/frames/SseParser';
import { frame, readDialect } from '../support/frames';
import { recordedFolderSuite, recordingsOf, replayRecording } from '../support/recordedFolder';

// Gemini's Interactions API stream. The recordings (marbles/dialects/gemini-interactions/, whose README
// says how each was built from @google/genai's types) are checked against what marbles/tools/expected.py
// reads from their bytes; the cases below are written out by hand.

recordedFolderSuite('gemini-interactions', geminiInteractions);

const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(geminiInteractions, frames, options);

/** A frame as Google sends it: the event name repeats `data.event_type`. */
const named = (payload: { event_type: string } & Record<string, unknown>) => frame(payload, payload.event_type);
const created = (extra: Record<string, unknown> = {}) =>
  named({
    event_type: 'interaction.created',
    interaction: { id: 'v1_1', status: 'in_progress', model: 'gemini-3-flash-preview', ...extra },
  });
const start = (index: number, step: Record<string, unknown>) => named({ event_type: 'step.start', index, step });
const delta = (index: number, body: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  named({ event_type: 'step.delta', index, delta: body, ...extra });
const stop = (index: number) => named({ event_type: 'step.stop', index });
const completed = (status = 'completed', extra: Record<string, unknown> = {}) =>
  named({ event_type: 'interaction.completed', interaction: { id: 'v1_1', status, ...extra } });

const START: ChatEvent = { type: 'start', id: 'v1_1', model: 'gemini-3-flash-preview' };
const file = (name: string) => recordingsOf('gemini-interactions').find((recording) => recording.file === name)!;

describe('gemini-interactions', () => {
  it('maps a thought, a model output and the end: reasoning, its signature, the text, the finish, the usage', () => {
    const usage = { total_input_tokens: 9, total_output_tokens: 4, total_thought_tokens: 6, total_tokens: 19 };
    expect(
      read([
        created(),
        start(0, { type: 'thought', signature: 'c2ln' }),
        delta(0, { type: 'thought_summary', content: { type: 'text', text: 'Counting.' } }),
        stop(0),
        start(1, { type: 'model_output' }),
        delta(1, { type: 'text', text: '1, 2' }),
        stop(1),
        completed('completed', { usage }),
        frame('[DONE]', 'done'),
      ]),
    ).toEqual({
      events: [
        START,
        { type: 'reasoning-signature', choice: 0, signature: 'c2ln' },
        {
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'google', kind: 'signature', type: 'thought_signature', part: 'reasoning', block: 0, data: 'c2ln' },
        },
        { type: 'reasoning', choice: 0, text: 'Counting.' },
        { type: 'content', choice: 0, text: '1, 2' },
        { type: 'usage', usage: { promptTokens: 9, completionTokens: 10, totalTokens: 19, reasoningTokens: 6 } },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
        { type: 'done' },
      ],
    });
  });

  it('streams a function call from its step: id and name at the start, arguments_delta pieces, the end at its stop', () => {
    const { events, error } = read([
      created(),
      start(0, { type: 'function_call', id: 'c1', name: 'get_weather', arguments: {} }),
      delta(0, { type: 'arguments_delta', arguments: '{"city":' }),
      delta(0, { type: 'arguments_delta', arguments: '"Paris"}' }),
      stop(0),
      completed('requires_action'),
    ]);
    expect(error).toBeUndefined();
    expect(events.slice(1, -1)).toEqual([
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'get_weather', arguments: '' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"Paris"}' },
      { type: 'tool-call-end', choice: 0, index: 0 },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'requires_action' },
    ]);
  });

  it('refuses arguments_delta pieces for a call whose arguments came whole, and a call without its id', () => {
    const whole = start(0, { type: 'function_call', id: 'c1', name: 'f', arguments: { a: 1 } });
    expect(read([created(), whole, delta(0, { type: 'arguments_delta', arguments: '{}' }), stop(0), completed()]).error).toBeInstanceOf(
      ProtocolError,
    );
    expect(read([created(), start(0, { type: 'function_call', name: 'f' }), stop(0), completed()]).error).toMatchObject({
      name: 'ProtocolError',
      reason: 'invalid-tool-call',
    });
  });

  it('reads a tool Google runs as a provider tool call and its result step as its result, never as a call for the program', () => {
    const { events } = read([
      created(),
      start(0, { type: 'url_context_call', id: 'u1', arguments: { urls: ['https://example.com'] } }),
      stop(0),
      start(1, { type: 'url_context_result', call_id: 'u1', result: [{ url: 'https://example.com', status: 'success' }] }),
      stop(1),
      completed(),
    ]);
    expect(events.filter((event) => event.type.startsWith('provider-tool') || event.type.startsWith('tool-call'))).toEqual([
      {
        type: 'provider-tool-call',
        choice: 0,
        call: { id: 'u1', name: 'url_context', type: 'url_context_call', input: { urls: ['https://example.com'] } },
      },
      { type: 'provider-tool-result', choice: 0, id: 'u1', result: [{ url: 'https://example.com', status: 'success' }] },
    ]);
    expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'stop', raw: 'completed' });
  });

  it('keeps an unknown field where it came and an unknown step whole under items', () => {
    const { events } = read([created({ agent: 'deep-research' }), start(0, { type: 'world_model_step', frames: 3 }), stop(0), completed()]);
    expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
      { type: 'provider-metadata', provider: 'google', fields: { agent: 'deep-research' } },
      { type: 'provider-metadata', provider: 'google', choice: 0, items: [{ type: 'world_model_step', frames: 3 }] },
    ]);
  });

  it('keeps the continuation token of a status update (to resume decoding after a disconnect) on the reply, the last one', () => {
    const update = (token: string) =>
      named({ event_type: 'interaction.status_update', interaction_id: 'v1_1', status: 'in_progress', continuation_token: token });
    const { events } = read([created(), update('t1'), update('t2'), completed()]);
    expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
      { type: 'provider-metadata', provider: 'google', fields: { continuation_token: 't1' } },
      { type: 'provider-metadata', provider: 'google', fields: { continuation_token: 't2' } },
    ]);
  });

  it('keeps the continuation token of an incomplete interaction as an opaque item of the turn, and finishes for length', () => {
    const { events } = read([
      created(),
      start(0, { type: 'model_output' }),
      delta(0, { type: 'text', text: 'a' }),
      stop(0),
      completed('incomplete', { continuation_token: 'tok' }),
    ]);
    expect(events.slice(-3)).toEqual([
      {
        type: 'opaque-item',
        choice: 0,
        item: { provider: 'google', kind: 'continuation', type: 'continuation_token', part: 'turn', data: 'tok' },
      },
      { type: 'finish', choice: 0, reason: 'length', raw: 'incomplete' },
      { type: 'done' },
    ]);
  });

  it('is a ProviderError at the error event, with its message, and the text before it as partial', () => {
    const outcome = replayRecording(file('interactions-error.sse').bytes, 7, geminiInteractions);
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect(outcome.error).toMatchObject({ partial: { content: 'The answer is' } });
    expect((outcome.error as Error).message).toContain('Resource has been exhausted');
  });

  it('is a ProviderError for a model_output step with an error', () => {
    const failed = start(0, { type: 'model_output', error: { code: 8, message: 'quota' } });
    expect(read([created(), failed, stop(0), completed()]).error).toBeInstanceOf(ProviderError);
  });

  it('is a StreamClosedEarlyError when the stream stops before interaction.completed, even after [DONE]', () => {
    const outcome = replayRecording(file('interactions-cut-in-arguments.sse').bytes, 64, geminiInteractions);
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((outcome.error as Error).message).toContain('without interaction.completed');
    const { error } = read([created(), start(0, { type: 'model_output' }), stop(0), frame('[DONE]', 'done')]);
    expect(error).toMatchObject({ name: 'StreamClosedEarlyError', reason: 'no-end-signal' });
  });

  it('refuses a delta of a step that never started', () => {
    expect(read([created(), delta(4, { type: 'text', text: 'a' }), completed()]).error).toBeInstanceOf(ProtocolError);
  });

  it('is chosen by auto from any of its event types, and by no other dialect', () => {
    for (const type of ['interaction.created', 'interaction.status_update', 'step.start', 'step.delta', 'interaction.completed']) {
      expect(detectDialect({ event_type: type })).toBe('gemini-interactions');
    }
    expect(detectDialect({ candidates: [] })).toBe('gemini');
  });
});
