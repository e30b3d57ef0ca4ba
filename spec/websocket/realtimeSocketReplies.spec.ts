import type { RealtimeServerEvent } from 'openai-current/resources/realtime/realtime';
import { EMPTY, Observable, catchError, map, mergeMap, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { realtimeSocketReplies } from '../../src/websocket/realtimeSocketReplies';
import { SocketOutsideEvent, SocketReply } from '../../src/websocket/socketReplies';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';

// A Realtime session's socket, its server events typed by the openai SDK 7.x (`RealtimeServerEvent`).

let next = 0;
const text = (event: RealtimeServerEvent): string => JSON.stringify(event);
const eventId = (): string => `event_${next++}`;

const sessionCreated = (): RealtimeServerEvent => ({ type: 'session.created', event_id: eventId(), session: { type: 'realtime' } });
const created = (id: string): RealtimeServerEvent => ({
  type: 'response.created',
  event_id: eventId(),
  response: { object: 'realtime.response', id, status: 'in_progress', output: [] },
});
const textDelta = (responseId: string, itemId: string, delta: string): RealtimeServerEvent => ({
  type: 'response.output_text.delta',
  event_id: eventId(),
  response_id: responseId,
  item_id: itemId,
  output_index: 0,
  content_index: 0,
  delta,
});
const done = (id: string): RealtimeServerEvent => ({
  type: 'response.done',
  event_id: eventId(),
  response: { object: 'realtime.response', id, status: 'completed', output: [] },
});
const speechStarted = (): RealtimeServerEvent => ({
  type: 'input_audio_buffer.speech_started',
  event_id: eventId(),
  audio_start_ms: 1200,
  item_id: 'item_user',
});
const error = (): RealtimeServerEvent => ({
  type: 'error',
  event_id: eventId(),
  error: {
    type: 'invalid_request_error',
    code: 'invalid_value',
    message: 'Invalid voice',
    param: 'session.audio.output.voice',
    event_id: 'client_7',
  },
});

/** Each reply read to the end (`<id> <content>` or `<id> <error> <reason> <partial>`), each session event as `outside:<type>`. */
function outcomes(output: Observable<SocketReply | SocketOutsideEvent>): Observable<string> {
  return output.pipe(
    mergeMap((item) => {
      if (item.kind === 'outside') return of(`outside:${item.frame.event}`);
      return item.frames.pipe(
        assembleChunks({ dialect: 'openai-realtime' }),
        groupToolCallsByIndex(),
        finalizeCompletion(),
        map((completion) => `${item.responseId ?? '?'} ${completion.content ?? ''}`),
        catchError((caught: Error & { reason?: string; partial?: unknown }) => {
          const partial = isCompletionSnapshot(caught.partial) ? (caught.partial.content ?? '') : '-';
          return of(`${item.responseId ?? '?'} ${caught.name} ${caught.reason ?? ''} ${partial}`);
        }),
      );
    }),
  );
}

describe('realtimeSocketReplies', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    next = 0;
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it("splits a session into one reply per response, two of them overlapping, and passes the session's own events on outside", () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abcdefghi|', {
        a: text(sessionCreated()),
        b: text(created('resp_A')),
        c: text(created('resp_OOB')),
        d: text(textDelta('resp_A', 'item_A', 'Hello')),
        e: text(textDelta('resp_OOB', 'item_B', 'summary')),
        f: text(speechStarted()),
        g: text(textDelta('resp_A', 'item_A', ' there')),
        h: text(done('resp_OOB')),
        i: text(done('resp_A')),
      });
      expectObservable(outcomes(socket.pipe(realtimeSocketReplies()))).toBe('a----f-hi|', {
        a: 'outside:session.created',
        f: 'outside:input_audio_buffer.speech_started',
        h: 'resp_OOB summary',
        i: 'resp_A Hello there',
      });
    });
  });

  it("makes a reply cut before its response.done a StreamClosedEarlyError with its partial, an error event the session's", () => {
    scheduler.run(({ cold, expectObservable }) => {
      const socket = cold('abc|', { a: text(created('resp_A')), b: text(error()), c: text(textDelta('resp_A', 'item_A', 'Hal')) });
      expectObservable(outcomes(socket.pipe(realtimeSocketReplies()))).toBe('-b-(x|)', {
        b: 'outside:error',
        x: 'resp_A StreamClosedEarlyError no-end-signal Hal',
      });
    });
  });
});

describe('realtimeSocketReplies: what the operator does not hold', () => {
  it("routes nothing of a response it never saw begin: its events are the session's", () => {
    const seen: string[] = [];
    of(text(textDelta('resp_X', 'item_X', 'stray')), text(done('resp_X')))
      .pipe(realtimeSocketReplies())
      .subscribe((item) => seen.push(item.kind === 'outside' ? `outside:${item.frame.event}` : 'reply'));
    expect(seen).toEqual(['outside:response.output_text.delta', 'outside:response.done']);
  });

  it('completes with a socket that closed before any message, with no reply', () => {
    const seen: unknown[] = [];
    EMPTY.pipe(realtimeSocketReplies()).subscribe({ next: (item) => seen.push(item), complete: () => seen.push('complete') });
    expect(seen).toEqual(['complete']);
  });
});
