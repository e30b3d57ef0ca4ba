import { readFileSync } from 'fs';
import { join } from 'path';
import { Observable, pipe } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../src/reply/assembleChunks';
import { CompletionSnapshot } from '../src/types/events';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { ChatEvent, Usage } from '../src/types/events';
import { estimateTokenUsage } from '../src/reply/estimateTokenUsage';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { scanCompletion } from '../src/reply/scanCompletion';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf } from './support/chunking';
import { runSync } from './support/collect';

const stop = (choice = 0): ChatEvent => ({ type: 'finish', choice, reason: 'stop', raw: 'stop' });
const estimate = (completionTokens: number): Usage => ({ promptTokens: null, completionTokens, totalTokens: null, estimated: true });

/**
 * 37 characters over two choices: reasoning "Let me see." (11), content "Sure!!" (6), arguments
 * '{"city":"Pune"}' (15) in choice 0; refusal "No." (3) and content "ab" (2) in choice 1.
 * ceil(37 / 4) = 10.
 */
const twoChoices: ChatEvent[] = [
  { type: 'start', id: 'r', model: 'm' },
  { type: 'reasoning', choice: 0, text: 'Let me ' },
  { type: 'reasoning', choice: 0, text: 'see.' },
  { type: 'content', choice: 0, text: 'Sure!!' },
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"city":' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"Pune"}' },
  { type: 'refusal', choice: 1, text: 'No.' },
  { type: 'content', choice: 1, text: 'ab' },
  { type: 'reasoning-signature', choice: 0, signature: 'opaque-and-not-counted' },
  stop(0),
  stop(1),
];

