import fc from 'fast-check';
import { lastValueFrom, map, toArray } from 'rxjs';
import { isDeepStrictEqual } from 'util';
import * as v from 'valibot';
import { z } from 'zod';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { IncompleteOutputError, StructuredOutputError } from '../src/structured/outputErrors';
import { ProtocolError, StreamClosedEarlyError } from '../src/errors/errors';
import type { JsonValue } from '../src/types/replyParts';
import { scanStructuredOutput } from '../src/structured/scanStructuredOutput';
import { structuredElements } from '../src/structured/structuredElements';
import type { StandardSchemaV1 } from '../src/types/standardSchema';
import type { StructuredOutputSnapshot } from '../src/structured/structuredOutput';
import { collect } from './support/collect';
import { marbleFile, readBytes } from './support/dialect';
import { TestScheduler } from 'rxjs/testing';
import type { ChatEvent } from '../src/types/events';
import { copy, isPrefix } from './support/jsonPrefix';
import { PROVIDERS, StructuredStream, anthropicTool, eventsOf, openaiContent, tokenDeltas } from './support/structuredStreams';

// The answer every provider streams below, and its schema: an object with a finished-early field, a
// list whose elements are each whole before the next begins, and a default and a transform that only
// the schema's own parse can fill in.
const answer: { title: string; hotels: { name: string; stars: number; tags: string[]; note?: string }[]; count: number; final: boolean } = {
  title: 'Hotels in Zürich — “quiet” ones 🏨',
  hotels: [
    { name: 'Storchen', stars: 5, tags: ['river', 'old town'] },
    { name: 'Widder', stars: 5, tags: [] },
    { name: 'Adler', stars: 3, tags: ['budget'], note: 'line1\nline2 \u00e9' },
  ],
  count: 3,
  final: true,
};
const text = JSON.stringify(answer, null, 1);
const Hotel = z.object({
  name: z.string().transform((name) => name.toUpperCase()),
  stars: z.number().int(),
  tags: z.array(z.string()),
  note: z.string().default('none'),
});
const Answer = z.object({ title: z.string(), hotels: z.array(Hotel), count: z.number(), final: z.boolean() });
// The expected values come from the schema's own parse of the known answer, not from this library.
const parsed = Answer.parse(answer);

const SIZES = [1, 7, 64, 100_000];

/** The snapshots' values, copied as they were (they are updated in place). */
async function scanned(stream: StructuredStream, size: number) {
  const values: (JsonValue | undefined)[] = [];
  const last: StructuredOutputSnapshot[] = [];
  const outcome = await collect(eventsOf(stream, size).pipe(scanStructuredOutput({ from: stream.from })));
  for (const snapshot of outcome.values) values.push(copy(snapshot.value));
  if (outcome.values.length > 0) last.push(outcome.values[outcome.values.length - 1]!);
  return { values, last: last[0], error: outcome.error, outcome };
}

