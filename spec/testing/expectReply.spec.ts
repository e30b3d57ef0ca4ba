import { lastValueFrom, toArray } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ChatEvent, Completion } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { fromResponse } from '../../src/io/fromResponse';
import { sseFrames } from '../../src/frames/sseFrames';
import { bodyStream } from '../../src/testing/bodyStream';
import { ReplyMismatchError, expectCompletion, expectEvents } from '../../src/testing/expectReply';
import { fakeResponse } from '../../src/testing/fakeResponse';
import { TestReply } from '../../src/dialects/writing/TestReply';
import { ProviderStream } from '../../src/testing/ProviderStream';

// The assertions pass on what the real pipeline assembles from a stream written out by hand, and
// fail, with a message naming each difference, on a reply that says something else.

const sse = (...payloads: (object | string)[]): string[] =>
  payloads.map((payload) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
const chunk = (delta: object, finish: string | null = null, index = 0) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'm-1',
  choices: [{ index, delta, finish_reason: finish }],
});

/** Reasoning, text, two calls whose arguments arrive in pieces, usage: as openai-chat servers send them. */
const withCalls = bodyStream(
  sse(
    chunk({ role: 'assistant', reasoning_content: 'Let me ' }),
    chunk({ reasoning_content: 'think.' }),
    chunk({ content: 'Hello, ' }),
    chunk({ content: 'world' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } }] }),
    chunk({}, 'tool_calls'),
    { ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } },
    '[DONE]',
  ),
);

const withCallsReply: TestReply = {
  id: 'chatcmpl-1',
  model: 'm-1',
  usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 },
  choices: [
    {
      reasoning: 'Let me think.',
      text: 'Hello, world',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_b', name: 'get_time', arguments: { tz: 'CET' } },
      ],
    },
  ],
};

/** A reply the token limit cut inside its second call. */
const cutByLength = bodyStream(
  sse(
    chunk({ content: 'Checking.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Ber' } }] }),
    chunk({}, 'length'),
    '[DONE]',
  ),
);

/** Two choices (n = 2). */
const twoChoices = bodyStream(
  sse(chunk({ content: 'Yes' }, null, 0), chunk({ content: 'No' }, null, 1), chunk({}, 'stop', 0), chunk({}, 'stop', 1), '[DONE]'),
);

const read = (stream: ProviderStream) => fromResponse(fakeResponse(stream)).pipe(decodeUtf8(), sseFrames(), assembleChunks());
const completionOf = (stream: ProviderStream): Promise<Completion> => lastValueFrom(read(stream).pipe(finalizeCompletion()));
const eventsOf = (stream: ProviderStream, grouped: boolean): Promise<ChatEvent[]> =>
  lastValueFrom((grouped ? read(stream).pipe(groupToolCallsByIndex()) : read(stream)).pipe(toArray()));

/** The message `check` throws, or a failure when it throws none. */
function messageOf(check: () => void): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(ReplyMismatchError);
    return (error as Error).message;
  }
  throw new Error('expected a ReplyMismatchError, got none');
}

