import { Observable, VirtualTimeScheduler, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { StreamIdleError } from '../../src/errors/errors';
import { publicErrorData } from '../../src/errors/publicErrorData';
import { streamErrorData, errorFromStreamErrorData } from '../../src/errors/streamErrorData';
import { sseFrames } from '../../src/frames/sseFrames';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { isCompletionSnapshot } from '../../src/reply/isCompletionSnapshot';
import { CONTENT_EVENT_TYPES } from '../../src/timeouts/contentEvents';
import { replyTimeouts } from '../../src/timeouts/replyTimeouts';
import type { ChatEvent } from '../../src/types/events';

/** The events of the marbles: a start, a provider's ping kept as metadata, text, a finish, the end. */
const EVENTS: Record<string, ChatEvent> = {
  s: { type: 'start', id: 'r1', model: 'm' },
  p: { type: 'provider-metadata', provider: 'anthropic', fields: { ping: true } },
  u: { type: 'usage', usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 } },
  a: { type: 'content', choice: 0, text: 'Hel' },
  b: { type: 'content', choice: 0, text: 'lo' },
  r: { type: 'reasoning', choice: 0, text: 'hmm' },
  t: { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '{' },
  f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
  d: { type: 'done' },
};

/** The error a marble expects, built from its reason and message (marbles compare with toEqual). */
const idle = (reason: StreamIdleError['reason'], message: string): StreamIdleError => new StreamIdleError(message, { reason });

