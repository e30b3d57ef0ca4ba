import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { OperatorFunction, pipe } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { JsonTemplateParser } from '../src/json/JsonTemplateParser';
import { SseFrame } from '../src/frames/SseParser';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { DialectFactory } from '../src/dialects/Dialect';
import { DIALECTS } from '../src/dialects/registry';
import { autoDialect } from '../src/dialects/auto';
import { ChatEvent, Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../src/frames/ndjsonFrames';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf } from './support/chunking';
import { Outcome, runSync } from './support/collect';

/**
 * Every recording in marbles/ replayed through the whole pipeline, at every chunk size from 1 to 64,
 * against the result written beside it from an independent reading of the bytes (marbles/README.md).
 */

interface Expected {
  dialect: string;
  completion?: Completion;
  error?: string;
  partial?: Record<string, unknown>;
}

const NAMED: Readonly<Record<string, DialectFactory | undefined>> = DIALECTS;

const MARBLES = join(__dirname, '..', 'marbles');

function recordings(): { name: string; bytes: Uint8Array; framing: OperatorFunction<string, SseFrame>; expected: Expected }[] {
  const found = [];
  for (const folder of ['openai', 'real', 'dialects']) {
    for (const file of readdirSync(join(MARBLES, folder)).sort()) {
      const match = /^(.*)\.(sse|ndjson)$/.exec(file);
      if (!match) continue;
      const expected = JSON.parse(readFileSync(join(MARBLES, folder, `${match[1]}.expected.json`), 'utf8')) as Expected;
      found.push({
        name: `${folder}/${file}`,
        bytes: new Uint8Array(readFileSync(join(MARBLES, folder, file))),
        framing: match[2] === 'ndjson' ? ndjsonFrames() : sseFrames(),
        expected,
      });
    }
  }
  return found;
}

function replay(
  bytes: Uint8Array,
  size: number,
  framing: OperatorFunction<string, SseFrame>,
  dialect: DialectFactory,
): Outcome<Completion> {
  return runSync(
    chunksOf(bytes, size),
    pipe(decodeUtf8(), framing, assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()),
  );
}

const all = recordings();

describe('recordings in marbles/', () => {
  it('holds the recordings the issues ask for', () => {
    const names = all.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'openai/text.sse',
        'openai/truncated-mid-line.sse',
        'real/openai-text.sse',
        'dialects/anthropic-messages.sse',
      ]),
    );
    expect(all.length).toBeGreaterThanOrEqual(41);
  });

  describe.each(all.map((r) => [r.name, r] as const))('%s', (_name, recording) => {
    const explicit = NAMED[recording.expected.dialect];

    it('names a dialect the library speaks', () => {
      expect(explicit).toBeDefined();
    });

    it.each([
      ['its own dialect', explicit!],
      ['auto', autoDialect],
    ])('assembles to the expected result with %s', (_how, dialect) => {
      const outcome = replay(recording.bytes, recording.bytes.length, recording.framing, dialect);
      if (recording.expected.completion !== undefined) {
        expect(outcome.error).toBeUndefined();
        expect(outcome.values).toEqual([recording.expected.completion]);
      } else {
        expect(outcome.values).toEqual([]);
        expect((outcome.error as Error).name).toBe(recording.expected.error);
        expect((outcome.error as { partial: unknown }).partial).toMatchObject(recording.expected.partial!);
      }
    });

    // `auto` chooses by the first frame, which the framing hands over whole at any chunking: the
    // sweep of every size runs with the dialect itself, `auto` at the sizes that cut lines often.
    it.each([
      ['every chunk size from 1 to 64 with its own dialect', explicit!, Array.from({ length: 64 }, (_, i) => i + 1)],
      ['chunk sizes 1, 2, 7 and 64 with auto', autoDialect, [1, 2, 7, 64]],
    ])('gives the identical outcome at %s', (_how, dialect, sizes) => {
      const whole = replay(recording.bytes, recording.bytes.length, recording.framing, dialect);
      for (const size of sizes) {
        const outcome = replay(recording.bytes, size, recording.framing, dialect);
        expect(outcome.values).toEqual(whole.values);
        expect(outcome.error === undefined).toBe(whole.error === undefined);
        if (whole.error !== undefined) {
          expect((outcome.error as Error).message).toBe((whole.error as Error).message);
          expect((outcome.error as { partial: unknown }).partial).toEqual((whole.error as { partial: unknown }).partial);
        }
      }
    });
  });
});

