import { TestScheduler } from 'rxjs/testing';
import { StreamIdleError } from 'rxjs-llm-stream';
import { coldBytes, providerStream, type TestReply } from 'rxjs-llm-stream/testing';
import { toolCallsToRun } from './toolCallsToRun.js';

const reply: TestReply = {
  choices: [{ text: 'Let me check the weather.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }] }],
};
const theCall = expect.objectContaining({ id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } });

describe('toolCallsToRun', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('gives the call, its arguments parsed, when the reply ends: one chunk every 10 ms', () => {
    testScheduler.run(({ expectObservable }) => {
      const stream = providerStream(reply, 'openai-chat');
      const end = 10 * stream.chunks.length; // when the last chunk, with the end signal, arrives
      expectObservable(toolCallsToRun(coldBytes(stream, { every: 10 }))).toBe(`${end}ms (c|)`, { c: theCall });
    });
  });

  it('gives it when the body ends, placed by a marble: the whole body at 2 ms, its end at 5 ms', () => {
    testScheduler.run(({ expectObservable }) => {
      const stream = providerStream(reply, 'openai-chat', { chunking: 'whole' });
      expectObservable(toolCallsToRun(coldBytes(stream, '--a--|'))).toBe('-----(c|)', { c: theCall });
    });
  });

  it('runs no call of a reply cut inside its arguments: it fails where the body stops, with the text that arrived', () => {
    testScheduler.run(({ expectObservable }) => {
      const stream = providerStream(reply, 'openai-chat', { fault: 'cut-in-arguments' });
      const end = 10 * stream.chunks.length;
      expectObservable(toolCallsToRun(coldBytes(stream, { every: 10 }))).toBe(
        `${end}ms #`,
        undefined,
        expect.objectContaining({
          name: 'StreamClosedEarlyError',
          reason: 'no-end-signal',
          partial: expect.objectContaining({
            content: stream.fault!.partial.content,
            toolCalls: [expect.objectContaining({ complete: false })],
          }),
        }),
      );
    });
  });

  it('fails 30 s after a reply went silent, in virtual time', () => {
    testScheduler.run(({ expectObservable }) => {
      const stream = providerStream(reply, 'openai-chat', { fault: 'stall' });
      const lastByte = 10 * stream.chunks.length;
      expectObservable(toolCallsToRun(coldBytes(stream, { every: 10 }))).toBe(
        `${lastByte + 30_000}ms #`,
        undefined,
        expect.any(StreamIdleError),
      );
    });
  });
});
