import { mistralConversations } from '../../src/dialects/mistral-conversations/mistralConversations';
import { detectDialect } from '../../src/dialects/auto';
import { DialectOptions } from '../../src/dialects/Dialect';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent } from '../../src/types/events';
import { SseFrame } from '../../src/frames/SseParser';
import { frame, readDialect } from '../support/frames';
import { recordedFolderSuite, recordingsOf, replayRecording } from '../support/recordedFolder';

// Mistral's Conversations / Agents stream. The recordings (marbles/dialects/mistral-conversations/,
// whose README says how each was built from the SDK's types) are checked against what
// marbles/tools/expected.py reads from their bytes; the cases below are written out by hand.

recordedFolderSuite('mistral-conversations', mistralConversations);

const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(mistralConversations, frames, options);

/** A frame as Mistral sends it: the event name repeats `data.type`. */
const named = (payload: { type: string } & Record<string, unknown>) => frame(payload, payload.type);
const started = (id = 'conv_1') =>
  named({ type: 'conversation.response.started', created_at: '2026-05-04T18:17:38.536041Z', conversation_id: id });
const output = (content: unknown, extra: Record<string, unknown> = {}) =>
  named({ type: 'message.output.delta', output_index: 0, id: 'msg_1', content_index: 0, role: 'assistant', content, ...extra });
const call = (toolCallId: string, args: string, name = 'get_weather') =>
  named({ type: 'function.call.delta', output_index: 1, id: 'fc_1', name, tool_call_id: toolCallId, arguments: args });
const done = (usage: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }) =>
  named({ type: 'conversation.response.done', usage });

const START: ChatEvent = { type: 'start', id: 'conv_1', model: null };
const FINISH: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'conversation.response.done' };
const USAGE: ChatEvent = { type: 'usage', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } };

const file = (name: string) => recordingsOf('mistral-conversations').find((recording) => recording.file === name)!;

describe('mistral-conversations', () => {
  it('maps a text reply: the conversation id, the model named later, the text, the finish at the end, the usage', () => {
    expect(read([started(), output('Hello', { model: 'mistral-small-latest' }), output(' there'), done()])).toEqual({
      events: [
        START,
        { type: 'start', id: 'conv_1', model: 'mistral-small-latest' },
        { type: 'content', choice: 0, text: 'Hello' },
        { type: 'content', choice: 0, text: ' there' },
        FINISH,
        USAGE,
        { type: 'done' },
      ],
    });
  });

  it('numbers the program’s calls by tool_call_id, the name on the first piece only, and finishes with tool_calls', () => {
    const { events, error } = read([started(), call('a', '{"city":'), call('b', '{}'), call('a', '"Paris"}'), done()]);
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === 'tool-call-delta' || event.type === 'finish')).toEqual([
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'get_weather', arguments: '{"city":' },
      { type: 'tool-call-delta', choice: 0, index: 1, id: 'b', name: 'get_weather', arguments: '{}' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"Paris"}' },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'conversation.response.done' },
    ]);
  });

  it('reads a built-in tool’s run as a provider tool call and its result, never as a call for the program', () => {
    const run = { output_index: 0, id: 'tool_exec_1', name: 'code_interpreter' };
    const { events } = read([
      started(),
      named({ type: 'tool.execution.started', ...run, arguments: '' }),
      named({ type: 'tool.execution.delta', ...run, arguments: '{"code": "print(6 * 7)"}' }),
      named({ type: 'tool.execution.done', ...run, info: { code_output: '42\n' } }),
      done(),
    ]);
    expect(events.filter((event) => event.type.startsWith('provider-tool') || event.type.startsWith('tool-call'))).toEqual([
      {
        type: 'provider-tool-call',
        choice: 0,
        call: { id: 'tool_exec_1', name: 'code_interpreter', type: 'tool.execution', input: { code: 'print(6 * 7)' } },
      },
      { type: 'provider-tool-result', choice: 0, id: 'tool_exec_1', result: { code_output: '42\n' } },
    ]);
    expect(events).toContainEqual(FINISH);
  });

  it('reads a thinking chunk as reasoning, its signature as a reasoning signature and an opaque item of the reasoning', () => {
    const { events } = read([
      started(),
      output({ type: 'thinking', thinking: [{ type: 'text', text: 'Hmm.' }], signature: 'c2ln' }),
      done(),
    ]);
    expect(events.slice(1, 4)).toEqual([
      { type: 'reasoning', choice: 0, text: 'Hmm.' },
      { type: 'reasoning-signature', choice: 0, signature: 'c2ln' },
      {
        type: 'opaque-item',
        choice: 0,
        item: { provider: 'mistral', kind: 'signature', type: 'signature', part: 'reasoning', data: 'c2ln' },
      },
    ]);
  });

  it('keeps an unknown field where it came and an unknown chunk whole under items', () => {
    const { events } = read([started(), output('a', { agent_id: 'ag_1' }), output({ type: 'audio_clip', data: 'AAAA' }), done()]);
    expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
      { type: 'provider-metadata', provider: 'mistral', fields: { agent_id: 'ag_1' } },
      { type: 'provider-metadata', provider: 'mistral', choice: 0, items: [{ type: 'audio_clip', data: 'AAAA' }] },
    ]);
  });

  it('is a ProviderError at conversation.response.error, with its message and code, and the text before it as partial', () => {
    const outcome = replayRecording(file('mistral-error.sse').bytes, 7, mistralConversations);
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect(outcome.error).toMatchObject({ code: 3000, partial: { content: 'The answer' } });
    expect((outcome.error as Error).message).toContain('Service unavailable, please retry');
  });

  it('is a StreamClosedEarlyError naming the missing end when the stream stops before conversation.response.done', () => {
    const outcome = replayRecording(file('mistral-cut-in-arguments.sse').bytes, 64, mistralConversations);
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect(outcome.error).toMatchObject({ reason: 'no-end-signal' });
    expect((outcome.error as Error).message).toContain('without conversation.response.done');
  });

  it('refuses a call without its tool_call_id or name', () => {
    expect(read([started(), call('', '{}'), done()]).error).toBeInstanceOf(ProtocolError);
    expect(read([started(), call('a', '{}', ''), done()]).error).toBeInstanceOf(ProtocolError);
  });

  it('absorbs a gateway’s [DONE] and events before the start, which strict refuses', () => {
    const frames = [output('a'), started(), output('b'), frame('[DONE]'), done()];
    expect(read(frames).error).toBeUndefined();
    expect(read(frames, { strict: true }).error).toMatchObject({ name: 'ProtocolError', reason: 'strict' });
    expect(read([started(), output('b'), frame('[DONE]'), done()], { strict: true }).error).toMatchObject({ reason: 'strict' });
  });

  it('is chosen by auto from any of its event types, and by no other dialect', () => {
    for (const type of [
      'conversation.response.started',
      'message.output.delta',
      'function.call.delta',
      'tool.execution.started',
      'agent.handoff.done',
    ]) {
      expect(detectDialect({ type })).toBe('mistral-conversations');
    }
    expect(detectDialect({ type: 'response.created' })).toBe('openai-responses');
  });
});
