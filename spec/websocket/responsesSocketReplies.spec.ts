import { EMPTY, Observable, catchError, filter, map, mergeMap, of, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { responsesSocketReplies, SocketOutsideEvent, SocketReply } from '../../src/websocket/responsesSocketReplies';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';
import {
  completed,
  created,
  incomplete,
  messageAdded,
  steerAccepted,
  steerPending,
  streamError,
  text,
  textDelta,
  wsError,
} from './responsesEvents';

/** Each reply's frames as `<response id>:<event type>`, an event outside any reply as `outside:<type>`. */
function routes(output: Observable<SocketReply | SocketOutsideEvent>): Observable<string> {
  return output.pipe(
    mergeMap((item) =>
      item.kind === 'reply'
        ? item.frames.pipe(map((frame) => `${item.responseId ?? '?'}:${frame.event}`))
        : of(`outside:${item.frame.event}`),
    ),
  );
}

/** Each reply read to the end: `<id> <content>`, or `<id> <error class> <reason> <partial content>`. */
function outcomes(output: Observable<SocketReply | SocketOutsideEvent>): Observable<string> {
  return output.pipe(
    mergeMap((item) => {
      if (item.kind !== 'reply') return EMPTY;
      const name = item.responseId ?? '?';
      return item.frames.pipe(
        assembleChunks({ dialect: 'openai-responses' }),
        groupToolCallsByIndex(),
        finalizeCompletion(),
        map((completion) => `${name} ${completion.content ?? ''}`),
        catchError((error: Error & { reason?: string; partial?: unknown }) => {
          const partial = isCompletionSnapshot(error.partial) ? (error.partial.content ?? '') : '-';
          return of(`${name} ${error.name} ${error.reason ?? ''} ${partial}`);
        }),
      );
    }),
  );
}

describe('responsesSocketReplies', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('routes two responses interleaved on two lanes (stream_id) each to its own reply', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcdefghij|', {
        a: text(created('resp_A', 0, 'lane-a')),
        b: text(messageAdded('msg_A', 1, 'lane-a')),
        c: text(created('resp_B', 0, 'lane-b')),
        d: text(textDelta('msg_A', 'Hello', 2, 'lane-a')),
        e: text(messageAdded('msg_B', 1, 'lane-b')),
        f: text(textDelta('msg_B', 'Bonjour', 2, 'lane-b')),
        g: text(textDelta('msg_A', ' world', 3, 'lane-a')),
        h: text(completed('resp_B', 3, 'lane-b')),
        i: text(completed('resp_A', 4, 'lane-a')),
        j: text(created('resp_C', 0, 'lane-b')),
      });
      expectObservable(routes(socket.pipe(responsesSocketReplies()))).toBe('abcdefghij|', {
        a: 'resp_A:response.created',
        b: 'resp_A:response.output_item.added',
        c: 'resp_B:response.created',
        d: 'resp_A:response.output_text.delta',
        e: 'resp_B:response.output_item.added',
        f: 'resp_B:response.output_text.delta',
        g: 'resp_A:response.output_text.delta',
        h: 'resp_B:response.completed',
        i: 'resp_A:response.completed',
        j: 'resp_C:response.created',
      });
      // Read to the end: each reply is whole, and the one the socket's close cut is a StreamClosedEarlyError.
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe('-------hi-(j|)', {
        h: 'resp_B Bonjour',
        i: 'resp_A Hello world',
        j: 'resp_C StreamClosedEarlyError no-end-signal ',
      });
    });
  });

  it('routes by item id an event whose lane says nothing (a server that echoes no stream_id on deltas)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcdefgh|', {
        a: text(created('resp_A', 0, 'lane-a')),
        b: text(messageAdded('msg_A', 1, 'lane-a')),
        c: text(created('resp_B', 0)),
        d: text(messageAdded('msg_B', 1)),
        e: text(textDelta('msg_A', 'one', 2)),
        f: text(textDelta('msg_B', 'two', 2)),
        g: text(completed('resp_A', 3)),
        h: text(completed('resp_B', 3)),
      });
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe('------gh|', {
        g: 'resp_A one',
        h: 'resp_B two',
      });
    });
  });

  it('makes a socket closed mid-reply a StreamClosedEarlyError with the partial, and one that fails a transport error', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const events = { a: text(created('resp_A')), b: text(messageAdded('msg_A', 1)), c: text(textDelta('msg_A', 'Hel', 2)) };
      expectObservable(outcomes(cold('abc|', events).pipe(responsesSocketReplies()))).toBe('---(x|)', {
        x: 'resp_A StreamClosedEarlyError no-end-signal Hel',
      });
      // RxJS's webSocket errors with the close event of an unclean close (code 1006).
      const closeEvent = { type: 'close', code: 1006, reason: '', wasClean: false };
      const failed = cold('abc#', events, closeEvent).pipe(responsesSocketReplies());
      expectObservable(outcomes(failed)).toBe(
        '---(x#)',
        { x: 'resp_A StreamClosedEarlyError transport Hel' },
        expect.any(StreamClosedEarlyError),
      );
    });
  });

  it('makes an error event a ProviderError: in a reply, it ends that reply; outside any, it is a reply of its own', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcdef|', {
        a: text(wsError('model_not_found', 'The model `gpt-x` does not exist')),
        b: text(created('resp_A')),
        c: text(messageAdded('msg_A', 1)),
        d: text(textDelta('msg_A', 'Par', 2)),
        e: text(streamError('server_error', 'The server had an error', 3)),
        f: text(created('resp_B')),
      });
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe('a---e-(f|)', {
        a: '? ProviderError in-stream ',
        e: 'resp_A ProviderError in-stream Par',
        f: 'resp_B StreamClosedEarlyError no-end-signal ',
      });
    });
  });

  it('answers a refused request on a lane with its own reply, and lets the response running on that lane go on', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcde|', {
        a: text(created('resp_A', 0, 'lane')),
        b: text(messageAdded('msg_A', 1, 'lane')),
        c: text(wsError('too_many_requests', 'Too many pending requests on this lane', 'lane')),
        d: text(textDelta('msg_A', 'Still here', 2, 'lane')),
        e: text(completed('resp_A', 3, 'lane')),
      });
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe('--c-e|', {
        c: '? ProviderError in-stream ',
        e: 'resp_A Still here',
      });
    });
  });

  it('gives a steering event to the response it names, and one after its response ended to the output, outside any reply', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcdefg|', {
        a: text(created('resp_A')),
        b: text(steerAccepted('steer_1', 'resp_A', 1)),
        c: text(incomplete('resp_A', 'steered', 2)),
        d: text(created('resp_B', 0)),
        e: text(steerAccepted('steer_2', 'resp_B', 1)),
        f: text(completed('resp_B', 2)),
        g: text(steerPending('steer_2', 'resp_B', 3)),
      });
      expectObservable(routes(socket.pipe(responsesSocketReplies()))).toBe('abcdefg|', {
        a: 'resp_A:response.created',
        b: 'resp_A:response.steer.accepted',
        c: 'resp_A:response.incomplete',
        d: 'resp_B:response.created',
        e: 'resp_B:response.steer.accepted',
        f: 'resp_B:response.completed',
        g: 'outside:response.steer.pending',
      });
    });
  });

  it('closes a lane reply that never ended when a new response takes its lane', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcde|', {
        a: text(created('resp_A')),
        b: text(messageAdded('msg_A', 1)),
        c: text(textDelta('msg_A', 'cut', 2)),
        d: text(created('resp_B')),
        e: text(completed('resp_B', 1)),
      });
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe('---de|', {
        d: 'resp_A StreamClosedEarlyError no-end-signal cut',
        e: 'resp_B ',
      });
    });
  });

  it('keeps the socket while a reply is read, after the output let go of it (take(1)), and lets it go after', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const socket = cold('abcd|', {
        a: text(created('resp_A')),
        b: text(messageAdded('msg_A', 1)),
        c: text(textDelta('msg_A', 'Kept', 2)),
        d: text(completed('resp_A', 3)),
      });
      const first = socket.pipe(
        responsesSocketReplies(),
        filter((item): item is SocketReply => item.kind === 'reply'),
        take(1),
        mergeMap((reply) => outcomes(of(reply))),
      );
      expectObservable(first).toBe('---(x|)', { x: 'resp_A Kept' });
      expectSubscriptions(socket.subscriptions).toBe('^--!');
    });
  });

  it('refuses a message that is not a JSON object, erroring the open reply and the output', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('ab-', { a: text(created('resp_A')), b: 'not json' });
      expectObservable(outcomes(socket.pipe(responsesSocketReplies()))).toBe(
        '-(x#)',
        { x: 'resp_A ProtocolError invalid-json ' },
        expect.any(ProtocolError),
      );
    });
  });

  it('refuses a message longer than maxMessageSize before parsing it', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const long = text(textDelta('msg_A', 'x'.repeat(500), 2));
      const socket = cold('a', { a: long });
      expectObservable(socket.pipe(responsesSocketReplies({ maxMessageSize: 200 }))).toBe(
        '#',
        undefined,
        expect.objectContaining({ name: 'ProtocolError', reason: 'too-large' }),
      );
    });
  });
});

