import { Observable, from, of, take, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { SseFrame } from '../src/frames/SseParser';
import { ProtocolError, ProviderError, StreamClosedEarlyError, StreamIdleError } from '../src/errors/errors';
import { isFinalFrame, resumeFrames } from '../src/io/resumeFrames';

/** A frame with id `id` (persisted as the parser would give it) and an optional `retry`. */
const frame = (id: string, data: string, retry?: number): SseFrame =>
  retry === undefined ? { event: 'message', data, id } : { event: 'message', data, id, retry };

const values = {
  a: frame('1', 'A'),
  b: frame('2', 'B'),
  c: frame('3', 'C'),
  d: frame('4', '[DONE]'),
  n: frame('', 'no id'),
  m: frame('', 'no id either'),
  z: frame('', '[DONE]'),
  r: frame('1', 'A', 20), // the server set `retry: 20`
  R: frame('2', 'B', 20),
};

const reset = new Error('socket hang up');

describe('resumeFrames', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  /** A `connect` that hands out the given observables in turn and records the ids it was given. */
  function connections(...attempts: Observable<SseFrame>[]): {
    connect: (id: string | undefined) => Observable<SseFrame>;
    ids: (string | undefined)[];
  } {
    const ids: (string | undefined)[] = [];
    return {
      ids,
      connect(id) {
        ids.push(id);
        const next = attempts[ids.length - 1];
        if (next === undefined) throw new Error(`connect was called ${ids.length} times`);
        return next;
      },
    };
  }

  describe('a stream that needs no reconnection', () => {
    it('passes every frame through and completes with the connection after the final frame', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const first = cold('a-b-c-d|', values);
        const { connect, ids } = connections(first);
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b-c-d|', values);
        testScheduler.flush();
        expectSubscriptions(first.subscriptions).toBe('^------!');
        expect(ids).toEqual([undefined]);
      });
    });

    it('an empty stream from a server without ids completes as it is', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('|'));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('|');
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('a connection that never ends is never replaced', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b-', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b-', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });
  });

  describe('reconnecting', () => {
    it('reconnects with the last id after a reset, and skips the frames it already delivered', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const first = cold('a-b-#', values, reset); //          reset at 4
        const second = cold('a-b-c-d|', values); //             subscribed at 4 + 5 = 9
        const expected = '  a-b 10ms c-d|';
        const { connect, ids } = connections(first, second);
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe(expected, values);
        testScheduler.flush();
        expectSubscriptions(first.subscriptions).toBe('^---!');
        expectSubscriptions(second.subscriptions).toBe('---------^------!');
        expect(ids).toEqual([undefined, '2']);
      });
    });

    it('a server that honours the id sends only the rest, which passes as it comes', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b-#', values, reset), cold('c-d|', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b------c-d|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2']);
      });
    });

    it('reconnects when the connection completes cleanly before the final frame', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b|', values), cold('c-d|', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b-----c-d|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2']);
      });
    });

    it('reconnects after a StreamClosedEarlyError (a body cut mid-line) and a StreamIdleError (a stall)', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(
          cold('a-#', values, new StreamClosedEarlyError('the stream ended mid-line')),
          cold('b-#', values, new StreamIdleError('the stream was idle for 10 ms after 1 value')),
          cold('c-d|', values),
        );
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a------b------c-d|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '1', '2']);
      });
    });

    it('treats a throw from connect like a failed connection', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        let calls = 0;
        const connect = (): Observable<SseFrame> => {
          calls++;
          if (calls === 1) return cold('a-#', values, reset);
          if (calls === 2) throw new TypeError('fetch failed');
          return cold('b-d|', values);
        };
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a 11ms b-d|', values);
        testScheduler.flush();
        expect(calls).toBe(3);
      });
    });

    it('keeps the resume point across a new connection whose first frames carry no id yet', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        // The second connection's parser starts without an id: `n` arrives with id ''. The point to
        // resume from is still '2', as in EventSource, which keeps its last event id.
        const { connect, ids } = connections(cold('a-b-#', values, reset), cold('n-#', values, reset), cold('c-d|', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b------n------c-d|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2', '2']);
      });
    });

    it('delivers every frame that shares a persisted id on one connection', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        // The server numbers only some events: the frames after `id: 7` inherit it until `id: 8`.
        const shared = {
          x: frame('7', 'x'),
          y: frame('7', 'y, with no id line of its own'),
          w: frame('8', 'w'),
          z: frame('8', '[DONE]'),
        };
        const { connect, ids } = connections(cold('x-y-#', shared, reset), cold('w-z|', shared));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('x-y------w-z|', shared);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '7']);
      });
    });
  });

  describe('the wait before reconnecting', () => {
    it("is the server's retry when it sent one, not delayMs", () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect } = connections(cold('r-#', values, reset), cold('b-d|', values));
        // reset at 2, reconnect at 2 + 20 = 22
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('r 21ms b-d|', values);
      });
    });

    it('is delayMs when the server never sent retry', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect } = connections(cold('a-#', values, reset), cold('b-d|', values));
        expectObservable(resumeFrames(connect, { delayMs: 7 })).toBe('a 8ms b-d|', values);
      });
    });

    it("keeps the server's retry from an earlier connection", () => {
      testScheduler.run(({ cold, expectObservable }) => {
        // The second connection sets no retry of its own; the 20 ms the first one set still holds.
        const { connect } = connections(cold('r-#', values, reset), cold('b-#', values, reset), cold('c-d|', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('r 21ms b 21ms c-d|', values);
      });
    });

    it('grows by the backoff factor for each reconnection in a row that delivers nothing new', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(
          cold('a-#', values, reset),
          cold('#', values, reset),
          cold('#', values, reset),
          cold('b-d|', values),
        );
        // reset at 2; waits 10, 20, 40: connections at 12, 32, 72
        expectObservable(resumeFrames(connect, { delayMs: 10, backoff: 2 })).toBe('a 71ms b-d|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '1', '1', '1']);
      });
    });

    it('starts again from the base wait after a connection that delivered a new frame', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect } = connections(
          cold('a-#', values, reset),
          cold('#', values, reset),
          cold('b-#', values, reset),
          cold('c-d|', values),
        );
        // reset at 2 → wait 10 → 12 fails → wait 20 → 32: b, reset at 34 → wait 10 (not 40) → 44: c, d
        expectObservable(resumeFrames(connect, { delayMs: 10, backoff: 2 })).toBe('a 31ms b 11ms c-d|', values);
      });
    });
  });

  describe('giving up', () => {
    it('after maxAttempts reconnections without a new frame, with the original error', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const refused = new TypeError('connect ECONNREFUSED 127.0.0.1:443');
        const { connect, ids } = connections(
          cold('a-b-#', values, reset),
          cold('#', values, refused),
          cold('#', values, refused),
          cold('#', values, refused),
        );
        // reset at 4; three attempts at 9, 14, 19, each refused; then the reset, not the refusal
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 3 })).toBe('a-b 16ms #', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2', '2', '2']);
      });
    });

    it('counts only attempts in a row: a connection that delivers a new frame resets the count', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(
          cold('a-#', values, reset),
          cold('b-#', values, reset), // new frame: the count starts again
          cold('c-#', values, reset),
          cold('(d|)', values),
        );
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 1 })).toBe('a------b------c------(d|)', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '1', '2', '3']);
      });
    });

    it('a replay of frames already delivered is not progress', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        // The server ignores the id, replays from the start and drops at the same place each time.
        const { connect, ids } = connections(cold('a-b-#', values, reset), cold('a-b-#', values, reset), cold('a-b-#', values, reset));
        // reset at 4; attempts at 9 (replays a, b, reset at 13) and 18 (the same, at 22)
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 2 })).toBe('a-b 19ms #', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2', '2']);
      });
    });

    it('after an early clean end, completes when the attempts run out, as the stream would have without it', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b|', values), cold('#', values, reset));
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 1 })).toBe('a-b 5ms |', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '2']);
      });
    });

    it('maxAttempts 0 never reconnects', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b-#', values, reset));
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 0 })).toBe('a-b-#', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });
  });

  describe('what is never reconnected', () => {
    it('a server that sets no ids: its error passes through as is, and connect is called once', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('n-m-#', values, reset));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('n-m-#', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('a server that sets no ids and ends early: it completes as is, for assembleChunks to report', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('n-m|', values));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('n-m|', values);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('a server that cleared its id with an empty id line on the same connection', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-n-#', values, reset));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-n-#', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it.each([
      ['ProviderError', new ProviderError('the provider answered HTTP 503', { status: 503 })],
      ['ProtocolError', new ProtocolError('expected a streamed body, got text/html')],
    ])('a %s: the server answered, so it passes through at once', (_name, error) => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-b-#', values, error));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-b-#', values, error);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('a ProviderError on a reconnection (the server refuses to resume) passes through', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const refusal = new ProviderError('the provider answered HTTP 404', { status: 404 });
        const { connect, ids } = connections(cold('a-#', values, reset), cold('#', values, refusal));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a------#', values, refusal);
        testScheduler.flush();
        expect(ids).toEqual([undefined, '1']);
      });
    });

    it('a connection that fails after the final frame: the stream had ended, its error passes through', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const { connect, ids } = connections(cold('a-d-#', values, reset));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-d-#', values, reset);
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('an error thrown by isFinal is an error, never a reason to reconnect', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const bug = new RangeError('bug in isFinal');
        const first = cold('a-b-c|', values);
        const { connect, ids } = connections(first);
        const isFinal = (f: SseFrame): boolean => {
          if (f.id === '2') throw bug;
          return false;
        };
        expectObservable(resumeFrames(connect, { delayMs: 5, isFinal })).toBe('a-#', values, bug);
        testScheduler.flush();
        expectSubscriptions(first.subscriptions).toBe('^-!');
        expect(ids).toEqual([undefined]);
      });
    });
  });

  describe('isFinal', () => {
    it('a custom test decides where the stream ends', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const last: SseFrame = { event: 'bye', data: '{}', id: '3' };
        const { connect, ids } = connections(cold('a-c|', { a: values.a, c: last }));
        const isFinal = (f: SseFrame): boolean => f.event === 'bye';
        expectObservable(resumeFrames(connect, { delayMs: 5, isFinal })).toBe('a-c|', { a: values.a, c: last });
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it('without it, a format no dialect declares is resumed, since nothing said it was over', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const last: SseFrame = { event: 'bye', data: '{}', id: '3' };
        const { connect, ids } = connections(cold('a-c|', { a: values.a, c: last }), cold('|'));
        expectObservable(resumeFrames(connect, { delayMs: 5, maxAttempts: 1 })).toBe('a-c 5ms |', { a: values.a, c: last });
        testScheduler.flush();
        expect(ids).toEqual([undefined, '3']);
      });
    });

    it("the default knows the end each dialect declares: Gemini's finishing chunk ends the stream, nothing is resumed", () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const last = frame('3', '{"candidates":[{"finishReason":"STOP"}]}');
        const { connect, ids } = connections(cold('a-c|', { a: values.a, c: last }));
        expectObservable(resumeFrames(connect, { delayMs: 5 })).toBe('a-c|', { a: values.a, c: last });
        testScheduler.flush();
        expect(ids).toEqual([undefined]);
      });
    });

    it.each([
      ['[DONE]', { event: 'message', data: '[DONE]', id: '9' }],
      ['Anthropic message_stop by event name', { event: 'message_stop', data: '{"type":"message_stop"}', id: '9' }],
      ['Anthropic message_stop without its event line', { event: 'message', data: '{"type":"message_stop"}', id: '9' }],
      ['Responses response.completed', { event: 'response.completed', data: '{"type":"response.completed","response":{}}', id: '9' }],
      [
        'Responses response.incomplete (payload type)',
        { event: 'message', data: '{"type": "response.incomplete", "response": {}}', id: '9' },
      ],
      ['Responses response.failed', { event: 'response.failed', data: '{}', id: '9' }],
      ['an error event', { event: 'error', data: '{"type":"error","error":{"type":"overloaded_error"}}', id: '9' }],
      ['an OpenAI error payload', { event: 'message', data: '{"error":{"message":"server error"}}', id: '9' }],
      [
        'Gemini: every candidate finished',
        { event: 'message', data: '{"candidates":[{"finishReason":"STOP","index":0},{"finishReason":"MAX_TOKENS","index":1}]}', id: '9' },
      ],
      ['Gemini: a prompt blocked before any candidate', { event: 'message', data: '{"promptFeedback":{"blockReason":"SAFETY"}}', id: '9' }],
      ['Ollama: the done line', { event: 'message', data: '{"model":"m","done":true,"done_reason":"stop"}', id: '' }],
      ['llama.cpp /completion: the stop chunk', { event: 'message', data: '{"content":"","stop":true,"stop_type":"eos"}', id: '9' }],
      ['this library: the done event', { event: 'done', data: '{"type":"done"}', id: '9' }],
    ])('isFinalFrame recognizes %s', (_name, f) => {
      expect(isFinalFrame(f)).toBe(true);
    });

    it.each([
      ['a content delta', { event: 'message', data: '{"choices":[{"delta":{"content":"[DONE]"}}]}', id: '9' }],
      ['text that mentions a final type', { event: 'message', data: '{"delta":{"text":"\\"type\\":\\"message_stop\\""}}', id: '9' }],
      [
        'Responses response.created with a nested "error": null',
        { event: 'response.created', data: '{"type":"response.created","response":{"error":null}}', id: '9' },
      ],
      ['a top-level "error": null', { event: 'message', data: '{"id":"x","error":null}', id: '9' }],
      ['message_delta', { event: 'message_delta', data: '{"type":"message_delta"}', id: '9' }],
      ['a payload that is not JSON', { event: 'message', data: '{"error": oops', id: '9' }],
      [
        'Gemini: one candidate of two finished',
        { event: 'message', data: '{"candidates":[{"finishReason":"STOP","index":0},{"index":1}]}', id: '9' },
      ],
      ['Ollama: a line before the last', { event: 'message', data: '{"model":"m","message":{"content":"done"},"done":false}', id: '' }],
      ['llama.cpp /completion: a chunk before the last', { event: 'message', data: '{"content":"stop","stop":false}', id: '9' }],
      ['an event named done that carries something else', { event: 'done', data: '{"type":"content"}', id: '9' }],
    ])('isFinalFrame is false for %s', (_name, f) => {
      expect(isFinalFrame(f)).toBe(false);
    });
  });

  describe('unsubscribing', () => {
    it('during the wait cancels the pending reconnection: connect is never called again', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const first = cold('a-b-#', values, reset);
        const { connect, ids } = connections(first, cold('c-d|', values));
        // reset at 4, reconnection due at 9, unsubscribed at 7
        expectObservable(resumeFrames(connect, { delayMs: 5 }), '^------!').toBe('a-b-----', values);
        testScheduler.flush();
        expectSubscriptions(first.subscriptions).toBe('^---!');
        expect(ids).toEqual([undefined]);
      });
    });

    it('closes the current connection, also a reconnected one', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const first = cold('a-#', values, reset);
        const second = cold('b---c-d|', values);
        const { connect } = connections(first, second);
        expectObservable(resumeFrames(connect, { delayMs: 5 }), '^---------!').toBe('a------b--', values);
        expectSubscriptions(second.subscriptions).toBe('-------^--!');
      });
    });

    it('stops a synchronous source when unsubscribed (take after it)', () => {
      let emitted = 0;
      const source = new Observable<SseFrame>((subscriber) => {
        for (let i = 1; i <= 100 && !subscriber.closed; i++) {
          emitted++;
          subscriber.next(frame(String(i), `data ${i}`));
        }
        subscriber.complete();
      });
      const seen: string[] = [];
      resumeFrames(() => source)
        .pipe(take(3))
        .subscribe((f) => seen.push(f.id));
      expect(seen).toEqual(['1', '2', '3']);
      expect(emitted).toBe(3);
    });

    it('starts from scratch for each subscriber (no ids shared between subscriptions)', () => {
      const ids: (string | undefined)[] = [];
      const stream = resumeFrames((id) => {
        ids.push(id);
        return from([values.a, values.b, values.d]);
      });
      const first: string[] = [];
      const second: string[] = [];
      stream.subscribe((f) => first.push(f.data));
      stream.subscribe((f) => second.push(f.data));
      expect(first).toEqual(['A', 'B', '[DONE]']);
      expect(second).toEqual(['A', 'B', '[DONE]']);
      expect(ids).toEqual([undefined, undefined]);
    });
  });

  describe('options', () => {
    it.each([
      [{ maxAttempts: -1 }, 'resumeFrames: maxAttempts must be a whole number, got -1'],
      [{ maxAttempts: 1.5 }, 'resumeFrames: maxAttempts must be a whole number, got 1.5'],
      [{ delayMs: Number.NaN }, 'resumeFrames: delayMs must be a finite number >= 0, got NaN'],
      [{ backoff: 0.5 }, 'resumeFrames: backoff must be a finite number >= 1, got 0.5'],
    ])('refuses %j', (options, message) => {
      expect(() => resumeFrames(() => of(values.d), options)).toThrow(new TypeError(message));
    });

    it('uses asyncScheduler by default (a real wait of delayMs)', async () => {
      const started = performance.now();
      let calls = 0;
      const outcome = await new Promise<string[]>((resolve, reject) => {
        const seen: string[] = [];
        resumeFrames(
          () =>
            ++calls === 1
              ? new Observable<SseFrame>((s) => {
                  s.next(values.a);
                  s.error(reset);
                })
              : of(values.b, values.d),
          { delayMs: 30 },
        ).subscribe({ next: (f) => seen.push(f.data), error: reject, complete: () => resolve(seen) });
      });
      expect(outcome).toEqual(['A', 'B', '[DONE]']);
      expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    });

    it('a synchronous error with no ids surfaces synchronously', () => {
      const errors: unknown[] = [];
      resumeFrames(() => throwError(() => reset)).subscribe({ error: (e: unknown) => errors.push(e) });
      expect(errors).toEqual([reset]);
    });
  });
});