/**
 * The dialects read payloads through `JsonTemplateParser` with `reuse`: a payload read through a
 * template is overwritten by the next one. These tests prove that no dialect keeps an object of a
 * payload: every recording (and a long synthetic stream of every kind of OpenAI chunk) gives the
 * same events, in full, with templates and with a plain `JSON.parse` of every payload.
 */
describe('payloads read through templates', () => {
  function events(bytes: Uint8Array, framing: OperatorFunction<string, SseFrame>, dialect: DialectFactory): Outcome<ChatEvent> {
    return runSync(chunksOf(bytes, 7), pipe(decodeUtf8(), framing, assembleChunks({ dialect })));
  }

  function withoutTemplates<T>(body: () => T): T {
    const spy = jest.spyOn(JsonTemplateParser.prototype, 'parse').mockImplementation((text: string): unknown => JSON.parse(text));
    try {
      return body();
    } finally {
      spy.mockRestore();
    }
  }

  /** Runs `body` and returns what it returned and the template hits of every parser it used. */
  function countingHits<T>(body: () => T): { result: T; hits: number } {
    const spy = jest.spyOn(JsonTemplateParser.prototype, 'parse');
    try {
      const result = body();
      const parsers = new Set(spy.mock.contexts as JsonTemplateParser[]);
      return { result, hits: [...parsers].reduce((sum, parser) => sum + parser.stats.hits, 0) };
    } finally {
      spy.mockRestore();
    }
  }

  function expectSameOutcome(actual: Outcome<ChatEvent>, expected: Outcome<ChatEvent>): void {
    expect(actual.values).toEqual(expected.values);
    expect((actual.error as Error | undefined)?.message).toBe((expected.error as Error | undefined)?.message);
  }

  it('every recording gives the same events with templates as without', () => {
    let hits = 0;
    for (const recording of all) {
      const dialect = NAMED[recording.expected.dialect]!;
      const templated = countingHits(() => events(recording.bytes, recording.framing, dialect));
      hits += templated.hits;
      expectSameOutcome(
        templated.result,
        withoutTemplates(() => events(recording.bytes, recording.framing, dialect)),
      );
    }
    // The recordings are short, but the longer ones repeat their chunks' shape.
    expect(hits).toBeGreaterThan(100);
  });

  it('a long OpenAI stream mixing reasoning, text, refusals and interleaved tool calls gives the same events', () => {
    const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
    const lines: string[] = [];
    const delta = (body: string): void => void lines.push(`data: ${head}${body},"finish_reason":null}]}\n\n`);
    delta('{"role":"assistant","content":""}');
    for (let i = 0; i < 60; i++) delta(`{"reasoning_content":${JSON.stringify(`step ${i} "q" \\ `)}}`);
    for (let i = 0; i < 60; i++) delta(`{"content":${JSON.stringify(`word${i} é 中 😀\n`)}}`);
    for (let call = 0; call < 4; call++) {
      delta(`{"tool_calls":[{"index":${call},"id":"call_${call}","type":"function","function":{"name":"f${call}","arguments":""}}]}`);
    }
    for (let i = 0; i < 200; i++)
      delta(`{"tool_calls":[{"index":${i % 4},"function":{"arguments":${JSON.stringify(i < 4 ? '{"a":"' : 'x')}}}]}`);
    for (let call = 0; call < 4; call++) delta(`{"tool_calls":[{"index":${call},"function":{"arguments":"\\"}"}}]}`);
    lines.push(`data: ${head}{},"finish_reason":"tool_calls"}]}\n\n`);
    lines.push(
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],' +
        '"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}\n\ndata: [DONE]\n\n',
    );
    const bytes = new TextEncoder().encode(lines.join(''));
    const dialect = NAMED['openai-chat']!;
    const templated = countingHits(() => events(bytes, sseFrames(), dialect));
    expect(templated.hits).toBeGreaterThan(300);
    const plain = withoutTemplates(() => events(bytes, sseFrames(), dialect));
    expect(plain.error).toBeUndefined();
    expectSameOutcome(templated.result, plain);
    const completion = runSync(chunksOf(bytes, 64), pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect }), finalizeCompletion()));
    expect(completion.values[0]!.toolCalls.map((call) => call.args)).toEqual([
      { a: 'x'.repeat(49) },
      { a: 'x'.repeat(49) },
      { a: 'x'.repeat(49) },
      { a: 'x'.repeat(49) },
    ]);
  });
});
