import { ChatEvent } from '../../../src/types/events';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { WEATHER, bodyText, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('chat-events');

describe('chat-events: the bytes', () => {
  const reply = {
    ...WEATHER,
    choices: [
      { ...WEATHER.choices[0]!, reasoningSignatures: ['sig'] },
      { text: 'Two.', finishReason: 'content_filter' as const },
    ],
  };
  const events = sseEvents(bodyText(providerStream(reply, 'chat-events').chunks)).map((event) => {
    const [name, id, data] = event.split('\n');
    return {
      name: name!.replace(/^event: /, ''),
      id: id!.replace(/^id: /, ''),
      event: JSON.parse(data!.replace(/^data: /, '')) as ChatEvent,
    };
  });

  it("are this library's events as a NestJS @Sse() endpoint sends them: event, id 1, 2, 3, ..., data", () => {
    expect(events.map((e) => e.id)).toEqual(events.map((_, k) => String(k + 1)));
    expect(events.every((e) => e.name === e.event.type)).toBe(true);
    expect(events[0]!.event).toEqual({ type: 'start', id: 'chatcmpl-test', model: 'test-model' });
    expect(events.slice(-4).map((e) => e.event)).toEqual([
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      { type: 'finish', choice: 1, reason: 'content_filter', raw: 'content_filter' },
      { type: 'usage', usage: { promptTokens: 472, completionTokens: 161, totalTokens: 633 } },
      { type: 'done' },
    ]);
  });

  it('read the same under strict', () => {
    expect(strictOutcome(reply, 'chat-events').values).toEqual([expectedCompletion(reply, 'chat-events')]);
  });
});
