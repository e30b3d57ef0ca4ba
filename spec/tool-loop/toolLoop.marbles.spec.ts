import { NEVER, Observable, Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { providerStream } from '../../src/testing/writeProviderStream';
import { anthropicLoop, openaiChatLoop } from '../../src/tool-loop/loopFormats';
import type { LoopTools } from '../../src/tool-loop/LoopTool';
import { toolLoop, type ToolLoopOptions } from '../../src/tool-loop/toolLoop';
import { ToolLoopError } from '../../src/tool-loop/ToolLoopError';
import { isToolLoopPartial, type ToolLoopEvent } from '../../src/tool-loop/ToolLoopEvent';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import type { JsonValue } from '../../src/types/replyParts';
import { callsReply, summary, textReply, wholeBody } from './support';

// The loop in virtual time: each step's body is a cold Observable of the provider's bytes (written
// by the test kit), each tool a cold Observable, so that when a call starts, when it ends and when
// the loop tears it down are frames of the scheduler.

type Message = { readonly role: string; readonly content?: unknown; readonly tool_call_id?: string };
const USER: Message = { role: 'user', content: 'go' };

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

/** Logs each loop event (but the reply's own, unless `replyEvents`) with the frame it came at, and how the loop ended. */
function record(
  loop$: Observable<ToolLoopEvent<unknown>>,
  replyEvents = false,
): { log: string[]; ended: { error?: unknown; complete?: boolean } } {
  const log: string[] = [];
  const ended: { error?: unknown; complete?: boolean } = {};
  loop$.subscribe({
    next: (event) => {
      if (event.type !== 'event' || replyEvents) log.push(`${scheduler.now()} ${summary(event)}`);
    },
    error: (error: unknown) => (ended.error = error),
    complete: () => (ended.complete = true),
  });
  return { log, ended };
}

/** A request that answers step n with the n-th body, two frames after it is made, and keeps what it was sent. */
function stepsAnswer(cold: TestScheduler['createColdObservable'], replies: readonly TestReply[]) {
  const sent: (readonly unknown[])[] = [];
  const request: ToolLoopOptions<Message, unknown, unknown>['request'] = (conversation, { step }) => {
    sent.push(conversation);
    return cold('--(a|)', { a: wholeBody(replies[step - 1]!) });
  };
  return { request, sent };
}

describe('toolLoop, in virtual time', () => {
  it('appends results in call order when the later call finishes first, and requests again with them', () => {
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const slow = cold<JsonValue>('----(s|)', { s: 'slow done' });
      const fast = cold<JsonValue>('-(f|)', { f: 'fast done' });
      const { request, sent } = stepsAnswer(cold, [
        callsReply([
          ['slow', {}],
          ['fast', {}],
        ]),
        textReply('Both done.'),
      ]);
      const { log, ended } = record(
        toolLoop({
          format: openaiChatLoop,
          request,
          conversation: [USER],
          tools: { slow: { execute: () => slow }, fast: { execute: () => fast } },
        }),
      );
      flush();
      expectSubscriptions(slow.subscriptions).toBe('--^---!');
      expectSubscriptions(fast.subscriptions).toBe('--^!');
      expect(log).toEqual([
        '0 step-start 1',
        '6 tool-result 1 call_0 "slow done"',
        '6 tool-result 1 call_1 "fast done"',
        '6 step-finish 1',
        '6 step-start 2',
        '8 step-finish 2',
        '8 loop-finish no-calls',
      ]);
      expect(ended).toEqual({ complete: true });
      expect(sent[1]!.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'call_0', content: 'slow done' },
        { role: 'tool', tool_call_id: 'call_1', content: 'fast done' },
      ]);
    });
  });

  it('runs no more calls at once than the concurrency limit, the next starting as one ends', () => {
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const first = cold<JsonValue>('---(a|)', { a: 1 });
      const second = cold<JsonValue>('-(b|)', { b: 2 });
      const third = cold<JsonValue>('--(c|)', { c: 3 });
      const byCity: Record<string, Observable<JsonValue>> = { a: first, b: second, c: third };
      const { request } = stepsAnswer(cold, [
        callsReply([
          ['get', { city: 'a' }],
          ['get', { city: 'b' }],
          ['get', { city: 'c' }],
        ]),
        textReply('ok'),
      ]);
      const tools = { get: { schema: z.object({ city: z.string() }), execute: ({ city }: { city: string }) => byCity[city]! } };
      const { log } = record(toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools, concurrency: 2 }));
      flush();
      expectSubscriptions(first.subscriptions).toBe('--^--!');
      expectSubscriptions(second.subscriptions).toBe('--^!');
      expectSubscriptions(third.subscriptions).toBe('---^-!');
      expect(log.filter((line) => line.includes('tool-result'))).toEqual([
        '5 tool-result 1 call_0 1',
        '5 tool-result 1 call_1 2',
        '5 tool-result 1 call_2 3',
      ]);
    });
  });

  it('tears down the running tool, and the request in flight (its signal aborted), when the subscriber leaves', () => {
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const tool = cold<JsonValue>('-----(x|)', { x: 'late' });
      const { request } = stepsAnswer(cold, [callsReply([['work', {}]])]);
      const loop$ = toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools: { work: { execute: () => tool } } });
      const subscription = loop$.subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 4);
      flush();
      expectSubscriptions(tool.subscriptions).toBe('--^-!');
    });
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const body = cold('-a-b-c-(d|)', Object.fromEntries([...'abcd'].map((key) => [key, wholeBody(textReply('never read'))])));
      const signals: AbortSignal[] = [];
      const loop$ = toolLoop({
        format: openaiChatLoop,
        request: (_conversation, { signal }) => (signals.push(signal), body),
        conversation: [USER],
        tools: {},
      });
      const subscription = loop$.subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 3);
      flush();
      expectSubscriptions(body.subscriptions).toBe('^--!');
      expect(signals.map((signal) => signal.aborted)).toEqual([true]);
    });
  });

  it('aborts the signal of a Promise tool still running when the subscriber leaves, and leaves a finished one alone', () => {
    scheduler.run(({ cold, flush }) => {
      const signals: Record<string, AbortSignal> = {};
      const { request } = stepsAnswer(cold, [
        callsReply([
          ['quick', {}],
          ['stuck', {}],
        ]),
      ]);
      const tools = {
        quick: { execute: (_args: JsonValue, { signal }: { signal: AbortSignal }) => ((signals['quick'] = signal), 'now') },
        stuck: {
          execute: (_args: JsonValue, { signal }: { signal: AbortSignal }) => (
            (signals['stuck'] = signal),
            new Promise<JsonValue>(() => {})
          ),
        },
      };
      const subscription: Subscription = toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools }).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 5);
      flush();
      expect(signals['quick']?.aborted).toBe(false);
      expect(signals['stuck']?.aborted).toBe(true);
    });
  });

  it('waits for the approval of each call, runs an approved one, and answers a denied one with a denial, across consecutive steps', () => {
    scheduler.run(({ cold, flush }) => {
      const answers = [cold('---(y|)', { y: true }), cold('-(n|)', { n: false })];
      const ran: JsonValue[] = [];
      const { request, sent } = stepsAnswer(cold, [
        callsReply([['remove', { file: 'a.txt' }]]),
        callsReply([['remove', { file: 'b.txt' }]]),
        textReply('One removed, one refused.'),
      ]);
      const tools: LoopTools<{ remove: { file: string } }> = {
        remove: { needsApproval: true, execute: (args) => (ran.push(args.file), 'removed') },
      };
      const { log, ended } = record(
        toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools, approve: ({ step }) => answers[step - 1]! }),
      );
      flush();
      expect(ran).toEqual(['a.txt']);
      expect(log).toEqual([
        '0 step-start 1',
        '2 approval-request 1 call_0',
        '5 tool-result 1 call_0 "removed"',
        '5 step-finish 1',
        '5 step-start 2',
        '7 approval-request 2 call_0',
        '8 tool-error 2 call_0 denied',
        '8 step-finish 2',
        '8 step-start 3',
        '10 step-finish 3',
        '10 loop-finish no-calls',
      ]);
      expect(ended).toEqual({ complete: true });
      const denial = sent[2]!.at(-1) as Message;
      expect(denial.role).toBe('tool');
      expect(JSON.parse(denial.content as string)).toEqual({ error: expect.stringContaining('denied') });
    });
  });

  it('ends a loop whose second step is cut in StreamClosedEarlyError, its partial the conversation so far and each step usage', () => {
    scheduler.run(({ cold, flush }) => {
      const firstUsage = { promptTokens: 11, completionTokens: 7, totalTokens: 18 };
      const secondUsage = { promptTokens: 30, completionTokens: 5, totalTokens: 35 };
      const cut = providerStream({ choices: [{ text: 'The weather in Oslo is' }], usage: secondUsage }, 'anthropic', {
        fault: 'cut-before-end',
        chunking: 'whole',
      });
      const bodies = [wholeBody(callsReply([['weather', { city: 'Oslo' }]], firstUsage), 'anthropic'), cut.chunks[0]!];
      const { log, ended } = record(
        toolLoop({
          format: anthropicLoop,
          request: (_conversation, { step }) => cold('--(a|)', { a: bodies[step - 1]! }),
          conversation: [USER],
          tools: { weather: { execute: () => 'sunny' } },
        }),
      );
      flush();
      expect(log.at(-1)).toBe('2 step-start 2');
      const error = ended.error;
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      const partial = (error as StreamClosedEarlyError).partial;
      if (!isToolLoopPartial(partial)) throw new Error('the partial is not the loop partial');
      expect(partial.conversation).toEqual([
        USER,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_0', name: 'weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content: 'sunny' }] },
      ]);
      expect(partial.steps).toEqual([
        { step: 1, usage: firstUsage, finishReason: 'tool_calls', toolCalls: 1 },
        // Cut after its finish and usage, before Anthropic's `message_stop`.
        { step: 2, usage: secondUsage, finishReason: 'stop', toolCalls: 0 },
      ]);
      expect(partial.reply).toMatchObject({ content: 'The weather in Oslo is' });
    });
  });

  it('ends in ToolLoopError (max-steps) with the conversation after the last step when the model keeps calling', () => {
    scheduler.run(({ cold, flush }) => {
      const { request, sent } = stepsAnswer(cold, [callsReply([['ping', {}]]), callsReply([['ping', {}]]), callsReply([['ping', {}]])]);
      const { ended } = record(
        toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools: { ping: { execute: () => 'pong' } }, maxSteps: 2 }),
      );
      flush();
      expect(sent).toHaveLength(2);
      expect(ended.error).toBeInstanceOf(ToolLoopError);
      const error = ended.error as ToolLoopError<Message>;
      expect(error.reason).toBe('max-steps');
      expect(error.partial.steps.map((step) => step.step)).toEqual([1, 2]);
      // The user's message, then per step the assistant's turn and the one result.
      expect(error.partial.conversation.map((message) => (message as Message).role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
      ]);
    });
  });

  it('sends arguments its schema refuses, and a tool nobody declared, back to the model as error results without running anything', () => {
    scheduler.run(({ cold, flush }) => {
      const ran: string[] = [];
      const { request, sent } = stepsAnswer(cold, [
        callsReply([
          ['weather', { town: 'Oslo' }],
          ['launch', {}],
        ]),
        textReply('Sorry.'),
      ]);
      const tools = {
        weather: { schema: z.object({ city: z.string() }), execute: ({ city }: { city: string }) => (ran.push(city), 'sunny') },
      };
      const { log } = record(toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools }));
      flush();
      expect(ran).toEqual([]);
      expect(log.filter((line) => line.includes('tool-'))).toEqual([
        '2 tool-error 1 call_0 invalid-arguments',
        '2 tool-error 1 call_1 unknown-tool',
      ]);
      const [refused, unknown] = sent[1]!.slice(2) as Message[];
      expect(JSON.parse(refused!.content as string).error).toContain('city');
      expect(JSON.parse(unknown!.content as string).error).toContain('no tool named "launch"');
    });
  });

  it("turns a tool's error into an error result the model reads, by default", () => {
    scheduler.run(({ cold, flush }) => {
      const { request, sent } = stepsAnswer(cold, [callsReply([['save', {}]]), textReply('Could not save.')]);
      const { log, ended } = record(
        toolLoop({
          format: openaiChatLoop,
          request,
          conversation: [USER],
          tools: { save: { execute: () => cold('-#', {}, new Error('disk full')) } },
        }),
      );
      flush();
      expect(log).toContain('3 tool-error 1 call_0 failed');
      expect((sent[1]!.at(-1) as Message).content).toBe('{"error":"disk full"}');
      expect(ended).toEqual({ complete: true });
    });
  });

  it("ends the loop on a tool's error under onToolError: 'end', tearing down the other calls", () => {
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const failing = cold<JsonValue>('-#', {}, new Error('disk full'));
      const other = cold<JsonValue>('-----(x|)', { x: 'never' });
      const { request, sent } = stepsAnswer(cold, [
        callsReply([
          ['save', {}],
          ['other', {}],
        ]),
      ]);
      const { ended } = record(
        toolLoop({
          format: openaiChatLoop,
          request,
          conversation: [USER],
          tools: { save: { execute: () => failing }, other: { execute: () => other } },
          onToolError: 'end',
        }),
      );
      flush();
      expect(sent).toHaveLength(1);
      expectSubscriptions(other.subscriptions).toBe('--^!');
      const error = ended.error as ToolLoopError<Message>;
      expect(error).toBeInstanceOf(ToolLoopError);
      expect(error.reason).toBe('tool-failed');
      expect((error.cause as Error).message).toBe('disk full');
      expect(error.message).toContain('save');
      expect(error.partial.conversation).toEqual([USER]);
    });
  });

  it('starts a call at its tool-call event under eager, while the reply still streams; at the reply end without it', () => {
    const reply: TestReply = { choices: [{ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }] };
    const chunks = providerStream(reply, 'anthropic', { chunking: 'events' }).chunks;
    const keys = 'abcdefghijklmnopqrstuvwxyz'.slice(0, chunks.length);
    const marble = [...keys].join(' 9ms ') + '|';
    const values = Object.fromEntries([...keys].map((key, index) => [key, chunks[index]!]));
    for (const eager of [true, false]) {
      scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
      scheduler.run(({ cold, flush }) => {
        const started: number[] = [];
        const { log } = record(
          toolLoop({
            format: anthropicLoop,
            request: (_conversation, { step }) =>
              step === 1 ? cold(marble, values) : cold('(a|)', { a: wholeBody(textReply('ok'), 'anthropic') }),
            conversation: [USER],
            tools: { lookup: { execute: () => (started.push(scheduler.now()), 'found') } },
            eager,
          }),
          true,
        );
        flush();
        const at = (line: string): number => Number(log.find((entry) => entry.endsWith(line))!.split(' ')[0]);
        const callAt = at('event 1 tool-call');
        // The body's last chunk comes at 10 frames a chunk, and it completes one frame later.
        const endAt = (chunks.length - 1) * 10 + 1;
        expect(callAt).toBeLessThan(endAt - 1);
        expect(started).toEqual([eager ? callAt : endAt]);
      });
    }
  });
});

