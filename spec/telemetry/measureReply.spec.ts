import { lastValueFrom, of, tap, throwError, concat } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { MAX_KEPT_GAPS, ReplyClock, type ReplyTimings } from '../../src/telemetry/ReplyClock';
import { measureReply } from '../../src/telemetry/measureReply';
import type { ChatEvent } from '../../src/types/events';

// The reply's timings without OpenTelemetry, in virtual time: every figure below is worked out by
// hand from the marble's frames (1 ms each inside `run`).

const events: Record<string, ChatEvent> = {
  s: { type: 'start', id: 'chatcmpl-1', model: 'm' },
  a: { type: 'content', choice: 0, text: 'Hel' },
  b: { type: 'reasoning', choice: 0, text: 'lo' },
  c: { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'f', arguments: '{}' },
  u: { type: 'usage', usage: { promptTokens: 5, completionTokens: 30, totalTokens: 35 } },
  f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
  d: { type: 'done' },
};

function measured(marble: string, unsubscribe?: string): { timings: ReplyTimings[]; emitted: ReplyTimings[]; scheduler: TestScheduler } {
  const timings: ReplyTimings[] = [];
  const emitted: ReplyTimings[] = [];
  const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  scheduler.run(({ cold, expectObservable }) => {
    const cut = new Error('cut');
    const source = cold(marble, events, cut);
    // The events pass on unchanged, at the same frames; at the end of the reply (not when the
    // subscriber leaves), the timings follow them, in the frame of the completion or the error.
    const output = unsubscribe === undefined ? marble.replace(/\|$/, '(T|)').replace(/#$/, '(T#)') : marble;
    const measured$ = source.pipe(
      measureReply({ onTimings: (t) => timings.push(t), now: () => scheduler.now() }),
      tap((event) => {
        if (event.type === 'reply-timings') emitted.push(event.timings);
      }),
    );
    expectObservable(measured$, unsubscribe).toBe(output, { ...events, T: { type: 'reply-timings', timings: expect.anything() } }, cut);
  });
  return { timings, emitted, scheduler };
}

describe('measureReply', () => {
  it('gives the time to the first chunk, the gaps between chunks, the duration and the output tokens per second', () => {
    // s at 100, a at 110, b at 130, c at 180, u f d at 190-192, complete at 193.
    const { timings, emitted } = measured('100ms s 9ms a 19ms b 49ms c 9ms ufd|');
    expect(emitted).toEqual(timings);
    expect(timings).toEqual([
      {
        timeToFirstChunkMs: 110,
        chunks: 3,
        gapP50Ms: (20 + 50) / 2,
        gapMaxMs: 50,
        durationMs: 193,
        outputTokens: 30,
        outputTokensPerSecond: 30 / ((193 - 110) / 1000),
      },
    ]);
  });

  it('measures a cut reply up to its error, with what arrived', () => {
    // a at 10, a at 15, a at 40, the error at 41.
    const { timings, emitted } = measured('10ms a 4ms a 24ms a #');
    expect(emitted).toEqual(timings);
    expect(timings).toEqual([
      {
        timeToFirstChunkMs: 10,
        chunks: 3,
        gapP50Ms: (5 + 25) / 2,
        gapMaxMs: 25,
        durationMs: 41,
        outputTokens: null,
        outputTokensPerSecond: null,
      },
    ]);
  });

  it('measures a reply its subscriber left, up to the unsubscribe', () => {
    const { timings, emitted } = measured('5ms a 9ms a', '^ 59ms !');
    // Nobody reads a reply its subscriber left: onTimings is told, no event follows.
    expect(emitted).toEqual([]);
    expect(timings).toEqual([
      { timeToFirstChunkMs: 5, chunks: 2, gapP50Ms: 10, gapMaxMs: 10, durationMs: 60, outputTokens: null, outputTokensPerSecond: null },
    ]);
  });

  it('counts no chunk for a stream that only says where it is: no first chunk, no gap', () => {
    // s at 0, u f d at 100-102, complete at 103.
    const { timings } = measured('s 99ms u f d|');
    expect(timings).toEqual([
      {
        timeToFirstChunkMs: null,
        chunks: 0,
        gapP50Ms: null,
        gapMaxMs: null,
        durationMs: 103,
        outputTokens: 30,
        outputTokensPerSecond: null,
      },
    ]);
  });

  it('puts the timings on the Completion through finalizeCompletion, and on the partial of a cut reply', async () => {
    // A clock that moves 10 ms at each reading: the subscription at 0, each chunk 10 ms after the one before.
    let clock = 0;
    const now = () => (clock += 10);
    const reply: ChatEvent[] = [events['s']!, events['a']!, events['a']!, events['u']!, events['f']!, events['d']!];
    const completion = await lastValueFrom(of(...reply).pipe(measureReply({ now }), finalizeCompletion()));
    // Readings: 10 the subscription, 20 and 30 the two chunks, 40 the end.
    expect(completion.replyTimings).toEqual({
      timeToFirstChunkMs: 10,
      chunks: 2,
      gapP50Ms: 10,
      gapMaxMs: 10,
      durationMs: 30,
      outputTokens: 30,
      outputTokensPerSecond: 30 / (20 / 1000),
    });
    expect(completion.content).toBe('HelHel');

    clock = 0;
    // The body's connection reset after one chunk: the transport's error, with the reply so far as its partial.
    const cut = concat(
      of(events['s']!, events['a']!),
      throwError(() => new StreamClosedEarlyError('the connection failed', { reason: 'transport' })),
    );
    const error = await lastValueFrom(cut.pipe(measureReply({ now }), finalizeCompletion())).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    const partial = (error as StreamClosedEarlyError).partial as { replyTimings?: ReplyTimings; content?: string };
    expect(partial.content).toBe('Hel');
    // Readings: 10 the subscription, 20 the chunk, 30 the error.
    expect(partial.replyTimings).toMatchObject({ timeToFirstChunkMs: 10, chunks: 1, durationMs: 20 });
  });

  it('starts afresh at each subscription (a retry measures the new request)', () => {
    const timings: ReplyTimings[] = [];
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, flush }) => {
      const measured$ = cold('20ms a|', events).pipe(measureReply({ onTimings: (t) => timings.push(t), now: () => scheduler.now() }));
      measured$.subscribe();
      scheduler.schedule(() => measured$.subscribe(), 100);
      flush();
    });
    expect(timings.map((t) => t.timeToFirstChunkMs)).toEqual([20, 20]);
  });
});