describe('finalizeCompletion({ estimateUsage })', () => {
  it('estimates completion tokens as ceil(characters / 4) over the text of every choice when no usage came', () => {
    const { values, error } = runSync(twoChoices, finalizeCompletion({ estimateUsage: true }));
    expect(error).toBeUndefined();
    expect(values[0]!.usage).toEqual(estimate(10));
    expect(values[0]!.content).toBe('Sure!!'); // nothing else changes
  });

  it('leaves usage null without the option', () => {
    for (const operator of [finalizeCompletion(), finalizeCompletion({}), finalizeCompletion({ estimateUsage: false })]) {
      expect(runSync(twoChoices, operator).values[0]!.usage).toBeNull();
    }
  });

  it('never replaces usage that came, even in part, nor marks it estimated', () => {
    const full = runSync(
      [...twoChoices, { type: 'usage', usage: { promptTokens: 5, completionTokens: 11, totalTokens: 16 } }],
      finalizeCompletion({ estimateUsage: true }),
    );
    expect(full.values[0]!.usage).toEqual({ promptTokens: 5, completionTokens: 11, totalTokens: 16 });
    expect(full.values[0]!.usage).not.toHaveProperty('estimated');
    const promptOnly = runSync(
      [...twoChoices, { type: 'usage', usage: { promptTokens: 5, completionTokens: null, totalTokens: null } }],
      finalizeCompletion({ estimateUsage: true }),
    );
    expect(promptOnly.values[0]!.usage).toEqual({ promptTokens: 5, completionTokens: null, totalTokens: null });
  });

  it('estimates 0 for a reply without text, and rounds a single character up to 1', () => {
    expect(runSync([stop()], finalizeCompletion({ estimateUsage: true })).values[0]!.usage).toEqual(estimate(0));
    expect(
      runSync([{ type: 'content', choice: 0, text: 'x' }, stop()] as ChatEvent[], finalizeCompletion({ estimateUsage: true })).values[0]!
        .usage,
    ).toEqual(estimate(1));
  });

  it('counts UTF-16 code units, so an astral character counts as two', () => {
    // "😀😀" is 4 code units: 1 token; "😀😀😀" is 6: 2 tokens.
    const estimateFor = (text: string) =>
      runSync([{ type: 'content', choice: 0, text }, stop()] as ChatEvent[], finalizeCompletion({ estimateUsage: true })).values[0]!.usage;
    expect(estimateFor('😀😀')).toEqual(estimate(1));
    expect(estimateFor('😀😀😀')).toEqual(estimate(2));
  });

  it('puts an estimate in the partial of a stream cut off before its finish', () => {
    const { error } = runSync(twoChoices.slice(0, 6), finalizeCompletion({ estimateUsage: true }));
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    // 11 + 6 + 15 = 32 characters of choice 0 so far: 8 tokens.
    expect((error as StreamClosedEarlyError).partial as CompletionSnapshot).toMatchObject({
      content: 'Sure!!',
      finished: false,
      usage: estimate(8),
    });
    const without = runSync(twoChoices.slice(0, 6), finalizeCompletion());
    expect(((without.error as StreamClosedEarlyError).partial as CompletionSnapshot).usage).toBeNull();
  });

  it('puts an estimate in the partial of a library error from upstream', () => {
    const { error } = runSync([{ type: 'content', choice: 0, text: 'so far!!' }] as ChatEvent[], (source) =>
      new Observable<ChatEvent>((subscriber) => {
        source.subscribe({ next: (v) => subscriber.next(v), complete: () => subscriber.error(new ProviderError('overloaded')) });
      }).pipe(finalizeCompletion({ estimateUsage: true })),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).partial).toMatchObject({ content: 'so far!!', usage: estimate(2) });
  });

  it('keeps the timing of the completion (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<ChatEvent>('-a-f-|', { a: { type: 'content', choice: 0, text: 'Hello!' }, f: stop() });
      expectObservable(source.pipe(finalizeCompletion({ estimateUsage: true }))).toBe('-----(c|)', {
        c: {
          id: '',
          model: null,
          content: 'Hello!',
          reasoning: null,
          refusal: null,
          toolCalls: [],
          finishReason: 'stop',
          rawFinishReason: 'stop',
          usage: estimate(2),
          timings: null,
          reasoningTokens: 0,
          choices: [
            { index: 0, content: 'Hello!', reasoning: null, refusal: null, toolCalls: [], finishReason: 'stop', rawFinishReason: 'stop' },
          ],
        },
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('estimates a recording that carries no usage (typed events: 7 + 29 + 17 characters, 14 tokens)', () => {
    const bytes = new Uint8Array(readFileSync(join(__dirname, '..', 'marbles', 'dialects', 'typed-events.sse')));
    for (const size of [1, 7, 64]) {
      const { values, error } = runSync(
        chunksOf(bytes, size),
        pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion({ estimateUsage: true })),
      );
      expect(error).toBeUndefined();
      expect(values[0]!.usage).toEqual(estimate(14));
    }
  });
});

describe('scanCompletion({ estimateUsage })', () => {
  it("shows an estimate that grows with the text until the provider's usage arrives", () => {
    const { values } = runSync(
      [
        { type: 'content', choice: 0, text: 'abcd' },
        { type: 'content', choice: 0, text: 'e' },
        { type: 'usage', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } },
        stop(),
      ] as ChatEvent[],
      scanCompletion({ estimateUsage: true }),
    );
    expect(values.map((snapshot) => snapshot.usage)).toEqual([
      estimate(1),
      estimate(2),
      { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
    ]);
  });

  it('leaves usage null without the option', () => {
    const { values } = runSync([{ type: 'content', choice: 0, text: 'abcd' }, stop()] as ChatEvent[], scanCompletion());
    expect(values.map((snapshot) => snapshot.usage)).toEqual([null, null]);
  });

  it('puts an estimate in the partial of a stream cut off before its finish', () => {
    const { error } = runSync([{ type: 'content', choice: 0, text: 'abcdefghi' }] as ChatEvent[], scanCompletion({ estimateUsage: true }));
    expect(((error as StreamClosedEarlyError).partial as CompletionSnapshot).usage).toEqual(estimate(3));
  });
});

describe('estimateTokenUsage', () => {
  it('reads a snapshot, counting the arguments of calls that have not closed', () => {
    const snapshot = runSync(twoChoices.slice(0, 5), scanCompletion()).values.at(-1)!;
    // "Let me see." (11) + "Sure!!" (6) + '{"city":' (8) = 25: 7 tokens.
    expect(estimateTokenUsage(snapshot)).toEqual(estimate(7));
  });
});
