import { readFileSync } from 'fs';
import { join } from 'path';
import { Observable, Subject, concat, from, pipe, take, tap, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import * as v from 'valibot';
import { z } from 'zod';
import { assembleChunks } from '../src/reply/assembleChunks';
import { CompletionTracker } from '../src/reply/CompletionTracker';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { StreamClosedEarlyError, ToolArgumentsError } from '../src/errors/errors';
import { isLlmStreamError } from '../src/errors/isLlmStreamError';
import { ChatEvent, Completion, JsonValue, ToolCall, ToolCallEvent } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../src/frames/sseFrames';
import { ToolValidator } from '../src/reply/checkToolCall';
import { validateToolCalls } from '../src/reply/validateToolCalls';
import { chunksOf } from './support/chunking';
import { collect, runSync } from './support/collect';

/** The completion so far after `events`, as a tracker gives it. */
function snapshotOf(events: readonly ChatEvent[]) {
  const tracker = new CompletionTracker();
  for (const event of events) tracker.apply(event);
  return tracker.snapshot();
}

const delta = (index: number, args: string, id?: string, name?: string, choice = 0): ChatEvent => ({
  type: 'tool-call-delta',
  choice,
  index,
  ...(id === undefined ? {} : { id }),
  ...(name === undefined ? {} : { name }),
  arguments: args,
});
const finish = (choice = 0): ChatEvent => ({ type: 'finish', choice, reason: 'tool_calls', raw: 'tool_calls' });
const call = (index: number, id: string, name: string, args: string, parsed: JsonValue = JSON.parse(args) as JsonValue): ToolCall => ({
  index,
  id,
  name,
  arguments: args,
  args: parsed,
});
const toolCall = (toolCall: ToolCall, choice = 0): ToolCallEvent => ({ type: 'tool-call', choice, call: toolCall });

const weather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).default('celsius') });
const time = v.object({ tz: v.string() });

/** A promise settled from outside. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Lets every settled promise run its handlers. */
const flush = (): Promise<void> => new Promise((done) => setImmediate(done));

/** Subscribes and records everything, for sources driven by hand. */
function record<T>(source: Observable<T>) {
  const seen = { values: [] as T[], error: undefined as unknown, completed: false };
  const subscription = source.subscribe({
    next: (value) => seen.values.push(value),
    error: (error: unknown) => (seen.error = error),
    complete: () => (seen.completed = true),
  });
  return { seen, subscription };
}

const types = (events: readonly ChatEvent[]): string[] => events.map((e) => (e.type === 'tool-call' ? `tool-call:${e.call.id}` : e.type));

