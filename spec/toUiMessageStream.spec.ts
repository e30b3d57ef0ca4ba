import { TestScheduler } from 'rxjs/testing';
import { ProviderError } from '../src/errors/errors';
import { ChatEvent } from '../src/types/events';
import { encodeUiMessageSse, toUiMessageStream } from '../src/ui/toUiMessageStream';
import { UiMessageChunk } from '../src/ui/uiMessageChunks';
import { UiMessageEncoder } from '../src/ui/UiMessageEncoder';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('toUiMessageStream', () => {
  it('opens the message and each part before its deltas and closes them before the step ends', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const events = cold<ChatEvent>('a 9ms b 9ms c 9ms d 9ms |', {
        a: { type: 'start', id: 'chatcmpl-1', model: 'm' },
        b: { type: 'reasoning', choice: 0, text: 'hm' },
        c: { type: 'content', choice: 0, text: 'Hi' },
        d: { type: 'done' },
      });
      expectObservable(events.pipe(toUiMessageStream())).toBe('(ab) 6ms (cd) 6ms (efg) 5ms (hij) 5ms |', {
        a: { type: 'start', messageId: 'chatcmpl-1' },
        b: { type: 'start-step' },
        c: { type: 'reasoning-start', id: 'reasoning-1' },
        d: { type: 'reasoning-delta', id: 'reasoning-1', delta: 'hm' },
        e: { type: 'reasoning-end', id: 'reasoning-1' },
        f: { type: 'text-start', id: 'text-2' },
        g: { type: 'text-delta', id: 'text-2', delta: 'Hi' },
        h: { type: 'text-end', id: 'text-2' },
        i: { type: 'finish-step' },
        j: { type: 'finish' },
      } satisfies Record<string, UiMessageChunk>);
    });
  });

  it('ends a failed stream with the open part closed and an error chunk, then completes', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const events = cold<ChatEvent>('a 9ms #', { a: { type: 'content', choice: 0, text: 'x' } }, new ProviderError('overloaded'));
      expectObservable(events.pipe(toUiMessageStream({ messageId: 'm' }))).toBe('(abcd) 4ms (ef|)', {
        a: { type: 'start', messageId: 'm' },
        b: { type: 'start-step' },
        c: { type: 'text-start', id: 'text-1' },
        d: { type: 'text-delta', id: 'text-1', delta: 'x' },
        e: { type: 'text-end', id: 'text-1' },
        f: { type: 'error', errorText: 'the provider reported an error (ProviderError, in-stream)' },
      });
    });
  });

  it("sends a fixed error text for an error that is not this library's", () => {
    expect(new UiMessageEncoder().fail(new Error('connect ECONNREFUSED 10.0.0.7'))).toContainEqual({
      type: 'error',
      errorText: 'the stream failed',
    });
  });

  it('leaves out other choices and maps the finish reason to the UI spelling', () => {
    const encoder = new UiMessageEncoder();
    const chunks = [
      { type: 'content', choice: 1, text: 'other' },
      { type: 'finish', choice: 1, reason: 'stop', raw: 'stop' },
      { type: 'finish', choice: 0, reason: 'content_filter', raw: 'content_filter' },
      { type: 'done' },
    ].flatMap((event) => encoder.encode(event as ChatEvent));
    expect(chunks).toEqual([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'content-filter' },
    ]);
  });

  it('refuses tool-call fragments that groupToolCallsByIndex did not see', () => {
    expect(() => new UiMessageEncoder().encode({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '{' })).toThrow(
      'toUiMessageStream reads tool calls after groupToolCallsByIndex()',
    );
  });
});

describe('encodeUiMessageSse', () => {
  it('writes each chunk as a data line and ends with [DONE]', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold<UiMessageChunk>('a-b|', { a: { type: 'start' }, b: { type: 'finish', finishReason: 'stop' } });
      expectObservable(chunks.pipe(encodeUiMessageSse())).toBe('a-b(c|)', {
        a: 'data: {"type":"start"}\n\n',
        b: 'data: {"type":"finish","finishReason":"stop"}\n\n',
        c: 'data: [DONE]\n\n',
      });
    });
  });
});
