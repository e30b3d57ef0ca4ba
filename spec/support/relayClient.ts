import { Observable, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ChatEvent } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { fromResponse } from '../../src/io/fromResponse';
import { sseFrames } from '../../src/frames/sseFrames';
import { collect, Outcome } from './collect';
import { FakeReply, fakeMessages } from './fakeUpstream';

// A client of the relay's HTTP contract, reading with this library.

/** A response's SSE frames, and its status and stream id once they are known. */
export interface SseReading {
  readonly frames$: Observable<SseFrame>;
  readonly head: Promise<{ status: number; streamId: string | null }>;
}

/**
 * The session cookie each stream was started with: the example lets only the session that started a
 * stream resume or stop it, so `resume` and `stopChat` send the starter's cookie for that stream.
 */
const sessions = new Map<string, string>();

/** The cookie header of the session that started `streamId` (none for a stream this client never started). */
export function sessionCookieOf(streamId: string): Record<string, string> {
  const cookie = sessions.get(streamId);
  return cookie === undefined ? {} : { cookie };
}

/** Reads `url` as an event stream (`fromFetch`: unsubscribing aborts the request). */
export function readSse(url: string, init: RequestInit = {}): SseReading {
  let told: (head: { status: number; streamId: string | null }) => void = () => undefined;
  const head = new Promise<{ status: number; streamId: string | null }>((resolve) => (told = resolve));
  const frames$ = fromFetch(url, {
    ...init,
    selector: (response) => {
      const streamId = response.headers.get('x-stream-id');
      const session = /^(relay-session=[^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      if (streamId !== null && session !== undefined) sessions.set(streamId, session);
      told({ status: response.status, streamId });
      return fromResponse(response, { contentTypes: 'any' });
    },
  }).pipe(decodeUtf8(), sseFrames());
  return { frames$, head };
}

/** `POST /chat` with a reply for the fake upstream. */
export function postChat(baseUrl: string, reply: FakeReply, query = ''): SseReading {
  return readSse(`${baseUrl}/chat${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: fakeMessages(reply) }),
  });
}

/** `POST /chat/:id/stop`, as the session that started it; answers the status. */
export async function stopChat(baseUrl: string, streamId: string): Promise<number> {
  return (await fetch(`${baseUrl}/chat/${streamId}/stop`, { method: 'POST', headers: sessionCookieOf(streamId) })).status;
}

/** `GET /chat/:id/stream`, after `lastEventId` when given. */
export function resume(baseUrl: string, streamId: string, lastEventId?: string, query = ''): SseReading {
  return readSse(`${baseUrl}/chat/${streamId}/stream${query}`, {
    headers: { ...sessionCookieOf(streamId), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
  });
}

/** The first `n` frames, then the connection dropped. */
export function firstFrames(reading: SseReading, n: number): Promise<SseFrame[]> {
  return lastValueFrom(reading.frames$.pipe(take(n), toArray()));
}

/** Every frame to the response's end. */
export function allFrames(reading: SseReading): Promise<SseFrame[]> {
  return lastValueFrom(reading.frames$.pipe(toArray()), { defaultValue: [] });
}

/** Resolves once the reading delivered its first frame. */
export function firstFrame(reading: SseReading): Promise<SseFrame> {
  return firstValueFrom(reading.frames$);
}

/** The ChatEvents of frames (the `error` one aside). */
export function eventsOf(frames: readonly SseFrame[]): ChatEvent[] {
  return frames.filter((frame) => frame.event !== 'error').map((frame) => JSON.parse(frame.data) as ChatEvent);
}

/** A client's fold of what the relay sends: the completion, or the error rebuilt with the completion so far. */
export function completionOf(reading: SseReading): Promise<Outcome<unknown>> {
  return collect(reading.frames$.pipe(assembleChunks({ dialect: 'chat-events' }), finalizeCompletion()));
}