describe('expectCompletion', () => {
  it('passes on the completion of a stream that carried the reply: reasoning, text, calls, usage, id, model', async () => {
    expect(() => expectCompletion(completion, withCallsReply)).not.toThrow();
  });

  it('checks only what the reply says: no id, model, usage or call ids named, none compared', async () => {
    const said: TestReply = {
      choices: [
        {
          reasoning: 'Let me think.',
          text: 'Hello, world',
          toolCalls: [withCall('get_weather', { city: 'Oslo' }), withCall('get_time', { tz: 'CET' })],
        },
      ],
    };
    expect(() => expectCompletion(completion, said)).not.toThrow();
  });

  it('passes on a reply the token limit cut inside a call: the cut call in incompleteToolCalls, as its text', async () => {
    const reply: TestReply = {
      choices: [
        {
          text: 'Checking.',
          finishReason: 'length',
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_b', name: 'get_weather', arguments: { raw: '{"city":"Ber' } },
          ],
        },
      ],
    };
    expect(() => expectCompletion(cut, reply)).not.toThrow();
  });

  it('passes on every choice of a reply with two', async () => {
    expect(() => expectCompletion(two, { choices: [{ text: 'Yes' }, { text: 'No' }] })).not.toThrow();
  });

  it('throws one message that lists every difference, path, expected and got, one per line', async () => {
    const reply: TestReply = {
      ...withCallsReply,
      usage: { promptTokens: 12, completionTokens: 20, totalTokens: 30 },
      choices: [
        {
          ...withCallsReply.choices[0]!,
          text: 'Hello, world!',
          toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Bergen' } }],
        },
      ],
    };
    expect(messageOf(() => expectCompletion(completion, reply))).toBe(
      [
        'the completion is not the reply (4 differences):',
        '  usage.promptTokens: expected 12, got 10',
        '  choices[0].text: expected "Hello, world!", got "Hello, world"',
        '  choices[0].toolCalls[0].arguments.city: expected "Bergen", got "Oslo"',
        '  choices[0].toolCalls[1]: expected nothing, got {"id":"call_b","name":"get_time","arguments":{"tz":"CET"}}',
      ].join('\n'),
    );
  });

  const first = withCallsReply.choices[0]!;
  it.each<[string, TestReply, string]>([
    ['the id', { ...withCallsReply, id: 'chatcmpl-2' }, 'id: expected "chatcmpl-2", got "chatcmpl-1"'],
    ['the model', { ...withCallsReply, model: 'm-2' }, 'model: expected "m-2", got "m-1"'],
    ['the reasoning', { choices: [{ ...first, reasoning: undefined }] }, 'choices[0].reasoning: expected "", got "Let me think."'],
    ['the finish reason', { choices: [{ ...first, finishReason: 'stop' }] }, 'choices[0].finishReason: expected "stop", got "tool_calls"'],
    [
      'a call id',
      { choices: [{ ...first, toolCalls: [{ ...first.toolCalls![0]!, id: 'call_x' }, first.toolCalls![1]!] }] },
      'choices[0].toolCalls[0].id: expected "call_x", got "call_a"',
    ],
    [
      'a call name',
      { choices: [{ ...first, toolCalls: [first.toolCalls![0]!, { ...first.toolCalls![1]!, name: 'get_date' }] }] },
      'choices[0].toolCalls[1].name: expected "get_date", got "get_time"',
    ],
    [
      'arguments given as text',
      { choices: [{ ...first, toolCalls: [first.toolCalls![0]!, { ...first.toolCalls![1]!, arguments: { raw: '{"tz": "CET"}' } }] }] },
      'choices[0].toolCalls[1].arguments.raw: expected "{\\"tz\\": \\"CET\\"}", got "{\\"tz\\":\\"CET\\"}"',
    ],
    [
      'a call that did not arrive',
      { choices: [{ ...first, toolCalls: [...first.toolCalls!, { name: 'get_date', arguments: {} }] }] },
      'choices[0].toolCalls[2]: expected {"name":"get_date","arguments":{}}, got nothing',
    ],
    [
      'a choice that did not arrive',
      { choices: [first, { text: 'Bye' }] },
      'choices[1]: expected {"text":"Bye","reasoning":"","toolCalls":[],"finishReason":"stop"}, got nothing',
    ],
  ])('names %s that differs', async (_what, reply, line) => {
    expect(messageOf(() => expectCompletion(completion, reply))).toBe(`the completion is not the reply (1 difference):\n  ${line}`);
  });

  it('shows where two long texts part, not the whole of each', () => {
    const long = 'The forecast for Oslo is sunny with a light breeze from the west, and warm.';
    const reply: TestReply = { choices: [{ text: long.replace('west', 'east') }] };
    const got = { ...two, choices: [{ ...two.choices[0]!, content: long }], content: long };
    expect(messageOf(() => expectCompletion(got, reply))).toBe(
      'the completion is not the reply (1 difference):\n' +
        '  choices[0].text: differs from character 60: expected …"a light breeze from the east, and warm." (75 characters),' +
        ' got …"a light breeze from the west, and warm." (75 characters)',
    );
  });

  it('says where a cut call went wrong: kept apart, or run as if whole', async () => {
    const asWhole: TestReply = {
      choices: [{ text: 'Checking.', finishReason: 'length', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }],
    };
    expect(messageOf(() => expectCompletion(cut, asWhole))).toBe(
      'the completion is not the reply (1 difference):\n' +
        '  choices[0].incompleteToolCalls: expected nothing, got [{"id":"call_b","name":"get_weather","arguments":"{\\"city\\":\\"Ber"}]',
    );
  });

  it('carries the differences and both sides as compared on the error', async () => {
    let caught: unknown;
    try {
      expectCompletion(completion, { ...withCallsReply, model: 'm-2' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught).toMatchObject({
      name: 'ReplyMismatchError',
      differences: [{ path: 'model', expected: 'm-2', actual: 'm-1' }],
      expected: { model: 'm-2' },
      actual: { model: 'm-1' },
    });
  });

  let completion: Completion;
  let cut: Completion;
  let two: Completion;
  beforeAll(async () => {
    [completion, cut, two] = await Promise.all([completionOf(withCalls), completionOf(cutByLength), completionOf(twoChoices)]);
  });
});

/** A call without an id: the reply leaves the id to the provider. */
function withCall(name: string, args: { [key: string]: string }) {
  return { name, arguments: args };
}

describe('expectEvents', () => {
  it.each([true, false])('passes on the events of a stream that carried the reply (grouped: %s)', async (grouped) => {
    const events = await eventsOf(withCalls, grouped);
    expect(() => expectEvents(events, withCallsReply)).not.toThrow();
  });

  it.each([true, false])('passes on a reply cut inside a call by the token limit (grouped: %s)', async (grouped) => {
    const events = await eventsOf(cutByLength, grouped);
    const reply: TestReply = {
      choices: [
        {
          text: 'Checking.',
          finishReason: 'length',
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Oslo' } },
            { name: 'get_weather', arguments: { raw: '{"city":"Ber' } },
          ],
        },
      ],
    };
    expect(() => expectEvents(events, reply)).not.toThrow();
  });

  it('names what differs, as expectCompletion does', async () => {
    const events = await eventsOf(twoChoices, true);
    expect(messageOf(() => expectEvents(events, { choices: [{ text: 'Yes' }, { text: 'Nope' }] }))).toBe(
      'the events are not the reply (1 difference):\n  choices[1].text: expected "Nope", got "No"',
    );
  });

  it('fails on events that stop before the end signal, even when they carried the whole reply', async () => {
    const events = await eventsOf(twoChoices, true);
    expect(messageOf(() => expectEvents(events.slice(0, -1), { choices: [{ text: 'Yes' }, { text: 'No' }] }))).toBe(
      'the events are not the reply (1 difference):\n  events[4].type: expected "done", got "finish"',
    );
  });

  it('fails on no events at all, naming each part that did not arrive', () => {
    expect(messageOf(() => expectEvents([], { choices: [{ text: 'Hi' }] }))).toBe(
      'the events are not the reply (2 differences):\n' +
        '  choices[0]: expected {"text":"Hi","reasoning":"","toolCalls":[],"finishReason":"stop"}, got nothing\n' +
        '  events[0].type: expected "done", got nothing',
    );
  });

  it('reads a call from its fragments when the events are not grouped, and names its arguments when they differ', async () => {
    const events = await eventsOf(withCalls, false);
    const first = withCallsReply.choices[0]!;
    const reply: TestReply = {
      choices: [{ ...first, toolCalls: [{ ...first.toolCalls![0]!, arguments: { city: 'Oslo', days: 3 } }, first.toolCalls![1]!] }],
    };
    expect(messageOf(() => expectEvents(events, reply))).toBe(
      'the events are not the reply (1 difference):\n  choices[0].toolCalls[0].arguments.days: expected 3, got nothing',
    );
  });
});
