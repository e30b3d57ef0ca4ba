import { lastValueFrom, from, mergeMap, map, toArray, filter, catchError, of } from 'rxjs';
import { socketMessages } from '../../src/testing/socketMessages';
import { responsesSocketReplies } from '../../src/websocket/responsesSocketReplies';
import { realtimeSocketReplies } from '../../src/websocket/realtimeSocketReplies';
import type { SocketReply } from '../../src/websocket/socketReplies';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import type { TestReply } from '../../src/dialects/writing/TestReply';

// The kit writes a reply as a socket's messages, so that the splitters can be tested as users test a
// pipeline: replies in, the same replies out, whatever else the socket carried between them.

const weather: TestReply = {
  id: 'resp_weather',
  choices: [{ text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }],
};
const greeting: TestReply = { id: 'resp_greeting', choices: [{ text: 'Hello there, how can I help?' }] };

/** Two lists of messages, one of each in turn. */
function interleave(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    if (k < a.length) out.push(a[k]!);
    if (k < b.length) out.push(b[k]!);
  }
  return out;
}

/** Each reply of the socket, read to its completion (or the error it ends in), by lane. */
type Splitter = ReturnType<typeof responsesSocketReplies>;

function readReplies(replies: Splitter, messages: readonly string[], dialect: 'openai-responses' | 'openai-realtime') {
  return lastValueFrom(
    from(messages).pipe(
      replies,
      filter((item): item is SocketReply => item.kind === 'reply'),
      mergeMap((reply) =>
        reply.frames.pipe(
          assembleChunks({ dialect }),
          groupToolCallsByIndex(),
          finalizeCompletion(),
          map((completion) => ({ lane: reply.streamId, completion, error: undefined as unknown })),
          catchError((error: unknown) => of({ lane: reply.streamId, completion: undefined, error })),
        ),
      ),
      toArray(),
    ),
  );
}

describe('socketMessages', () => {
  it('writes a Responses reply as one JSON text per event, each on the lane it is given', () => {
    const messages = socketMessages(greeting, 'openai-responses', { streamId: 'lane-a' });
    expect(messages.length).toBeGreaterThan(2);
    const events = messages.map((text) => JSON.parse(text) as { type: string; stream_id: string });
    expect(events[0]!.type).toBe('response.created');
    expect(events[events.length - 1]!.type).toBe('response.completed');
    expect(new Set(events.map((event) => event.stream_id))).toEqual(new Set(['lane-a']));
  });

  it('gives two replies interleaved on one socket back whole, each on its lane', async () => {
    const messages = interleave(
      socketMessages(weather, 'openai-responses', { streamId: 'a' }),
      socketMessages(greeting, 'openai-responses', { streamId: 'b' }),
    );
    const read = await readReplies(responsesSocketReplies(), messages, 'openai-responses');
    const byLane = new Map(read.map((entry) => [entry.lane, entry]));
    expect(byLane.get('a')?.completion).toMatchObject({
      id: 'resp_weather',
      content: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }],
      finishReason: 'tool_calls',
    });
    const greeted = byLane.get('b')?.completion;
    expect(greeted).toMatchObject({ id: 'resp_greeting', content: 'Hello there, how can I help?', finishReason: 'stop' });
  });

  it('makes a socket closed mid-reply a StreamClosedEarlyError whose partial has what arrived', async () => {
    const messages = socketMessages(greeting, 'openai-responses');
    const [only] = await readReplies(responsesSocketReplies(), messages.slice(0, -1), 'openai-responses');
    expect(only!.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((only!.error as StreamClosedEarlyError).partial).toMatchObject({ content: 'Hello there, how can I help?' });
  });

  it('writes a Realtime reply that realtimeSocketReplies reads back', async () => {
    const messages = socketMessages(weather, 'openai-realtime');
    const events = messages.map((text) => JSON.parse(text) as { type: string; event_id?: string });
    expect(events.every((event) => typeof event.event_id === 'string')).toBe(true);
    const [only] = await readReplies(realtimeSocketReplies(), messages, 'openai-realtime');
    expect(only!.completion).toMatchObject({
      content: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }],
      finishReason: 'tool_calls',
    });
  });
});
