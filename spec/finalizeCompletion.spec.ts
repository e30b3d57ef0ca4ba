import { Observable, from, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { StreamClosedEarlyError, ProviderError } from '../src/errors/errors';
import { ChatEvent, Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { sseFrames } from '../src/frames/sseFrames';
import { collect, runSync } from './support/collect';
import { utf8 } from './support/chunking';

const finish = (choice: number, raw: string, reason = raw): ChatEvent => ({ type: 'finish', choice, reason: reason as never, raw });

describe('finalizeCompletion', () => {
  it('emits exactly one Completion when the source completes, then completes (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('-s-a-b-f-|', {
        s: { type: 'start', id: 'c1', model: 'm' },
        a: { type: 'content', choice: 0, text: 'Hel' },
        b: { type: 'content', choice: 0, text: 'lo!' },
        f: finish(0, 'stop'),
      });
      const completion: Completion = {
        id: 'c1',
        model: 'm',
        content: 'Hello!',
        reasoning: null,
        refusal: null,
        toolCalls: [],
        finishReason: 'stop',
        rawFinishReason: 'stop',
        usage: null,
        timings: null,
        reasoningTokens: 0,
        choices: [
          { index: 0, content: 'Hello!', reasoning: null, refusal: null, toolCalls: [], finishReason: 'stop', rawFinishReason: 'stop' },
        ],
      };
      expectObservable(source.pipe(finalizeCompletion())).toBe('---------(c|)', { c: completion });
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('errors with StreamClosedEarlyError, holding everything so far, when no finish arrived', () => {
    const outcome = runSync(
      [
        { type: 'start', id: 'c1', model: 'm' },
        { type: 'reasoning', choice: 0, text: 'think' },
        { type: 'content', choice: 0, text: 'Par' },
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"ci' },
      ] as ChatEvent[],
      finalizeCompletion(),
    );
    expect(outcome.values).toEqual([]);
    expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    expect((outcome.error as Error).message).toBe('the stream ended before choice 0 finished');
    expect((outcome.error as StreamClosedEarlyError).partial).toMatchObject({
      id: 'c1',
      content: 'Par',
      reasoning: 'think',
      finishReason: null,
      finished: false,
      toolCalls: [{ index: 0, id: 'a', name: 'f', arguments: '{"ci', complete: false }],
    });
  });

  it('errors when one of several choices never finished', () => {
    const outcome = runSync(
      [{ type: 'content', choice: 0, text: 'a' }, { type: 'content', choice: 1, text: 'b' }, finish(0, 'stop')] as ChatEvent[],
      finalizeCompletion(),
    );
    expect((outcome.error as Error).message).toBe('the stream ended before choice 1 finished');
  });

  it('gives a library error from upstream the completion so far as partial', () => {
    const outcome = runSync([{ type: 'content', choice: 0, text: 'so far' }] as ChatEvent[], (source) =>
      new Observable<ChatEvent>((subscriber) => {
        source.subscribe({ next: (v) => subscriber.next(v), complete: () => subscriber.error(new ProviderError('boom')) });
      }).pipe(finalizeCompletion()),
    );
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect((outcome.error as ProviderError).partial).toMatchObject({ content: 'so far' });
  });

  it("passes an error that is not the library's unchanged", () => {
    const reset = new Error('socket reset');
    const outcome = runSync([0], () => new Observable<ChatEvent>((subscriber) => subscriber.error(reset)).pipe(finalizeCompletion()));
    expect(outcome.error).toBe(reset);
    expect(reset).not.toHaveProperty('partial');
  });

  it("builds every choice for n > 1; the top-level fields are choice 0's", () => {
    const outcome = runSync(
      [
        { type: 'start', id: 'c', model: null },
        { type: 'content', choice: 1, text: 'Hi' },
        { type: 'content', choice: 0, text: 'Hello' },
        { type: 'tool-call-delta', choice: 1, index: 0, id: 't', name: 'f', arguments: '{}' },
        finish(0, 'stop'),
        finish(1, 'tool_calls'),
      ] as ChatEvent[],
      finalizeCompletion(),
    );
    const completion = outcome.values[0]!;
    expect(completion.content).toBe('Hello');
    expect(completion.toolCalls).toEqual([]);
    expect(completion.choices.map((c) => [c.index, c.content, c.toolCalls.length, c.finishReason])).toEqual([
      [0, 'Hello', 0, 'stop'],
      [1, 'Hi', 1, 'tool_calls'],
    ]);
  });

  it('keeps the last value of each usage field, never a sum', () => {
    const outcome = runSync(
      [
        { type: 'usage', usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6, cachedPromptTokens: 2 } },
        { type: 'usage', usage: { promptTokens: null, completionTokens: 9, totalTokens: 14 } },
        finish(0, 'stop'),
      ] as ChatEvent[],
      finalizeCompletion(),
    );
    expect(outcome.values[0]!.usage).toEqual({ promptTokens: 5, completionTokens: 9, totalTokens: 14, cachedPromptTokens: 2 });
  });

  it('counts reasoning tokens as predicted_n when reasoning last arrived (seed rule 4)', async () => {
    const chunks = [
      { id: 'r', choices: [{ index: 0, delta: { reasoning_content: 'I should' } }], timings: { predicted_n: 3 } },
      { id: 'r', choices: [{ index: 0, delta: { reasoning_content: ' check' } }], timings: { predicted_n: 5 } },
      { id: 'r', choices: [{ index: 0, delta: { content: 'Answer' } }], timings: { predicted_n: 9 } },
      { id: 'r', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], timings: { predicted_n: 10 } },
    ];
    const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
    const { values } = await collect(from([utf8(body)]).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()));
    expect(values[0]!.reasoningTokens).toBe(5);
    expect(values[0]!.timings).toEqual({ predicted_n: 10 });
    expect(values[0]!.reasoning).toBe('I should check');
  });

  it('gives the same completion with or without groupToolCallsByIndex in front', () => {
    // As a dialect emits them: the finish of a choice that made calls says `tool_calls`, raw `stop`.
    const events: ChatEvent[] = [
      { type: 'start', id: 'c', model: 'm' },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"x"' },
      { type: 'tool-call-delta', choice: 0, index: 1, id: 'b', name: 'g', arguments: '[1' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: ':1}' },
      { type: 'tool-call-delta', choice: 0, index: 1, arguments: ']' },
      finish(0, 'stop', 'tool_calls'),
    ];
    const direct = runSync(events, finalizeCompletion());
    const grouped = runSync(events, (source) => source.pipe(groupToolCallsByIndex(), finalizeCompletion()));
    expect(direct.error).toBeUndefined();
    expect(grouped).toEqual(direct);
    expect(direct.values[0]!.finishReason).toBe('tool_calls');
    expect(direct.values[0]!.rawFinishReason).toBe('stop');
    expect(direct.values[0]!.toolCalls.map((c) => c.args)).toEqual([{ x: 1 }, [1]]);
  });

  it('stops a synchronous source when unsubscribed', () => {
    const produced: number[] = [];
    const synchronous = new Observable<ChatEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        produced.push(i);
        subscriber.next(finish(0, 'stop'));
        if (i === 2) subscriber.complete();
      }
    });
    const outcome = runSync([0], () => synchronous.pipe(finalizeCompletion(), take(1)));
    expect(outcome.values).toHaveLength(1);
    expect(produced).toEqual([0, 1, 2]);
  });
});
