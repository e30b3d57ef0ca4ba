import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { concat, map, of, pipe, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { chatEvents } from '../../src/dialects/chat-events/chatEvents';
import { encodeSse } from '../../src/ui/encodeSse';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion, CompletionSnapshot } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { sseFrames } from '../../src/frames/sseFrames';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { chunksOf } from '../support/chunking';
import { collectSync, runSync } from '../support/collect';
import { readDialect } from '../support/frames';

const MARBLES = join(__dirname, '..', '..', 'marbles');

/** What a server's `@Sse()` endpoint writes, as text: the events as Nest writes its message events. */
const serverWrites = pipe(
  toMessageEvents(),
  map((message) => ({ event: message.type, data: message.data, id: message.id })),
  encodeSse(),
);

/** A client of that endpoint: the text back into a completion, through the `chat-events` dialect. */
const clientReads = pipe(sseFrames(), assembleChunks({ dialect: 'chat-events' }), groupToolCallsByIndex(), finalizeCompletion());

const recordings = ['openai', 'real', 'dialects'].flatMap((folder) =>
  readdirSync(join(MARBLES, folder))
    .filter((file) => /\.(sse|ndjson)$/.test(file))
    .map((file) => ({
      name: `${folder}/${file}`,
      bytes: new Uint8Array(readFileSync(join(MARBLES, folder, file))),
      ndjson: file.endsWith('.ndjson'),
      expected: JSON.parse(readFileSync(join(MARBLES, folder, file.replace(/\.(sse|ndjson)$/, '.expected.json')), 'utf8')) as {
        completion?: Completion;
        error?: string;
        partial?: Partial<CompletionSnapshot>;
      },
    })),
);

describe('the chat-events dialect reads what toMessageEvents writes', () => {
  it.each(recordings.map((r) => [r.name, r]))(
    '%s: relayed through a server, the client gets the outcome the recording holds',
    (_name, recording) => {
      const server = runSync(
        chunksOf(recording.bytes, 64),
        pipe(decodeUtf8(), recording.ndjson ? ndjsonFrames() : sseFrames(), assembleChunks(), serverWrites),
      );
      const wire = server.values.join('');
      for (const size of [1, 7, wire.length]) {
        const pieces = wire.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
        const client = runSync(pieces, clientReads);
        if (recording.expected.completion !== undefined) {
          expect(client).toEqual({ values: [recording.expected.completion] });
        } else {
          expect(client.values).toEqual([]);
          expect((client.error as Error).name).toBe(recording.expected.error);
          expect((client.error as StreamClosedEarlyError).partial).toMatchObject(recording.expected.partial!);
        }
      }
    },
  );

  it('toMessageEvents ends a failure with one error event numbered after the others, then completes', () => {
    const start: ChatEvent = { type: 'start', id: 'x', model: 'm' };
    const hel: ChatEvent = { type: 'content', choice: 0, text: 'Hel' };
    const failure = new ProviderError('the provider reported an error at frame 3: overloaded (overloaded_error)', {
      type: 'overloaded_error',
      position: { event: 3 },
    });
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('a-b-#', { a: start, b: hel }, failure);
      expectObservable(source.pipe(toMessageEvents())).toBe('a-b-(e|)', {
        a: { type: 'start', id: '1', data: JSON.stringify(start) },
        b: { type: 'content', id: '2', data: JSON.stringify(hel) },
        e: {
          type: 'error',
          id: '3',
          data: JSON.stringify({
            name: 'ProviderError',
            reason: 'in-stream',
            // The provider's own text ("overloaded") stays on the server: the client gets the codes.
            message: 'the provider reported an error',
            position: { event: 3 },
            type: 'overloaded_error',
          }),
        },
      });
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('a ProviderError on the server is rebuilt as a ProviderError on the client, with the events before it as partial', () => {
    const events: ChatEvent[] = [
      { type: 'start', id: 'x', model: 'm' },
      { type: 'content', choice: 0, text: 'Hel' },
    ];
    const failure = new ProviderError('the provider answered HTTP 529: overloaded', { status: 529, type: 'overloaded_error' });
    const wire = collectSync(
      concat(
        of(...events),
        throwError(() => failure),
      ).pipe(serverWrites),
    ).values.join('');
    const { values, error } = runSync([wire], clientReads);
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ message: 'the provider answered HTTP 529', status: 529, type: 'overloaded_error' });
    expect((error as ProviderError).partial).toMatchObject({ id: 'x', content: 'Hel', finished: false });
  });
});