describe('replyTimeouts', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('passes every event through and completes with the source', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('s-a-b-f-d|', EVENTS);
      expectObservable(source.pipe(replyTimeouts({ firstContent: 10, betweenContent: 10, total: 100 }))).toBe('s-a-b-f-d|', EVENTS);
    });
  });

  it('fails a stream that pings forever and produces nothing: between-content', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('s 4ms p 4ms p 4ms p 4ms p 4ms p 4ms p 4ms p', EVENTS);
      const expected = '              s 4ms p 4ms p 4ms p 4ms p 1ms #';
      const error = idle(
        'between-content',
        'no content arrived within 22 ms of the start (betweenContent; 5 events arrived, none of them content)',
      );
      expectObservable(source.pipe(replyTimeouts({ betweenContent: 22 })), undefined).toBe(expected, EVENTS, error);
      expectSubscriptions(source.subscriptions).toBe('^ 21ms !');
    });
  });

  it('fails content followed by pings forever: between-content counts from the last content, not the last ping', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('a 4ms p 4ms p 4ms p 4ms p 4ms p', EVENTS);
      const expected = '              a 4ms p 4ms p 4ms p #';
      const error = idle('between-content', 'no content arrived for 16 ms after content event 1 (betweenContent; 4 events in all)');
      expectObservable(source.pipe(replyTimeouts({ betweenContent: 16 }))).toBe(expected, EVENTS, error);
    });
  });

  it('keeps a reply alive while content keeps coming, whatever kind of content', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('r 8ms a 8ms t 8ms b 8ms f 8ms d|', EVENTS);
      expectObservable(source.pipe(replyTimeouts({ betweenContent: 10 }))).toBe('r 8ms a 8ms t 8ms b 8ms f 8ms d|', EVENTS);
    });
  });

  it('fails with first-content before any content arrived, though pings and usage came', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('s 9ms p 9ms u 9ms p 9ms a', EVENTS);
      const expected = '              s 9ms p 9ms u 9ms #';
      const error = idle(
        'first-content',
        'no content arrived within 30 ms of the start (firstContent; 3 events arrived, none of them content)',
      );
      // betweenContent is shorter, but before the first content the first-content limit applies.
      expectObservable(source.pipe(replyTimeouts({ firstContent: 30, betweenContent: 5 }))).toBe(expected, EVENTS, error);
    });
  });

  it('switches to between-content once content arrived', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('20ms a 8ms b 20ms f', EVENTS);
      const expected = '              20ms a 8ms b 9ms #';
      const error = idle('between-content', 'no content arrived for 10 ms after content event 2 (betweenContent; 2 events in all)');
      expectObservable(source.pipe(replyTimeouts({ firstContent: 30, betweenContent: 10 }))).toBe(expected, EVENTS, error);
    });
  });

  it('fails with total mid-stream, though content keeps coming', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('a 4ms b 4ms a 4ms b 4ms a 4ms b 4ms f', EVENTS);
      const expected = '              a 4ms b 4ms a 4ms b 4ms a 1ms #';
      const error = idle('total', 'the reply ran past its total limit of 22 ms (5 events, 5 of them content)');
      expectObservable(source.pipe(replyTimeouts({ betweenContent: 10, total: 22 }))).toBe(expected, EVENTS, error);
      expectSubscriptions(source.subscriptions).toBe('^ 21ms !');
    });
  });

  it('starts every limit afresh on a resubscribe', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('a 30ms b', EVENTS);
      const timed = source.pipe(replyTimeouts({ betweenContent: 10 }));
      const error = idle('between-content', 'no content arrived for 10 ms after content event 1 (betweenContent; 1 event in all)');
      expectObservable(timed).toBe('a 9ms #', EVENTS, error);
      expectObservable(timed, '20ms ^').toBe('20ms a 9ms #', EVENTS, error);
    });
  });

  it('clears its timer when unsubscribed, when the source completes and when it fails', () => {
    const scheduler = new VirtualTimeScheduler();
    const never = new Observable<ChatEvent>(() => undefined);
    const operator = replyTimeouts<ChatEvent>({ firstContent: 50, betweenContent: 10, total: 1_000, scheduler });
    const subscription = never.pipe(operator).subscribe();
    expect(scheduler.actions).toHaveLength(1);
    subscription.unsubscribe();
    expect(scheduler.actions).toHaveLength(0);

    const errors: unknown[] = [];
    new Observable<ChatEvent>((subscriber) => subscriber.complete()).pipe(operator).subscribe({ error: (e: unknown) => errors.push(e) });
    new Observable<ChatEvent>((subscriber) => subscriber.error(new Error('upstream')))
      .pipe(operator)
      .subscribe({ error: (e: unknown) => errors.push(e) });
    expect(scheduler.actions).toHaveLength(0);
    scheduler.flush();
    expect(errors).toEqual([new Error('upstream')]);
  });

  it('gives the error the completion so far through finalizeCompletion', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('s a 3ms b 3ms p 3ms p 3ms p', EVENTS);
      const caught = source.pipe(
        replyTimeouts({ betweenContent: 8 }),
        finalizeCompletion(),
        map(() => 'completed'),
      );
      const partialText = new Observable<string>((subscriber) =>
        caught.subscribe({
          error: (error: unknown) => {
            const ok = error instanceof StreamIdleError && error.reason === 'between-content' && isCompletionSnapshot(error.partial);
            subscriber.next(ok && isCompletionSnapshot(error.partial) ? (error.partial.content ?? '') : 'wrong error');
            subscriber.complete();
          },
        }),
      );
      expectObservable(partialText).toBe('13ms (x|)', { x: 'Hello' });
    });
  });

  it('does not count SSE comments, empty frames or Anthropic pings read by the real layers', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const TEXT: Record<string, string> = {
        m:
          'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"claude","role":"assistant",' +
          '"content":[],"usage":{"input_tokens":3,"output_tokens":0}}}\n\n',
        c: ': keep-alive\n\n',
        e: '\n\n',
        g: 'event: ping\ndata: {"type":"ping"}\n\n',
      };
      const text$ = cold<string>('m 5ms c 5ms e 5ms g 5ms c 5ms g 5ms c', TEXT);
      const events$ = text$.pipe(sseFrames(), assembleChunks({ dialect: 'anthropic' }), replyTimeouts({ betweenContent: 20 }));
      const outcome = new Observable<string>((subscriber) =>
        events$.subscribe({
          error: (error: unknown) => {
            subscriber.next(error instanceof StreamIdleError ? error.reason : 'another error');
            subscriber.complete();
          },
          complete: () => subscriber.error(new Error('completed')),
        }),
      );
      expectObservable(outcome).toBe('20ms (r|)', { r: 'between-content' });
    });
  });

  it('refuses a limit that is not a positive number', () => {
    expect(() => replyTimeouts({ betweenContent: 0 })).toThrow(TypeError);
    expect(() => replyTimeouts({ total: -5 })).toThrow('replyTimeouts: total must be a positive number, got -5');
    expect(() => replyTimeouts({ firstContent: Number.NaN })).toThrow(TypeError);
  });

  it('counts as content what the model produces, and not what only says the stream is alive', () => {
    const content: ChatEvent['type'][] = ['content', 'reasoning', 'refusal', 'tool-call-delta', 'tool-call', 'audio', 'source', 'finish'];
    const notContent: ChatEvent['type'][] = ['start', 'progress', 'provider-metadata', 'unknown', 'logprobs', 'usage', 'timings', 'done'];
    expect(content.filter((type) => !CONTENT_EVENT_TYPES.has(type))).toEqual([]);
    expect(notContent.filter((type) => CONTENT_EVENT_TYPES.has(type))).toEqual([]);
  });

  it('crosses the relay with its reason', () => {
    const error = new StreamIdleError('no content arrived for 10 ms', { reason: 'between-content' });
    const rebuilt = errorFromStreamErrorData(JSON.parse(JSON.stringify(streamErrorData(error))));
    expect(rebuilt).toBeInstanceOf(StreamIdleError);
    expect(rebuilt.reason).toBe('between-content');
  });

  it('shows a browser a fixed message per kind of limit, never the message with its counts', () => {
    const shown = (reason: StreamIdleError['reason']): unknown =>
      publicErrorData(streamErrorData(new StreamIdleError('no content arrived for 10 ms after content event 3', { reason })));
    expect(shown('between-content')).toEqual({
      name: 'StreamIdleError',
      reason: 'between-content',
      message: 'the provider sent nothing for too long',
    });
    expect(shown('total')).toEqual({ name: 'StreamIdleError', reason: 'total', message: 'the reply took longer than its time limit' });
  });
});
