import { OperatorFunction, pipe } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { LlmStreamError, ProtocolError } from '../src/errors/errors';
import { Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf, utf8 } from './support/chunking';
import { Outcome, runSync } from './support/collect';

/**
 * Regressions for faults found by the hostile corpus and the fuzzers in files that were being
 * optimized at the time (src/dialects/openaiChat.ts, src/core/CompletionTracker.ts,
 * src/core/Utf8Decoder.ts): each test states the right outcome and fails until its fix is applied.
 */

function pipeline(options: { fatal?: boolean } = {}): OperatorFunction<Uint8Array, Completion> {
  return pipe(decodeUtf8(options), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion());
}

const data = (payload: string): string => `data: ${payload}\n\n`;
const DONE = data('[DONE]');

function libraryError(outcome: Outcome<Completion>): LlmStreamError {
  expect(outcome.values).toEqual([]);
  expect(outcome.error).toBeInstanceOf(LlmStreamError);
  return outcome.error as LlmStreamError;
}

describe('regressions', () => {
  it('openai-chat: function.arguments sent as an object nested 100,000 deep is a ProtocolError, not a RangeError', () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const bytes = utf8(
      data('{"id":"h1","choices":[{"index":0,"delta":{"content":"a"}}]}') +
        data(
          `{"id":"h1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":${deep}}}]}}]}`,
        ) +
        DONE,
    );
    const error = libraryError(runSync([bytes], pipeline()));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toBe('frame 2: choices[0].delta.tool_calls[0].function.arguments is nested too deeply to serialize');
    expect(error.partial).toMatchObject({ content: 'a', finished: false });
  });

  it('openai-chat: choices as a non-empty object is a ProtocolError, not a choice dropped unread', () => {
    // `choices: {}` carries nothing and stays absorbed; an object holding a choice would lose "lost".
    const bytes = utf8(
      data('{"id":"h1","choices":[{"index":0,"delta":{"content":"kept "}}]}') +
        data('{"id":"h1","choices":{}}') +
        data('{"id":"h1","choices":{"0":{"index":0,"delta":{"content":"lost"}}}}') +
        data('{"id":"h1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}') +
        DONE,
    );
    const error = libraryError(runSync([bytes], pipeline()));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toBe('frame 3: choices is not an array');
    expect(error.partial).toMatchObject({ content: 'kept ' });
  });

  it('openai-chat: timings keep a field named __proto__ as an own field (llama.cpp /v1), prototype untouched', () => {
    const bytes = utf8(
      data('{"id":"h1","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"timings":{"__proto__":1,"predicted_n":2}}') +
        DONE,
    );
    const outcome = runSync([bytes], pipeline());
    expect(outcome.error).toBeUndefined();
    const timings = outcome.values[0]!.timings!;
    expect(Object.getPrototypeOf(timings)).toBe(Object.prototype);
    expect(Object.keys(timings)).toEqual(['__proto__', 'predicted_n']);
    expect(Object.getOwnPropertyDescriptor(timings, '__proto__')?.value).toBe(1);
  });

  it('CompletionTracker: a finish repeated 2,000 times after 1,024 calls does not sort the calls again each time', () => {
    const calls = Array.from(
      { length: 1024 },
      (_, i) => `{"index":${i},"id":"c${i}","type":"function","function":{"name":"f","arguments":"{}"}}`,
    ).join(',');
    const finish = data('{"id":"h1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}');
    const bytes = utf8(data(`{"id":"h1","choices":[{"index":0,"delta":{"tool_calls":[${calls}]}}]}`) + finish.repeat(2000) + DONE);
    // Count the elements sorted: sorting every call at every finish sorted 2 trackers x 2,000 x 1,024
    // of them, a cost per frame that grows with the calls (a 9 MB stream took 4.5 s instead of 0.3 s).
    // Past a budget linear in the calls the spy stops the run at once.
    let sorted = 0;
    const budget = 10 * 1024;
    const originalSort = Array.prototype.sort;
    const spy = jest.spyOn(Array.prototype, 'sort').mockImplementation(function <T>(this: T[], compare?: (a: T, b: T) => number) {
      sorted += this.length;
      if (sorted > budget) throw new Error(`sorted ${sorted} elements for 1024 calls`);
      return originalSort.call(this, compare) as T[];
    });
    let outcome: Outcome<Completion>;
    try {
      outcome = runSync([bytes], pipeline());
    } finally {
      spy.mockRestore();
    }
    expect(outcome.error).toBeUndefined();
    expect(outcome.values[0]!.toolCalls).toHaveLength(1024);
    expect(sorted).toBeLessThanOrEqual(budget);
  });

  it('decodeUtf8({ fatal: true }): the text before an invalid byte reaches the partial whatever the chunking', () => {
    const bytes = utf8(
      data('{"id":"h1","choices":[{"index":0,"delta":{"content":"ok"}}]}') + 'data: {"id":"h1","choices":[{"index":0,"delta":{"content":"a',
    );
    const invalid = new Uint8Array([...bytes, 0xff, ...utf8('"}}]}\n\n' + DONE)]);
    const offset = bytes.length;
    for (const size of [invalid.length, 64, 7, 1]) {
      const error = libraryError(runSync(chunksOf(invalid, size), pipeline({ fatal: true })));
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toBe(`invalid UTF-8 at byte offset ${offset}`);
      // Frame 1 arrived whole before the fault: with the stream in one chunk it was lost.
      expect(error.partial).toMatchObject({ id: 'h1', content: 'ok' });
    }
  });
});