describe('ReplyClock', () => {
  const chunk: ChatEvent = { type: 'content', choice: 0, text: 'x' };

  it('takes the median of an odd number of gaps, in any order they came', () => {
    const clock = new ReplyClock(0);
    let at = 0;
    // Six chunks, five gaps: 7, 1, 9, 3, 5.
    for (const gap of [0, 7, 1, 9, 3, 5]) clock.event(chunk, () => (at += gap));
    expect(clock.end(at)).toMatchObject({ chunks: 6, gapP50Ms: 5, gapMaxMs: 9 });
  });

  it('finds the median of many gaps, odd and even counts, ties included, as a sort would', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 40;
    for (const count of [2, 3, 10, 11, 100, 1001, 4000]) {
      const gaps = Array.from({ length: count }, () => Math.round(random()));
      const clock = new ReplyClock(0);
      let at = 0;
      clock.event(chunk, () => at);
      for (const gap of gaps) clock.event(chunk, () => (at += gap));
      const sorted = [...gaps].sort((a, b) => a - b);
      const half = count >> 1;
      const expected = count % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
      expect(clock.end(at).gapP50Ms).toBe(expected);
    }
  });

  it('holds a capped sample of the gaps of a long reply, and still finds its median and its longest gap', () => {
    const clock = new ReplyClock(0);
    let at = 0;
    const chunks = MAX_KEPT_GAPS * 8;
    clock.event(chunk, () => at);
    // Every gap is 2 ms but one of 5 s, near the end.
    for (let i = 1; i < chunks; i++) clock.event(chunk, () => (at += i === chunks - 10 ? 5000 : 2));
    const timings = clock.end(at);
    expect(timings).toMatchObject({ chunks, gapP50Ms: 2, gapMaxMs: 5000 });
  });

  it('reports each gap after the first chunk, and -1 for the first chunk and for what is not a chunk', () => {
    const clock = new ReplyClock(0);
    expect(clock.event({ type: 'start', id: 'x', model: null }, () => 1)).toBe(-1);
    expect(clock.event(chunk, () => 3)).toBe(-1);
    expect(clock.event(chunk, () => 10)).toBe(7);
    expect(clock.event({ type: 'done' }, () => 11)).toBe(-1);
  });
});
