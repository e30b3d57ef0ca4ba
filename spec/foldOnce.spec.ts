import { readFileSync } from 'fs';
import { join } from 'path';
import { OperatorFunction, pipe } from 'rxjs';
import { z } from 'zod';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ChatEvent, Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { scanCompletion } from '../src/reply/scanCompletion';
import { sseFrames } from '../src/frames/sseFrames';
import { validateToolCalls } from '../src/reply/validateToolCalls';
import { chunksOf } from './support/chunking';
import { runSync } from './support/collect';

// The README's pipeline folds the events once: groupToolCallsByIndex closes each call and parses its
// arguments, and the tracker after it adopts that parse instead of making its own.

const MARBLES = join(__dirname, '..', 'marbles');
const RECORDINGS = [
  'openai/tool-calls-interleaved.sse',
  'dialects/anthropic-messages.sse',
  'dialects/openai-responses.sse',
  'dialects/gemini-native.sse',
];

/** Runs `bytes` through the pipeline, counting `JSON.parse` calls made on each call's arguments text. */
function parsesOfArguments<T>(bytes: Uint8Array, tail: OperatorFunction<ChatEvent, T>): { values: T[]; parses: Map<string, number> } {
  const parses = new Map<string, number>();
  const parse = JSON.parse;
  const spy = jest
    .spyOn(JSON, 'parse')
    .mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parses.set(text, (parses.get(text) ?? 0) + 1);
      return parse(text, reviver);
    });
  try {
    const { values, error } = runSync(chunksOf(bytes, 64), pipe(decodeUtf8(), sseFrames(), assembleChunks(), tail));
    if (error !== undefined) throw error;
    return { values, parses };
  } finally {
    spy.mockRestore();
  }
}

describe('each tool call is parsed once', () => {
  it.each(RECORDINGS)('%s through the README pipeline (groupToolCallsByIndex then finalizeCompletion)', (name) => {
    const bytes = new Uint8Array(readFileSync(join(MARBLES, name)));
    const { values, parses } = parsesOfArguments(bytes, pipe(groupToolCallsByIndex(), finalizeCompletion()));
    const completion = values[0] as Completion;
    expect(completion.toolCalls.length).toBeGreaterThanOrEqual(2);
    for (const call of completion.toolCalls) expect([call.name, parses.get(call.arguments)]).toEqual([call.name, 1]);
  });

  it.each(RECORDINGS)('%s with scanCompletion after groupToolCallsByIndex, and with finalizeCompletion alone', (name) => {
    const bytes = new Uint8Array(readFileSync(join(MARBLES, name)));
    for (const tail of [pipe(groupToolCallsByIndex(), scanCompletion()), finalizeCompletion()]) {
      const { values, parses } = parsesOfArguments(
        bytes,
        tail as OperatorFunction<ChatEvent, { toolCalls: readonly { arguments: string }[] }>,
      );
      const last = values[values.length - 1]!;
      expect(last.toolCalls.length).toBeGreaterThanOrEqual(2);
      for (const call of last.toolCalls) expect(parses.get(call.arguments)).toBe(1);
    }
  });

  it("the completion after validateToolCalls holds the schema's output: the checked calls are adopted as they are", () => {
    const bytes = new Uint8Array(readFileSync(join(MARBLES, 'openai/tool-calls-interleaved.sse')));
    const tools = {
      get_weather: z.object({ city: z.string(), unit: z.string(), checked: z.boolean().default(true) }),
      get_time: z.object({ tz: z.string() }).transform((args) => ({ ...args, zone: args.tz.toUpperCase() })),
    };
    const { values } = runSync(
      chunksOf(bytes, 64),
      pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), validateToolCalls(tools), finalizeCompletion()),
    );
    const completion = values[0]!;
    expect(completion.toolCalls.map((call) => call.args)).toEqual([
      { city: 'Zürich', unit: 'celsius', checked: true },
      { tz: 'Asia/Tokyo', zone: 'ASIA/TOKYO' },
    ]);
    expect(completion.toolCalls[0]!.arguments).toBe('{"city":"Zürich","unit":"celsius"}'); // the model's text, unchanged
  });

  it('refuses a tool-call event that does not match the fragments it claims to close', () => {
    const events: ChatEvent[] = [
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"x":1}' },
      { type: 'tool-call', choice: 0, call: { index: 0, id: 'a', name: 'f', arguments: '{"x":2}', args: { x: 2 } } },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
    ];
    const { error } = runSync(events, finalizeCompletion());
    expect(error).toMatchObject({
      name: 'ProtocolError',
      reason: 'invalid-tool-call',
      message: 'the tool-call event for tool call 0 of choice 0 does not match its fragments',
    });
  });
});