describe('toolLoop, errors of the app', () => {
  it('ends in what stopWhen or the format throws, the request of the next step never made', () => {
    scheduler.run(({ cold, flush }) => {
      const thrown = new Error('stopWhen broke');
      const { request, sent } = stepsAnswer(cold, [callsReply([['ping', {}]]), textReply('never')]);
      const stopWhen = (): boolean => {
        throw thrown;
      };
      const { ended } = record(
        toolLoop({ format: openaiChatLoop, request, conversation: [USER], tools: { ping: { execute: () => 'pong' } }, stopWhen }),
      );
      flush();
      expect(ended.error).toBe(thrown);
      expect(sent).toHaveLength(1);
    });
  });
});

describe('toolLoop, cancelled', () => {
  it('tells onCancel what it had when the subscriber leaves mid-tool: the conversation, each step, the reply', () => {
    scheduler.run(({ cold, flush }) => {
      const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
      const { request } = stepsAnswer(cold, [callsReply([['work', {}]], usage)]);
      const had: unknown[] = [];
      const loop$ = toolLoop({
        format: openaiChatLoop,
        request,
        conversation: [USER],
        tools: { work: { execute: () => cold<JsonValue>('-----(x|)', { x: 'late' }) } },
        onCancel: (partial) => had.push(partial),
      });
      const subscription = loop$.subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 4);
      flush();
      expect(had).toEqual([
        {
          conversation: [USER],
          steps: [{ step: 1, usage, finishReason: 'tool_calls', toolCalls: 1 }],
          reply: expect.objectContaining({ toolCalls: [expect.objectContaining({ id: 'call_0', name: 'work' })] }),
        },
      ]);
    });
  });

  it('does not call onCancel for a loop that ended, by its finish or in error', () => {
    scheduler.run(({ cold, flush }) => {
      const had: unknown[] = [];
      const { request } = stepsAnswer(cold, [textReply('done')]);
      const subscription = toolLoop({
        format: openaiChatLoop,
        request,
        conversation: [USER],
        tools: {},
        onCancel: (p) => had.push(p),
      }).subscribe();
      const failing = toolLoop({
        format: openaiChatLoop,
        request: () => cold('--#'),
        conversation: [USER],
        tools: {},
        onCancel: (p) => had.push(p),
      }).subscribe({ error: () => {} });
      flush();
      subscription.unsubscribe();
      failing.unsubscribe();
      expect(had).toEqual([]);
    });
  });
});

describe('toolLoop, its options', () => {
  it('refuses a tool that may need approval when no approve function is given, and a concurrency or maxSteps below 1', () => {
    const base = { format: openaiChatLoop, request: () => NEVER, conversation: [USER] };
    expect(() => toolLoop({ ...base, tools: { rm: { needsApproval: true, execute: () => 'x' } } })).toThrow(/rm.*approve/);
    expect(() => toolLoop({ ...base, tools: {}, concurrency: 0 })).toThrow(RangeError);
    expect(() => toolLoop({ ...base, tools: {}, maxSteps: 0 })).toThrow(RangeError);
  });
});