describe('validateToolCalls', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('over events', () => {
    it('passes a call that a zod schema accepts, at once, with the defaults it filled in as args', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<ChatEvent>('-a-b-f---|', {
          a: delta(0, '{"city":', 'call_a', 'get_weather'),
          b: delta(0, '"Pune"}'),
          f: finish(),
        });
        expectObservable(source.pipe(groupToolCallsByIndex(), validateToolCalls({ get_weather: weather }))).toBe('-a-b-(xf)|', {
          a: { ...delta(0, '{"city":', 'call_a', 'get_weather'), call: { id: 'call_a', name: 'get_weather', arguments: '{"city":' } },
          b: { ...delta(0, '"Pune"}'), call: { id: 'call_a', name: 'get_weather', arguments: '{"city":"Pune"}' } },
          // `arguments` keeps what the model wrote; `args` is the schema's output.
          x: toolCall(call(0, 'call_a', 'get_weather', '{"city":"Pune"}', { city: 'Pune', unit: 'celsius' })),
          f: finish(),
        });
        expectSubscriptions(source.subscriptions).toBe('^--------!');
      });
    });

    it('fails with ToolArgumentsError where the refused call would have been, and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<ChatEvent>('-a-f---c-|', {
          a: delta(0, '{"city":7}', 'call_a', 'get_weather'),
          f: finish(),
          c: { type: 'content', choice: 0, text: 'x' },
        });
        expectObservable(source.pipe(groupToolCallsByIndex(), validateToolCalls({ get_weather: weather }))).toBe(
          '-a-#',
          {
            a: { ...delta(0, '{"city":7}', 'call_a', 'get_weather'), call: { id: 'call_a', name: 'get_weather', arguments: '{"city":7}' } },
          },
          expect.any(ToolArgumentsError),
        );
        expectSubscriptions(source.subscriptions).toBe('^--!');
      });
    });

    it("gives the refused call, its choice, the schema's issues and the completion so far (zod)", () => {
      const { values, error } = runSync(
        [{ type: 'content', choice: 0, text: 'Checking.' }, delta(0, '{"city":7}', 'call_a', 'get_weather'), finish()] as ChatEvent[],
        pipe(groupToolCallsByIndex(), validateToolCalls({ get_weather: weather })),
      );
      expect(types(values)).toEqual(['content', 'tool-call-delta']);
      expect(error).toBeInstanceOf(ToolArgumentsError);
      const refused = error as ToolArgumentsError;
      expect(refused.name).toBe('ToolArgumentsError');
      expect(isLlmStreamError(refused)).toBe(true);
      expect(refused.message).toBe(
        'the arguments of tool call 0 of choice 0 (get_weather, call_a) ' +
          'were refused: city: Invalid input: expected string, received number',
      );
      expect(refused.call).toEqual(call(0, 'call_a', 'get_weather', '{"city":7}'));
      expect(refused.choice).toBe(0);
      expect(refused.issues).toEqual([
        expect.objectContaining({ path: ['city'], message: 'Invalid input: expected string, received number' }),
      ]);
      expect(refused.partial).toMatchObject({
        content: 'Checking.',
        finished: false,
        toolCalls: [{ index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":7}', complete: false }],
      });
    });

    it('reads valibot issues, whose path segments are objects with a key', () => {
      const { error } = runSync(
        [delta(0, '{"tz":7}', 'call_t', 'get_time'), finish()],
        pipe(groupToolCallsByIndex(), validateToolCalls({ get_time: time })),
      );
      expect((error as ToolArgumentsError).message).toBe(
        'the arguments of tool call 0 of choice 0 (get_time, call_t) were refused: tz: Invalid type: Expected string but received 7',
      );
      expect((error as ToolArgumentsError).issues).toEqual([
        expect.objectContaining({
          message: 'Invalid type: Expected string but received 7',
          path: [expect.objectContaining({ key: 'tz' })],
        }),
      ]);
    });

    it('replaces args with what a transform made (zod and valibot), and keeps the text as written', () => {
      const tools = {
        get_weather: z.object({ city: z.string() }).transform(({ city }) => ({ city: city.toUpperCase(), checked: true })),
        get_time: v.pipe(
          time,
          v.transform(({ tz }) => ({ tz, offset: tz === 'Asia/Tokyo' ? 9 : 0 })),
        ),
      };
      const { values, error } = runSync(
        [delta(0, '{"city":"pune"}', 'a', 'get_weather'), delta(1, '{"tz":"Asia/Tokyo"}', 'b', 'get_time'), finish()],
        pipe(groupToolCallsByIndex(), validateToolCalls(tools)),
      );
      expect(error).toBeUndefined();
      expect(values.filter((e) => e.type === 'tool-call')).toEqual([
        toolCall(call(0, 'a', 'get_weather', '{"city":"pune"}', { city: 'PUNE', checked: true })),
        toolCall(call(1, 'b', 'get_time', '{"tz":"Asia/Tokyo"}', { tz: 'Asia/Tokyo', offset: 9 })),
      ]);
    });

    describe('predicates', () => {
      it('passes a call when the predicate, given the parsed arguments, answers true', () => {
        const seen: JsonValue[] = [];
        const { values, error } = runSync(
          [delta(0, '{"q":"x"}', 'a', 'search'), finish()],
          pipe(groupToolCallsByIndex(), validateToolCalls({ search: (args) => (seen.push(args), true) })),
        );
        expect(error).toBeUndefined();
        expect(seen).toEqual([{ q: 'x' }]);
        expect(values[1]).toEqual(toolCall(call(0, 'a', 'search', '{"q":"x"}')));
      });

      it.each<[string, ToolValidator]>([
        ['false', () => false],
        ['a truthy value that is not true', () => 1 as never],
        ['a promise of false', () => Promise.resolve(false)],
      ])('refuses a call when the predicate answers %s, with one issue saying so', async (_name, predicate) => {
        const { error } = await collect(
          from([delta(0, '{}', 'a', 'search'), finish()]).pipe(groupToolCallsByIndex(), validateToolCalls({ search: predicate })),
        );
        expect(error).toBeInstanceOf(ToolArgumentsError);
        expect((error as ToolArgumentsError).issues).toEqual([{ message: 'the predicate of tool "search" refused these arguments' }]);
        expect((error as ToolArgumentsError).message).toBe(
          'the arguments of tool call 0 of choice 0 (search, a) were refused: the predicate of tool "search" refused these arguments',
        );
      });

      it('waits for a predicate that answers through a promise', async () => {
        const { values, error } = await collect(
          from([delta(0, '{}', 'a', 'search'), finish()]).pipe(groupToolCallsByIndex(), validateToolCalls({ search: async () => true })),
        );
        expect(error).toBeUndefined();
        expect(types(values)).toEqual(['tool-call-delta', 'tool-call:a', 'finish']);
      });

      it('ends the stream with what a validator threw', () => {
        const bug = new RangeError('validator bug');
        const { error } = runSync(
          [delta(0, '{}', 'a', 'search'), finish()],
          pipe(
            groupToolCallsByIndex(),
            validateToolCalls({
              search: () => {
                throw bug;
              },
            }),
          ),
        );
        expect(error).toBe(bug);
      });
    });

    describe('unknown tools', () => {
      it.each(['rm_rf', 'toString', 'constructor', '__proto__', 'hasOwnProperty'])(
        'refuses a call to %s, which the record does not name as its own',
        (name) => {
          const { values, error } = runSync(
            [delta(0, '{}', 'a', name), finish()],
            pipe(groupToolCallsByIndex(), validateToolCalls({ search: () => true })),
          );
          expect(types(values)).toEqual(['tool-call-delta']);
          expect(error).toBeInstanceOf(ToolArgumentsError);
          expect((error as ToolArgumentsError).issues).toEqual([{ message: `no tool named "${name}" was declared` }]);
        },
      );

      it('lets them through unchecked under allowUnknownTools', () => {
        const { values, error } = runSync(
          [delta(0, '{"x":1}', 'a', 'rm_rf'), finish()],
          pipe(groupToolCallsByIndex(), validateToolCalls({ search: () => false }, { allowUnknownTools: true })),
        );
        expect(error).toBeUndefined();
        expect(values[1]).toEqual(toolCall(call(0, 'a', 'rm_rf', '{"x":1}')));
      });
    });

    it('refuses to run without groupToolCallsByIndex in front, where no whole call would ever be checked', () => {
      const { error } = runSync([delta(0, '{}', 'a', 'search'), finish()], validateToolCalls<ChatEvent>({ search: () => true }));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        'validateToolCalls() over events needs groupToolCallsByIndex() before it: a tool-call-delta arrived without `call`',
      );
    });

    it('never checks a call cut off by the end of the stream, not even one whose text parses', () => {
      const bytes = new Uint8Array(readFileSync(join(__dirname, '..', 'marbles', 'openai', 'truncated-in-arguments.sse')));
      const checked: JsonValue[] = [];
      const { values, error } = runSync(
        chunksOf(bytes, 16),
        pipe(
          decodeUtf8(),
          sseFrames(),
          assembleChunks(),
          groupToolCallsByIndex(),
          validateToolCalls({ get_weather: (args) => (checked.push(args), true) }),
        ),
      );
      expect(checked).toEqual([]);
      expect(values.some((e) => e.type === 'tool-call')).toBe(false);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as StreamClosedEarlyError).partial).toMatchObject({
        toolCalls: [
          { index: 0, arguments: '{"city":"Oslo"}', complete: false },
          { index: 1, arguments: '{"city":"Bergen","un', complete: false },
        ],
      });
    });

    it('passes an upstream error on as it is, and a completion so far already in its partial stays', () => {
      const partial = { ...snapshotOf([]), content: 'kept' };
      const early = new StreamClosedEarlyError('cut', { partial });
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<ChatEvent>('-c-#', { c: { type: 'content', choice: 0, text: 'x' } }, early);
        expectObservable(source.pipe(validateToolCalls({}))).toBe('-c-#', { c: { type: 'content', choice: 0, text: 'x' } }, early);
      });
      expect(early.partial).toBe(partial);
    });

    it("gives an upstream error whose partial is a lower layer's (text) the completion as passed on", () => {
      const early = new StreamClosedEarlyError('cut mid-line', { partial: { data: '', incompleteLine: 'data: {"cho' } });
      const { error } = runSync([{ type: 'content', choice: 0, text: 'so far' }] as ChatEvent[], (source) =>
        concat(
          source,
          throwError(() => early),
        ).pipe(validateToolCalls({})),
      );
      expect(error).toBe(early);
      expect(early.partial).toMatchObject({ content: 'so far', finished: false });
    });

    it.each([
      ['empty', '|', '|'],
      ['never', '-', '-'],
      ['error', '#', '#'],
    ])('mirrors a source that is %s', (_name, input, output) => {
      testScheduler.run(({ cold, expectObservable }) => {
        expectObservable(cold<ChatEvent>(input).pipe(validateToolCalls({}))).toBe(output);
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<ChatEvent>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next({ type: 'content', choice: 0, text: String(i) });
        }
      });
      runSync([0], () => synchronous.pipe(validateToolCalls({}), take(2)));
      expect(produced).toEqual([0, 1]);
    });

    describe('asynchronous checks', () => {
      /** A zod schema whose async refinement answers when the test says so, per city. */
      function gatedWeather() {
        const gates = new Map<string, ReturnType<typeof deferred<boolean>>>();
        const gate = (city: string) => {
          if (!gates.has(city)) gates.set(city, deferred<boolean>());
          return gates.get(city)!;
        };
        const schema = z.object({ city: z.string() }).refine(async ({ city }) => gate(city).promise, { message: 'unknown city' });
        return { schema, gate };
      }

      it('takes the promise path of ~standard.validate (zod async refinement)', () => {
        const { schema } = gatedWeather();
        const result = schema['~standard'].validate({ city: 'x' });
        expect(typeof (result as { then?: unknown }).then).toBe('function');
      });

      it('holds every later event until the pending checks settle, then emits in the order of the stream', async () => {
        const { schema, gate } = gatedWeather();
        const source = new Subject<ChatEvent>();
        const { seen } = record(source.pipe(groupToolCallsByIndex(), validateToolCalls({ get_weather: schema })));
        source.next(delta(0, '{"city":"A"}', 'c0', 'get_weather'));
        source.next(delta(1, '{"city":"B"}', 'c1', 'get_weather'));
        source.next(finish());
        source.next({ type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } });
        source.next({ type: 'done' });
        source.complete();
        expect(types(seen.values)).toEqual(['tool-call-delta', 'tool-call-delta']);
        gate('B').resolve(true); // the second call's check settles first: it still waits for the first
        await flush();
        expect(types(seen.values)).toEqual(['tool-call-delta', 'tool-call-delta']);
        expect(seen.completed).toBe(false);
        gate('A').resolve(true);
        await flush();
        expect(types(seen.values)).toEqual([
          'tool-call-delta',
          'tool-call-delta',
          'tool-call:c0',
          'tool-call:c1',
          'finish',
          'usage',
          'done',
        ]);
        expect(seen.completed).toBe(true);
        expect(seen.error).toBeUndefined();
      });

      it('emits what passed before a refused call, then fails there; nothing after it is emitted', async () => {
        const { schema, gate } = gatedWeather();
        const source = new Subject<ChatEvent>();
        const { seen } = record(source.pipe(groupToolCallsByIndex(), validateToolCalls({ get_weather: schema })));
        source.next(delta(0, '{"city":"A"}', 'c0', 'get_weather'));
        source.next(delta(1, '{"city":"Atlantis"}', 'c1', 'get_weather'));
        source.next(finish());
        source.complete();
        gate('Atlantis').resolve(false);
        await flush();
        expect(seen.error).toBeUndefined(); // its turn has not come
        gate('A').resolve(true);
        await flush();
        expect(types(seen.values)).toEqual(['tool-call-delta', 'tool-call-delta', 'tool-call:c0']);
        expect(seen.error).toBeInstanceOf(ToolArgumentsError);
        expect((seen.error as ToolArgumentsError).call.id).toBe('c1');
        expect((seen.error as ToolArgumentsError).issues).toEqual([expect.objectContaining({ message: 'unknown city', path: [] })]);
        expect(seen.completed).toBe(false);
      });

      it('fails at once when the source errors during a check, and emits nothing when the check settles', async () => {
        const { schema, gate } = gatedWeather();
        const source = new Subject<ChatEvent>();
        const { seen } = record(source.pipe(validateToolCalls({ get_weather: schema })));
        const partial = { ...snapshotOf([]), content: 'kept' };
        const early = new StreamClosedEarlyError('cut', { partial });
        source.next(toolCall(call(0, 'c0', 'get_weather', '{"city":"A"}')));
        source.next(finish());
        source.error(early);
        expect(seen.error).toBe(early);
        expect(early.partial).toBe(partial);
        gate('A').resolve(true);
        await flush();
        expect(seen.values).toEqual([]);
      });

      it('emits nothing after the subscriber leaves during a check, and unsubscribes from the source', async () => {
        const { schema, gate } = gatedWeather();
        const source = new Subject<ChatEvent>();
        const { seen, subscription } = record(source.pipe(validateToolCalls({ get_weather: schema })));
        source.next(toolCall(call(0, 'c0', 'get_weather', '{"city":"A"}')));
        source.next(finish());
        subscription.unsubscribe();
        expect(source.observed).toBe(false);
        gate('A').resolve(true);
        await flush();
        expect(seen.values).toEqual([]);
        expect(seen.error).toBeUndefined();
      });

      it("ends the stream with what a validator's promise rejected with, in its turn", async () => {
        const bug = new RangeError('lookup failed');
        const { values, error } = await collect(
          from([{ type: 'content', choice: 0, text: 'a' }, delta(0, '{}', 'a', 'search'), finish()] as ChatEvent[]).pipe(
            groupToolCallsByIndex(),
            validateToolCalls({ search: () => Promise.reject(bug) }),
          ),
        );
        expect(types(values)).toEqual(['content', 'tool-call-delta']);
        expect(error).toBe(bug);
      });

      it('gives a valibot async check the same treatment', async () => {
        const zone = v.pipeAsync(
          time,
          v.checkAsync(async ({ tz }) => tz.includes('/'), 'not an IANA zone'),
        );
        const run = (tz: string) =>
          collect(
            from([delta(0, JSON.stringify({ tz }), 'a', 'get_time'), finish()]).pipe(
              groupToolCallsByIndex(),
              validateToolCalls({ get_time: zone }),
            ),
          );
        expect(types((await run('Asia/Tokyo')).values)).toEqual(['tool-call-delta', 'tool-call:a', 'finish']);
        const refused = await run('UTC');
        expect((refused.error as ToolArgumentsError).message).toBe(
          'the arguments of tool call 0 of choice 0 (get_time, a) were refused: not an IANA zone',
        );
      });
    });
  });

  describe('over a Completion', () => {
    const events = (args0: string, args1: string): ChatEvent[] => [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'content', choice: 0, text: 'Checking.' },
      delta(0, args0, 'a', 'get_weather'),
      delta(0, args1, 'b', 'get_time', 1),
      finish(0),
      finish(1),
    ];

    it('checks every call of every choice, then passes the completion on with the validated args', () => {
      const { values, error } = runSync(
        events('{"city":"Pune"}', '{"tz":"UTC"}'),
        pipe(finalizeCompletion(), validateToolCalls({ get_weather: weather, get_time: time })),
      );
      expect(error).toBeUndefined();
      const completion: Completion = values[0]!;
      const pune = call(0, 'a', 'get_weather', '{"city":"Pune"}', { city: 'Pune', unit: 'celsius' });
      expect(completion.toolCalls).toEqual([pune]);
      expect(completion.choices.map((c) => c.toolCalls)).toEqual([[pune], [call(0, 'b', 'get_time', '{"tz":"UTC"}')]]);
      expect(completion).toMatchObject({ id: 'r1', content: 'Checking.', finishReason: 'tool_calls' });
    });

    it('fails with the first refused call in choice order, with the completion as partial', () => {
      const { values, error } = runSync(
        events('{"city":"Pune"}', '{"tz":7}'),
        pipe(finalizeCompletion(), validateToolCalls({ get_weather: weather, get_time: time })),
      );
      expect(values).toEqual([]);
      const refused = error as ToolArgumentsError;
      expect(refused).toBeInstanceOf(ToolArgumentsError);
      expect(refused.choice).toBe(1);
      expect(refused.call).toEqual(call(0, 'b', 'get_time', '{"tz":7}'));
      expect(refused.partial).toMatchObject({ id: 'r1', content: 'Checking.', choices: [{ index: 0 }, { index: 1 }] });
    });

    it('reports the first refusal in call order even when a later check settles first', async () => {
      const slow = deferred<boolean>();
      const outcome = collect(
        from(events('{"city":"Pune"}', '{"tz":"UTC"}')).pipe(
          finalizeCompletion(),
          validateToolCalls({ get_weather: () => slow.promise, get_time: () => false }),
        ),
      );
      await flush();
      slow.resolve(false);
      const { error } = await outcome;
      expect((error as ToolArgumentsError).call.name).toBe('get_weather');
    });

    it('waits for asynchronous checks before passing the completion on', async () => {
      const slow = deferred<boolean>();
      const { seen } = record(
        from(events('{"city":"Pune"}', '{"tz":"UTC"}')).pipe(
          finalizeCompletion(),
          validateToolCalls({ get_weather: () => slow.promise, get_time: time }),
        ),
      );
      await flush();
      expect(seen.values).toEqual([]);
      slow.resolve(true);
      await flush();
      expect(seen.values).toHaveLength(1);
      expect(seen.completed).toBe(true);
    });

    it('passes a completion without calls on as it is, synchronously', () => {
      let before: Completion | undefined;
      const { values } = runSync(
        [
          { type: 'content', choice: 0, text: 'hi' },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
        ] as ChatEvent[],
        pipe(
          finalizeCompletion(),
          tap((completion) => (before = completion)),
          validateToolCalls({}),
        ),
      );
      expect(values).toHaveLength(1);
      expect(values[0]).toBe(before);
    });

    it('keeps a call whose args the schema returned unchanged as the same object', () => {
      let before: Completion | undefined;
      const { values } = runSync(
        events('{"city":"Pune","unit":"celsius"}', '{"tz":"UTC"}'),
        pipe(
          finalizeCompletion(),
          tap((c) => (before = c)),
          validateToolCalls({ get_weather: () => true, get_time: () => true }),
        ),
      );
      expect(values[0]).not.toBe(before); // a new completion, whose calls are the same objects
      expect(values[0]!.choices[1]!.toolCalls[0]).toBe(before!.choices[1]!.toolCalls[0]);
      expect(values[0]!.toolCalls[0]).toBe(before!.toolCalls[0]);
    });

    it('refuses a call to an unknown tool', () => {
      const { error } = runSync(
        events('{"city":"Pune"}', '{"tz":"UTC"}'),
        pipe(finalizeCompletion(), validateToolCalls({ get_weather: weather })),
      );
      expect((error as ToolArgumentsError).issues).toEqual([{ message: 'no tool named "get_time" was declared' }]);
    });
  });

  describe('end to end, over a recording (marbles/openai/tool-calls-interleaved.sse)', () => {
    const bytes = new Uint8Array(readFileSync(join(__dirname, '..', 'marbles', 'openai', 'tool-calls-interleaved.sse')));
    const tools = { get_weather: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }), get_time: time };
    const zurich = toolCall(
      call(0, 'call_Wx1qT7mZp3LkR9sVb2NcY4hD', 'get_weather', '{"city":"Zürich","unit":"celsius"}', { city: 'Zürich', unit: 'celsius' }),
    );
    const tokyo = toolCall(call(1, 'call_Qe8uJ5nHt2GfD6aKc1XoP0vB', 'get_time', '{"tz":"Asia/Tokyo"}', { tz: 'Asia/Tokyo' }));

    it('checks both calls at every chunk size and passes them on in order', () => {
      for (let size = 1; size <= 64; size++) {
        const { values, error } = runSync(
          chunksOf(bytes, size),
          pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), validateToolCalls(tools)),
        );
        expect(error).toBeUndefined();
        expect(values.filter((e) => e.type === 'tool-call')).toEqual([zurich, tokyo]);
        expect(types(values).slice(-5)).toEqual([
          'tool-call:call_Wx1qT7mZp3LkR9sVb2NcY4hD',
          'tool-call:call_Qe8uJ5nHt2GfD6aKc1XoP0vB',
          'finish',
          'usage',
          'done',
        ]);
      }
    });

    it('keeps the same order with asynchronous checks', async () => {
      const slowTools = { get_weather: tools.get_weather.refine(async () => true), get_time: async () => true };
      const { values, error } = await collect(
        from(chunksOf(bytes, 7)).pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), validateToolCalls(slowTools)),
      );
      expect(error).toBeUndefined();
      expect(values.filter((e) => e.type === 'tool-call')).toEqual([zurich, tokyo]);
      expect(types(values).slice(-5)).toEqual([
        'tool-call:call_Wx1qT7mZp3LkR9sVb2NcY4hD',
        'tool-call:call_Qe8uJ5nHt2GfD6aKc1XoP0vB',
        'finish',
        'usage',
        'done',
      ]);
    });

    it('refuses the weather call when its unit is not allowed, naming the path', () => {
      const strict = { ...tools, get_weather: z.object({ city: z.string(), unit: z.literal('fahrenheit') }) };
      const { values, error } = runSync(
        chunksOf(bytes, 5),
        pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), validateToolCalls(strict)),
      );
      expect(values.some((e) => e.type === 'tool-call')).toBe(false);
      expect((error as ToolArgumentsError).call.id).toBe('call_Wx1qT7mZp3LkR9sVb2NcY4hD');
      expect((error as ToolArgumentsError).issues).toEqual([expect.objectContaining({ path: ['unit'] })]);
      expect((error as ToolArgumentsError).partial).toMatchObject({
        toolCalls: [{ arguments: '{"city":"Zürich","unit":"celsius"}' }, { arguments: '{"tz":"Asia/Tokyo"}' }],
      });
    });
  });
});