describe('the chat-events dialect, frame by frame', () => {
  const frame = (event: ChatEvent | Record<string, unknown>, name = String(event['type' as keyof typeof event])) => ({
    event: name,
    data: JSON.stringify(event),
    id: '',
  });
  const done = frame({ type: 'done' });
  const content = frame({ type: 'content', choice: 0, text: 'hi' });

  it('passes each event on as a new object with only the fields of its type, a newer field kept as provider metadata', () => {
    const { events } = readDialect(chatEvents, [frame({ type: 'content', choice: 0, text: 'hi', extra: 1 }), done]);
    expect(events).toEqual([
      { type: 'content', choice: 0, text: 'hi' },
      { type: 'provider-metadata', provider: 'chat-events', choice: 0, fields: { extra: 1 } },
      { type: 'done' },
    ]);
  });

  it('is a StreamClosedEarlyError when the stream ends without its done event', () => {
    const { events, error } = readDialect(chatEvents, [content]);
    expect(events).toEqual([{ type: 'content', choice: 0, text: 'hi' }]);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect((error as Error).message).toBe('the stream ended without its done event after 1 frame');
  });

  it.each([
    [
      'an event whose type differs from its name',
      frame({ type: 'content', choice: 0, text: 'x' }, 'refusal'),
      'frame 1: an event named "refusal" carries a "content" event',
    ],
    ['text that is not a string', frame({ type: 'content', choice: 0, text: 7 }), 'frame 1: text is 7, not text'],
    ['a negative choice', frame({ type: 'content', choice: -1, text: 'x' }), 'frame 1: choice is -1, not an index'],
    ['an unknown finish reason', frame({ type: 'finish', choice: 0, reason: 'bored', raw: 'bored' }), 'frame 1: finish.reason is "bored"'],
    [
      'a usage count that is a string',
      frame({ type: 'usage', usage: { promptTokens: '3', completionTokens: 1, totalTokens: 4 } }),
      'frame 1: usage.promptTokens is "3", not a number',
    ],
    ['a payload without a type', frame({ choice: 0 }, 'message'), 'frame 1: type is missing'],
    ['a payload that is not JSON', { event: 'content', data: '{', id: '' }, 'frame 1: data is not JSON: "{"'],
  ])('is a ProtocolError for %s', (_name, bad, message) => {
    const { error } = readDialect(chatEvents, [bad, done]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe(message);
  });

  it('rebuilds an error event as the error it describes, and refuses one that describes none', () => {
    const early = readDialect(chatEvents, [content, { event: 'error', data: '{"name":"StreamClosedEarlyError","message":"cut"}', id: '' }]);
    expect(early.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((early.error as Error).message).toBe('cut');
    const garbage = readDialect(chatEvents, [{ event: 'error', data: '"Internal server error"', id: '' }]);
    expect(garbage.error).toBeInstanceOf(ProtocolError);
  });

  it('carries every part of a reply beside its text: cut calls, custom calls, log probabilities, sources, audio, provider tools', () => {
    const parts: ChatEvent[] = [
      { type: 'start', id: 'chatcmpl-1', model: 'm' },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT 1', kind: 'custom' },
      {
        type: 'tool-call',
        choice: 0,
        call: { kind: 'custom', index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT 1', args: 'SELECT 1' },
      },
      { type: 'tool-call-incomplete', choice: 0, call: { index: 1, id: 'call_d', name: 'lookup', arguments: '{"q":' } },
      { type: 'logprobs', choice: 0, content: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [] }] },
      { type: 'source', choice: 0, source: { kind: 'url', url: 'https://example.com', title: 'Example', span: { start: 0, end: 2 } } },
      { type: 'audio', choice: 0, id: 'audio_1', data: 'UklG', transcript: 'Hi', expiresAt: 1767225600 },
      { type: 'provider-tool-call', choice: 0, call: { id: 'ws_1', name: 'web_search', type: 'web_search_call', input: { query: 'q' } } },
      { type: 'provider-tool-result', choice: 0, id: 'ws_1', result: { status: 'completed' } },
      { type: 'unknown', event: 'response.novelty', payload: { type: 'response.novelty', deep: [1] } },
      {
        type: 'usage',
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12, cachedPromptTokens: 4, cacheWritePromptTokens: 3 },
      },
      { type: 'finish', choice: 0, reason: 'length', raw: 'length' },
    ];
    const wire = collectSync(of(...parts, { type: 'done' } as const).pipe(serverWrites)).values.join('');
    const relayed = runSync([wire], pipe(sseFrames(), assembleChunks({ dialect: 'chat-events' })));
    expect(relayed).toEqual({ values: [...parts, { type: 'done' }] });
  });

  it('ignores an event type it does not know, and frames after done; strict refuses both', () => {
    const later = frame({ type: 'citation', url: 'https://example.com' });
    expect(readDialect(chatEvents, [later, content, done, content])).toEqual({
      events: [{ type: 'content', choice: 0, text: 'hi' }, { type: 'done' }],
    });
    expect((readDialect(chatEvents, [later, done], { strict: true }).error as Error).message).toBe(
      'frame 1: unknown event type "citation"',
    );
    expect((readDialect(chatEvents, [done, content], { strict: true }).error as Error).message).toBe(
      'frame 2: a frame arrived after the done event',
    );
  });
});
