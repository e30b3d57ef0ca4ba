import { TestScheduler } from 'rxjs/testing';
import { firstValueFrom, toArray } from 'rxjs';
import {
  StreamClosedEarlyError,
  assembleChunks,
  awsEventStreamFrames,
  finalizeCompletion,
  fromResponse,
  type SseFrame,
} from '../src/index';
import { concat, converseStream, eventMessage } from './support/awsEventStream';
import { bodyStream } from '../src/testing/bodyStream';
import { fakeResponse } from '../src/testing/fakeResponse';

// Messages written by @smithy/eventstream-codec; ConverseStream's events as
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html documents them.

const start = eventMessage('messageStart', { role: 'assistant' });
const delta = eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } });
const frame = (event: string, data: string): SseFrame => ({ event, data, id: '' });

describe('awsEventStreamFrames', () => {
  it('emits each message when its last byte arrives (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const both = concat([start, delta]);
      const cut = start.length + 5;
      const source = cold('-a--b--c--|', { a: both.subarray(0, 10), b: both.subarray(10, cut), c: both.subarray(cut) });
      expectObservable(source.pipe(awsEventStreamFrames())).toBe('----x--y--|', {
        x: frame('messageStart', '{"role":"assistant"}'),
        y: frame('contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"Hi"}}'),
      });
      expectSubscriptions(source.subscriptions).toBe('^---------!');
    });
  });

  it('errors with StreamClosedEarlyError when the bytes stop inside a message (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b|', { a: start, b: delta.subarray(0, 20) });
      const error = new StreamClosedEarlyError(
        `the stream ended mid-message: message 2 (at byte ${start.length}) has 20 of ${delta.length} bytes`,
      );
      expectObservable(source.pipe(awsEventStreamFrames())).toBe('-x--#', { x: frame('messageStart', '{"role":"assistant"}') }, error);
    });
  });

  it('reads a fetch Response of type application/vnd.amazon.eventstream through fromResponse', async () => {
    const bytes = converseStream([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['messageStop', { stopReason: 'end_turn' }],
    ]);
    const response = fakeResponse(bodyStream(Uint8Array.from(bytes), { dialect: 'bedrock-converse' }));
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const completions = await firstValueFrom(
      fromResponse(response).pipe(awsEventStreamFrames(), assembleChunks(), finalizeCompletion(), toArray()),
    );
    expect(completions).toMatchObject([{ content: 'Hello', finishReason: 'stop' }]);
  });
});