describe('responsesSocketReplies: a reply read late', () => {
  /** The socket's replies, collected; nothing subscribes to their frames yet. */
  function collect(messages: string[], options = {}): { replies: SocketReply[]; done: boolean } {
    const result = { replies: [] as SocketReply[], done: false };
    of(...messages)
      .pipe(responsesSocketReplies(options))
      .subscribe({
        next: (item) => {
          if (item.kind === 'reply') result.replies.push(item);
        },
        complete: () => (result.done = true),
      });
    return result;
  }

  function readAll(reply: SocketReply): { types: string[]; error: unknown } {
    const read = { types: [] as string[], error: undefined as unknown };
    reply.frames.subscribe({ next: (frame) => read.types.push(frame.event), error: (error: unknown) => (read.error = error) });
    return read;
  }

  it('holds the frames that came before its subscription, and gives them all', () => {
    const { replies, done } = collect([text(created('resp_A')), text(messageAdded('msg_A', 1)), text(completed('resp_A', 2))]);
    expect(done).toBe(true);
    expect(replies).toHaveLength(1);
    expect(readAll(replies[0]!).types).toEqual(['response.created', 'response.output_item.added', 'response.completed']);
  });

  it('refuses to hold more than maxHeldChars: the reply errors with a ProtocolError, too-large', () => {
    const messages = [text(created('resp_A')), text(messageAdded('msg_A', 1)), text(textDelta('msg_A', 'x'.repeat(2000), 2))];
    const { replies } = collect(messages, { maxHeldChars: 1500 });
    const read = readAll(replies[0]!);
    expect(read.types).toEqual([]);
    expect(read.error).toBeInstanceOf(ProtocolError);
    expect((read.error as ProtocolError).reason).toBe('too-large');
  });

  it('counts only open replies against maxHeldChars: one that ended unread leaves the budget to the next', () => {
    const reply = (id: string) => [
      text(created(id)),
      text(messageAdded(`msg_${id}`, 1)),
      text(textDelta(`msg_${id}`, 'x'.repeat(600), 2)),
      text(completed(id, 3)),
    ];
    const { replies } = collect([...reply('resp_A'), ...reply('resp_B'), ...reply('resp_C')], { maxHeldChars: 3000 });
    expect(replies.map((each) => readAll(each).error)).toEqual([undefined, undefined, undefined]);
    expect(readAll(replies[2]!).error).toBeInstanceOf(TypeError);
  });

  it('is read once: a second subscription errors', () => {
    const { replies } = collect([text(created('resp_A')), text(completed('resp_A', 1))]);
    readAll(replies[0]!);
    expect(readAll(replies[0]!).error).toBeInstanceOf(TypeError);
  });

  it('reads the error of a refused request as a ProviderError with its code and message', async () => {
    const { replies } = collect([text(wsError('model_not_found', 'The model `gpt-x` does not exist'))]);
    const error = await new Promise<unknown>((resolve) =>
      replies[0]!.frames
        .pipe(assembleChunks({ dialect: 'openai-responses' }))
        .subscribe({ error: resolve, complete: () => resolve(undefined) }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'model_not_found', message: expect.stringContaining('The model `gpt-x` does not exist') });
  });
});