describe('structured output', () => {
  describe.each(PROVIDERS.map((provider) => [provider(tokenDeltas(text)).name, provider] as const))('%s', (_, provider) => {
    const stream = provider(tokenDeltas(text));

    it.each(SIZES)('previews a growing value that ends in the answer, in %i-byte chunks', async (size) => {
      const { values, last, error } = await scanned(stream, size);
      expect(error).toBeUndefined();
      expect(values.length).toBeGreaterThan(10);
      values.forEach((value, i) => {
        expect(isPrefix(value, answer as unknown as JsonValue)).toBe(true);
        if (i > 0) expect(isPrefix(values[i - 1], value ?? null)).toBe(true);
      });
      expect(values[values.length - 1]).toEqual(answer);
      expect(last).toMatchObject({ done: true, openPath: null, stopped: null, text });
    });

    it.each(SIZES)('says which fields are final before the reply ends, in %i-byte chunks', async (size) => {
      // Read as a UI reads it: each snapshot when it comes (the value, and so the answers, are live).
      const paths: (string | number)[][] = [['title'], ['hotels', 0], ['hotels', 1], ['hotels'], []];
      const answers: boolean[][] = [];
      const titles: (string | undefined)[] = [];
      const source = eventsOf(stream, size).pipe(scanStructuredOutput({ from: stream.from }));
      const outcome = await collect(
        source.pipe(
          map((snapshot) => {
            answers.push(paths.map((path) => snapshot.isComplete(path)));
            titles.push((snapshot.value as { title?: string } | undefined)?.title);
            return snapshot;
          }),
        ),
      );
      expect(outcome.error).toBeUndefined();
      const firstFinal = (which: number): number => answers.findIndex((row) => row[which]);
      // The title is final long before the last hotel, the first hotel before the second, the list before the whole.
      expect(firstFinal(0)).toBeGreaterThan(0);
      expect(firstFinal(0)).toBeLessThan(firstFinal(1));
      expect(firstFinal(1)).toBeLessThan(firstFinal(2));
      expect(firstFinal(3)).toBeLessThan(firstFinal(4));
      expect(firstFinal(4)).toBeGreaterThanOrEqual(answers.length - 2); // at the closing brace, or with the finish
      // Once final, always final; and a title called final is the answer's own, one not yet final a part of it.
      answers.forEach((row, i) =>
        row.forEach((final, which) => expect(!final || i === answers.length - 1 || answers[i + 1]![which]).toBe(true)),
      );
      titles.forEach((title, i) => {
        if (answers[i]![0]) expect(title).toBe(answer.title);
        else if (title !== undefined) expect(answer.title.startsWith(title) && title !== answer.title).toBe(true);
      });
    });

    it.each(SIZES)('emits each hotel once, whole and checked by its schema, in %i-byte chunks', async (size) => {
      const outcome = await collect(
        eventsOf(stream, size).pipe(structuredElements({ from: stream.from, path: ['hotels'], schema: Hotel })),
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.values).toEqual(parsed.hotels);
    });

    it.each(SIZES)('finalizes to the schema-checked value beside the raw text, in %i-byte chunks', async (size) => {
      const completion = await lastValueFrom(eventsOf(stream, size).pipe(finalizeCompletion({ schema: Answer, from: stream.from })));
      expect(completion.output).toEqual({ value: parsed, text, from: stream.from });
      expect(completion.output.value.hotels[2]!.name).toBe('ADLER'); // the transform ran
      expect(completion.output.value.hotels[0]!.note).toBe('none'); // and the default
      expect(completion.finishReason).toBe(stream.from === 'content' ? 'stop' : 'tool_calls');
    });

    it('refuses a reply cut by the token limit, after showing what arrived', async () => {
      const cut = provider(tokenDeltas(text.slice(0, Math.floor(text.length * 0.7))), 'length');
      const final = await collect(eventsOf(cut, 64).pipe(finalizeCompletion({ schema: Answer, from: cut.from })));
      expect(final.error).toBeInstanceOf(IncompleteOutputError);
      expect(final.error).toMatchObject({ reason: 'length', finishReason: 'length', text: text.slice(0, Math.floor(text.length * 0.7)) });

      const previews = await collect(eventsOf(cut, 64).pipe(scanStructuredOutput({ from: cut.from })));
      expect(previews.values.length).toBeGreaterThan(5);
      expect(previews.error).toBeInstanceOf(IncompleteOutputError);

      const hotels = await collect(eventsOf(cut, 64).pipe(structuredElements({ from: cut.from, path: ['hotels'], schema: Hotel })));
      expect(hotels.values).toEqual(parsed.hotels.slice(0, 2)); // the hotels that were whole, then the error
      expect(hotels.error).toBeInstanceOf(IncompleteOutputError);
    });

    it("refuses a reply the provider's filter stopped, even one whose text parses", async () => {
      const stopped = provider(tokenDeltas(text), 'content_filter');
      if (stopped.name === 'ollama content') return expect(stopped.framing).toBe('ndjson'); // Ollama has no filter
      const outcome = await collect(eventsOf(stopped, 64).pipe(finalizeCompletion({ schema: Answer, from: stopped.from })));
      expect(outcome.error).toBeInstanceOf(IncompleteOutputError);
      expect(outcome.error).toMatchObject({ reason: 'content-filter', finishReason: 'content_filter', text });
    });
  });

  describe('for any answer, cut into any deltas and chunks, from any provider', () => {
    const items = fc.array(
      fc.record({ id: fc.nat(), label: fc.string({ unit: 'grapheme', maxLength: 12 }), extra: fc.jsonValue({ maxDepth: 2 }) }),
      {
        maxLength: 6,
      },
    );
    const cases = fc.record({
      document: fc.record({ name: fc.string({ unit: 'binary', maxLength: 20 }), items, flag: fc.boolean() }),
      seed: fc.nat({ max: 10_000 }),
      size: fc.constantFrom(1, 3, 17, 200, 100_000),
      provider: fc.constantFrom(...PROVIDERS),
      space: fc.constantFrom('', ' '),
    });

    it('previews a growing sequence that ends in the final value, and emits exactly its items', async () => {
      await fc.assert(
        fc.asyncProperty(cases, async ({ document, seed, size, provider, space }) => {
          const json = JSON.stringify(document, null, space);
          const final = JSON.parse(json) as { items: JsonValue[] } & JsonValue; // the value as JSON gives it (-0 becomes 0)
          const stream = provider(tokenDeltas(json, seed));
          const previews = await collect(eventsOf(stream, size).pipe(scanStructuredOutput({ from: stream.from })));
          const values = previews.values.map((snapshot) => copy(snapshot.value));
          const growing = values.every((value, i) => isPrefix(value, final) && (i === 0 || isPrefix(values[i - 1], value ?? null)));
          const elements = await collect(eventsOf(stream, size).pipe(structuredElements({ from: stream.from, path: ['items'] })));
          return (
            previews.error === undefined &&
            growing &&
            isDeepStrictEqual(values[values.length - 1], final) &&
            elements.error === undefined &&
            isDeepStrictEqual(elements.values, final.items)
          );
        }),
        { numRuns: 120 },
      );
    });
  });

  describe('the final check', () => {
    const content = (json: string) => eventsOf(openaiContent(tokenDeltas(json)), 64);

    it('refuses text that is not JSON: the preview stops with a flag, the check raises', async () => {
      const broken = '{"title": "x", "hotels": [1, 2,, 3]}';
      const previews = await collect(content(broken).pipe(scanStructuredOutput()));
      expect(previews.values[previews.values.length - 1]).toMatchObject({ stopped: 'invalid-json', value: { title: 'x', hotels: [1, 2] } });
      expect(previews.error).toBeInstanceOf(StructuredOutputError);
      expect(previews.error).toMatchObject({ reason: 'invalid-json', text: broken });

      const final = await collect(content(broken).pipe(finalizeCompletion({ schema: Answer })));
      expect(final.error).toBeInstanceOf(StructuredOutputError);
      expect((final.error as StructuredOutputError).cause).toBeInstanceOf(SyntaxError);
      expect((final.error as Error).message).toMatch(/^the output \(content\) is not valid JSON: /);
    });

    it("refuses JSON the schema refuses, with the schema's issues and the text", async () => {
      const wrong = JSON.stringify({ ...answer, count: 'three' });
      const outcome = await collect(content(wrong).pipe(finalizeCompletion({ schema: Answer })));
      expect(outcome.error).toBeInstanceOf(StructuredOutputError);
      const error = outcome.error as StructuredOutputError;
      expect(error).toMatchObject({ reason: 'schema', text: wrong });
      expect(error.issues).toEqual(
        Answer.safeParse(JSON.parse(wrong)).error!.issues.map((issue) => expect.objectContaining({ message: issue.message })),
      );
      expect(error.message).toMatch(/does not match its schema at count/);
      // The same answer, previewed with the schema: every snapshot, then the same refusal.
      const previews = await collect(content(wrong).pipe(scanStructuredOutput({ schema: Answer })));
      expect(previews.values.length).toBeGreaterThan(5);
      expect(previews.error).toMatchObject({ reason: 'schema' });
    });

    it('refuses an element its schema refuses, after the elements before it, and emits nothing after', async () => {
      const list = JSON.stringify({ hotels: [answer.hotels[0], { name: 'Bad', stars: 4.5, tags: [] }, answer.hotels[1]] });
      const outcome = await collect(content(list).pipe(structuredElements({ path: ['hotels'], schema: Hotel })));
      expect(outcome.values).toEqual([parsed.hotels[0]]);
      expect(outcome.error).toMatchObject({ reason: 'schema', text: JSON.stringify({ name: 'Bad', stars: 4.5, tags: [] }) });
      expect((outcome.error as Error).message).toMatch(/^element 1 of the output \(content\) does not match its schema at stars/);
    });

    it("takes a refusal for what it is: the model's words, not a missing object", async () => {
      const chunk = (delta: object, finish: string | null): string =>
        `data: ${JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const refusal = (words: readonly string[]): string =>
        words.map((refusal) => chunk({ refusal }, null)).join('') + chunk({}, 'stop') + 'data: [DONE]\n\n';
      const stream = {
        name: 'refusal',
        from: 'content' as const,
        bytes: new TextEncoder().encode(refusal(["I'm sorry, ", 'I cannot help.'])),
        framing: 'sse' as const,
      };
      const outcome = await collect(eventsOf(stream, 16).pipe(finalizeCompletion({ schema: Answer })));
      expect(outcome.error).toBeInstanceOf(StructuredOutputError);
      expect(outcome.error).toMatchObject({ reason: 'refusal', text: "I'm sorry, I cannot help." });
    });

    it('says when there is no output where it was asked for', async () => {
      const noContent = await collect(eventsOf(anthropicTool(tokenDeltas(text)), 64).pipe(finalizeCompletion({ schema: Answer })));
      expect(noContent.error).toMatchObject({
        reason: 'missing',
        message: 'the reply has no content, where the output (content) was expected',
      });
      const otherTool = await collect(eventsOf(anthropicTool(tokenDeltas(text)), 64).pipe(finalizeCompletion({ from: { tool: 'other' } })));
      expect(otherTool.error).toMatchObject({ reason: 'missing' });
      const notArray = await collect(content(text).pipe(structuredElements({ path: ['title'] })));
      expect(notArray.error).toMatchObject({ reason: 'missing' });
    });

    it('gives a typed error with the completion so far, never a result, when the stream ends early', async () => {
      const whole = new TextDecoder().decode(openaiContent(tokenDeltas(text)).bytes);
      const cut = whole.slice(0, whole.length / 2);
      const stream = {
        name: 'cut',
        from: 'content' as const,
        bytes: new TextEncoder().encode(cut.slice(0, cut.lastIndexOf('\n\n') + 2)),
        framing: 'sse' as const,
      };
      for (const operator of [
        finalizeCompletion({ schema: Answer }),
        scanStructuredOutput(),
        structuredElements({ path: ['hotels'] }),
      ] as const) {
        const outcome = await collect(eventsOf(stream, 64).pipe(operator as never));
        expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
      }
    });

    it('reports a preview bound as the reason it could not follow the output to its end', async () => {
      const outcome = await collect(content(text).pipe(scanStructuredOutput({ maxSize: 40 })));
      expect(outcome.values[outcome.values.length - 1]).toMatchObject({ stopped: 'max-size' });
      expect(outcome.error).toBeInstanceOf(ProtocolError);
      expect(outcome.error).toMatchObject({ reason: 'too-large' });
    });

    it('works with any Standard Schema: valibot', async () => {
      const Schema = v.object({
        title: v.string(),
        count: v.pipe(
          v.number(),
          v.transform((n) => n * 10),
        ),
      });
      const completion = await lastValueFrom(content(text).pipe(finalizeCompletion({ schema: Schema })));
      expect(completion.output.value).toEqual({ title: answer.title, count: 30 });
    });

    it('awaits an asynchronous schema, and keeps the order of elements whose checks finish out of order', async () => {
      const delays = [30, 0, 10];
      let checked = 0;
      const slow: StandardSchemaV1<unknown, string> = {
        '~standard': {
          version: 1,
          vendor: 'spec',
          validate: (value) => {
            const delay = delays[checked++ % delays.length]!;
            return new Promise((resolve) => setTimeout(() => resolve({ value: (value as { name: string }).name }), delay));
          },
        },
      };
      const names = await lastValueFrom(content(text).pipe(structuredElements({ path: ['hotels'], schema: slow }), toArray()));
      expect(names).toEqual(['Storchen', 'Widder', 'Adler']);
      const completion = await lastValueFrom(content(JSON.stringify(answer.hotels[0])).pipe(finalizeCompletion({ schema: slow })));
      expect(completion.output.value).toBe('Storchen');
    });
  });

  describe("a real recording: the AI SDK's JSON tool on Anthropic (marbles/real/anthropic-json-tool.2.sse)", () => {
    const stream: StructuredStream = {
      name: 'recording',
      from: { tool: 'json' },
      bytes: readBytes(marbleFile('real/anthropic-json-tool.2.sse')),
      framing: 'sse',
    };
    // What the recording's tool_use block says, read off the file by hand: one element.
    const expected = { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] };

    it.each([1, 5, 64, 1_000_000])('gives the same previews, elements and result at %i-byte chunks', async (size) => {
      const previews = await collect(eventsOf(stream, size).pipe(scanStructuredOutput({ from: stream.from })));
      expect(previews.error).toBeUndefined();
      expect(previews.values[previews.values.length - 1]).toMatchObject({ done: true, value: expected });
      const elements = await collect(eventsOf(stream, size).pipe(structuredElements({ from: stream.from, path: ['elements'] })));
      expect(elements.values).toEqual(expected.elements);
      const Weather = z.object({ elements: z.array(z.object({ location: z.string(), temperature: z.number(), condition: z.string() })) });
      const completion = await lastValueFrom(eventsOf(stream, size).pipe(finalizeCompletion({ schema: Weather, from: stream.from })));
      expect(completion.output.value).toEqual(expected);
      expect(completion.content).toBe("I'll invoke the JSON response tool."); // the text beside the tool stays content
    });
  });

  describe('timing (marbles)', () => {
    const content = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
    const events: Record<string, ChatEvent> = {
      a: content('{"items":[{"n":1'),
      b: content('},{"n"'),
      c: content(':2}'),
      d: content(',3]}'),
      f: { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
    };

    it('emits each element in the frame whose text closes it, and completes with the source', () => {
      new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
        const source = cold('a-b-c-d-f|', events);
        expectObservable(source.pipe(structuredElements({ path: ['items'] }))).toBe('--x-y-z--|', { x: { n: 1 }, y: { n: 2 }, z: 3 });
      });
    });

    it('emits a snapshot for each event that changed the output, the last one done', () => {
      new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
        const usage: ChatEvent = { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } };
        const source = cold<ChatEvent>('a-u-b-c-d-f|', { ...events, u: usage });
        const done = source.pipe(
          scanStructuredOutput(),
          map((snapshot) => snapshot.done),
        );
        expectObservable(done).toBe('a---b-c-d-f|', { a: false, b: false, c: false, d: false, f: true });
      });
    });

    it('errors at the end, after the elements that were whole, when the reply was cut by the token limit', () => {
      new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
        const cut = cold<ChatEvent>('a-b-c-l|', { ...events, l: { type: 'finish', choice: 0, reason: 'length', raw: 'length' } });
        const names = cut.pipe(structuredElements({ path: ['items'] }));
        expectObservable(names).toBe('--x-y--#', { x: { n: 1 }, y: { n: 2 } }, expect.any(IncompleteOutputError));
      });
    });
  });
});
