import fc from 'fast-check';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { OperatorFunction, pipe, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../src/reply/assembleChunks';
import { assembleMessages } from '../src/messages/assembleMessages';
import { CompletionSnapshot } from '../src/types/events';
import { SseFrame, SseParser } from '../src/frames/SseParser';
import { TokenAssembler, TokenEvent } from '../src/messages/TokenAssembler';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { LlmStreamError, StreamIdleError } from '../src/errors/errors';
import { isLlmStreamError } from '../src/errors/isLlmStreamError';
import { ChatEvent, Completion, FinishReason, JsonValue, Usage } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { idleTimeout } from '../src/io/idleTimeout';
import { ndjsonFrames } from '../src/frames/ndjsonFrames';
import { scanCompletion } from '../src/reply/scanCompletion';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf, splitAt, utf8 } from './support/chunking';
import { Outcome, runSync } from './support/collect';

/**
 * Property tests of the whole pipeline and of each layer (fast-check). Bounded so that `npm test`
 * stays quick; `FUZZ_RUNS=20000 npx jest spec/fuzz.spec.ts` runs every property that many times.
 */

const FUZZ_RUNS = Number(process.env['FUZZ_RUNS']) || 0;
const runs = (quick: number): { numRuns: number } => ({ numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : quick });
if (FUZZ_RUNS > 0) jest.setTimeout(3_600_000);

// ---------------------------------------------------------------------------------------------------
// The recordings, and the whole pipeline over them

interface Recording {
  name: string;
  bytes: Uint8Array;
  ndjson: boolean;
}

function recordings(): Recording[] {
  const root = join(__dirname, '..', 'marbles');
  const found: Recording[] = [];
  for (const folder of ['openai', 'real', 'dialects']) {
    for (const file of readdirSync(join(root, folder)).sort()) {
      const match = /\.(sse|ndjson)$/.exec(file);
      if (match)
        found.push({
          name: `${folder}/${file}`,
          bytes: new Uint8Array(readFileSync(join(root, folder, file))),
          ndjson: match[1] === 'ndjson',
        });
    }
  }
  return found;
}

const all = recordings();

/** The whole pipeline, `auto` dialect; `events` receives what reaches finalizeCompletion. */
function pipeline(ndjson: boolean, events?: ChatEvent[]): OperatorFunction<Uint8Array, Completion> {
  return pipe(
    decodeUtf8(),
    ndjson ? ndjsonFrames() : sseFrames(),
    assembleChunks(),
    groupToolCallsByIndex(),
    tap((event: ChatEvent) => events?.push(event)),
    finalizeCompletion(),
  );
}

function replay(recording: Recording, pieces: readonly Uint8Array[], events?: ChatEvent[]): Outcome<Completion> {
  return runSync(pieces, pipeline(recording.ndjson, events));
}

/** Values, or error name, message and partial: what "the same outcome" compares. */
function comparable(outcome: Outcome<Completion>): unknown {
  if (outcome.error === undefined) return { values: outcome.values };
  const error = outcome.error as LlmStreamError;
  return { values: outcome.values, name: error.name, message: error.message, partial: error.partial };
}

describe('the whole pipeline over every recording', () => {
  it('holds every recording in marbles/', () => {
    expect(all.length).toBeGreaterThanOrEqual(41);
  });

  it('gives the same outcome at random split points as unsplit (fast-check)', () => {
    const whole = all.map((recording) => comparable(replay(recording, [recording.bytes])));
    const cases = fc
      .nat(all.length - 1)
      .chain((which) => fc.tuple(fc.constant(which), fc.array(fc.nat(all[which]!.bytes.length), { maxLength: 48 })));
    fc.assert(
      fc.property(cases, ([which, cuts]) => {
        const recording = all[which]!;
        expect(comparable(replay(recording, splitAt(recording.bytes, cuts)))).toEqual(whole[which]);
      }),
      runs(300),
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Mutated recordings: always a Completion consistent with its events, or a typed error

type Mutation =
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'cut'; at: number }
  | { kind: 'duplicate'; from: number; length: number; to: number }
  | { kind: 'swap'; first: number; second: number };

const position = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: position }),
  fc.record({ kind: fc.constant('duplicate' as const), from: position, length: fc.integer({ min: 1, max: 80 }), to: position }),
  fc.record({ kind: fc.constant('swap' as const), first: position, second: position }),
);

/** Where each frame (event block, or NDJSON line) ends: after a blank line, or after a line end. */
function frameEnds(bytes: Uint8Array, ndjson: boolean): number[] {
  const ends: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    if (ndjson || bytes[i - 1] === 10 || (bytes[i - 1] === 13 && bytes[i - 2] === 10)) ends.push(i + 1);
  }
  return ends;
}

function mutate(bytes: Uint8Array, change: Mutation, ndjson: boolean): Uint8Array {
  const at = (fraction: number): number => Math.floor(fraction * bytes.length);
  switch (change.kind) {
    case 'flip': {
      const copy = bytes.slice();
      const i = at(change.at);
      if (i < copy.length) copy[i] = copy[i]! ^ change.mask;
      return copy;
    }
    case 'cut':
      return bytes.slice(0, at(change.at));
    case 'duplicate': {
      const start = at(change.from);
      const copied = bytes.slice(start, start + change.length);
      const to = at(change.to);
      return concatBytes(bytes.slice(0, to), copied, bytes.slice(to));
    }
    case 'swap': {
      const ends = frameEnds(bytes, ndjson);
      if (ends.length < 2) return bytes;
      const starts = [0, ...ends.slice(0, -1)];
      const a = Math.floor(change.first * ends.length);
      const b = Math.floor(change.second * ends.length);
      const [i, j] = a < b ? [a, b] : [b, a];
      if (i === j) return bytes;
      const frame = (k: number): Uint8Array => bytes.slice(starts[k]!, ends[k]!);
      return concatBytes(bytes.slice(0, starts[i]!), frame(j), bytes.slice(ends[i]!, starts[j]!), frame(i), bytes.slice(ends[j]!));
    }
  }
}

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** What the events say one choice should hold, folded independently of the library. */
interface Folded {
  content: string | null;
  reasoning: string | null;
  refusal: string | null;
  calls: Map<number, { id: string | null; name: string | null; arguments: string; custom: boolean; emitted: unknown[] }>;
  finish: { reason: FinishReason; raw: string } | null;
}

function fold(events: readonly ChatEvent[]): { choices: Map<number, Folded>; id: string | null; usage: Usage | null } {
  const choices = new Map<number, Folded>();
  const choice = (index: number): Folded => {
    let folded = choices.get(index);
    if (folded === undefined) {
      folded = { content: null, reasoning: null, refusal: null, calls: new Map(), finish: null };
      choices.set(index, folded);
    }
    return folded;
  };
  let id: string | null = null;
  type Counts = {
    promptTokens: number | null;
    completionTokens: number | null;
    totalTokens: number | null;
    cachedPromptTokens?: number;
    cacheWritePromptTokens?: number;
    reasoningTokens?: number;
    audioPromptTokens?: number;
    audioCompletionTokens?: number;
  };
  let usage = null as Counts | null;
  for (const event of events) {
    switch (event.type) {
      case 'start':
        id ??= event.id;
        break;
      case 'content':
      case 'reasoning':
      case 'refusal': {
        const folded = choice(event.choice);
        const field = event.type === 'content' ? 'content' : event.type;
        folded[field] = (folded[field] ?? '') + event.text;
        break;
      }
      case 'tool-call-delta': {
        const calls = choice(event.choice).calls;
        const call = calls.get(event.index) ?? { id: null, name: null, arguments: '', custom: false, emitted: [] };
        if (event.kind === 'custom') call.custom = true;
        call.id ??= event.id ?? null;
        call.name ??= event.name ?? null;
        call.arguments += event.arguments;
        calls.set(event.index, call);
        break;
      }
      case 'tool-call':
        choice(event.choice).calls.get(event.call.index)?.emitted.push(event.call);
        break;
      case 'finish':
        choice(event.choice).finish = { reason: event.reason, raw: event.raw };
        break;
      case 'tool-call-incomplete':
      case 'tool-call-end':
      case 'retract':
      case 'logprobs':
      case 'source':
      case 'audio':
      case 'provider-tool-call':
      case 'provider-tool-result':
      case 'tool-request':
      case 'opaque-item':
      case 'reasoning-signature':
      case 'finish-details':
        // The parts beside the text: they make their choice known, as text does.
        choice(event.choice);
        break;
      case 'provider-metadata':
        // What a choice carried that no field names is that choice's (the envelope's is the reply's).
        if (event.choice !== undefined) choice(event.choice);
        break;
      case 'usage': {
        // Field by field, the last reported value wins; never a sum.
        const next = event.usage;
        const previous: Counts | null = usage;
        const merged: Counts = {
          promptTokens: next.promptTokens ?? previous?.promptTokens ?? null,
          completionTokens: next.completionTokens ?? previous?.completionTokens ?? null,
          totalTokens: next.totalTokens ?? previous?.totalTokens ?? null,
        };
        const cached = next.cachedPromptTokens ?? previous?.cachedPromptTokens;
        const cacheWrite = next.cacheWritePromptTokens ?? previous?.cacheWritePromptTokens;
        const reasoning = next.reasoningTokens ?? previous?.reasoningTokens;
        const audioPrompt = next.audioPromptTokens ?? previous?.audioPromptTokens;
        const audioCompletion = next.audioCompletionTokens ?? previous?.audioCompletionTokens;
        if (cached !== undefined) merged.cachedPromptTokens = cached;
        if (cacheWrite !== undefined) merged.cacheWritePromptTokens = cacheWrite;
        if (reasoning !== undefined) merged.reasoningTokens = reasoning;
        if (audioPrompt !== undefined) merged.audioPromptTokens = audioPrompt;
        if (audioCompletion !== undefined) merged.audioCompletionTokens = audioCompletion;
        usage = merged;
        break;
      }
      default:
    }
  }
  return { choices, id, usage };
}

function expectConsistent(completion: Completion, events: readonly ChatEvent[]): void {
  const folded = fold(events);
  expect(completion.choices.map((c) => c.index)).toEqual([...folded.choices.keys()].sort((a, b) => a - b));
  for (const choice of completion.choices) {
    const expected = folded.choices.get(choice.index)!;
    expect(choice.content).toBe(expected.content);
    expect(choice.reasoning).toBe(expected.reasoning);
    expect(choice.refusal).toBe(expected.refusal);
    expect(expected.finish).not.toBeNull();
    expect(choice.rawFinishReason).toBe(expected.finish!.raw);
    expect(choice.finishReason).toBe(expected.finish!.reason);
    expect(choice.toolCalls.map((call) => call.index)).toEqual([...expected.calls.keys()].sort((a, b) => a - b));
    for (const call of choice.toolCalls) {
      const fragments = expected.calls.get(call.index)!;
      expect(call.arguments).toBe(fragments.arguments);
      expect(call.id).toBe(fragments.id);
      expect(call.name).toBe(fragments.name);
      const parsed =
        call.kind === 'custom' ? call.arguments : call.arguments.trim() === '' ? {} : (JSON.parse(call.arguments) as JsonValue);
      expect(call.args).toEqual(parsed);
      // groupToolCallsByIndex emitted the same call once, before the completion was built.
      expect(fragments.emitted).toEqual([call]);
    }
  }
  const first = completion.choices[0]!;
  expect([completion.content, completion.reasoning, completion.refusal, completion.toolCalls, completion.finishReason]).toEqual([
    first.content,
    first.reasoning,
    first.refusal,
    first.toolCalls,
    first.finishReason,
  ]);
  expect(completion.id).toBe(folded.id ?? '');
  expect(completion.usage).toEqual(folded.usage);
}

/** The partial of an error holds exactly what the events before the fault brought. */
function expectPartialConsistent(partial: CompletionSnapshot, events: readonly ChatEvent[]): void {
  const folded = fold(events);
  expect(partial.choices.map((c) => c.index)).toEqual([...folded.choices.keys()].sort((a, b) => a - b));
  for (const choice of partial.choices) {
    const expected = folded.choices.get(choice.index)!;
    expect([choice.content, choice.reasoning, choice.refusal]).toEqual([expected.content, expected.reasoning, expected.refusal]);
    for (const call of choice.toolCalls) expect(call.arguments).toBe(expected.calls.get(call.index)!.arguments);
  }
}

const LIBRARY_ERRORS = ['StreamClosedEarlyError', 'ProtocolError', 'ProviderError'];

describe('mutated recordings (bytes flipped, cut, a range duplicated, two frames swapped)', () => {
  const pristine = JSON.stringify(Object.getOwnPropertyNames(Object.prototype));

  it('always end in a Completion consistent with its events, or a typed error whose partial is what arrived (fast-check)', () => {
    const cases = fc.record({
      which: fc.nat(all.length - 1),
      changes: fc.array(mutation, { minLength: 1, maxLength: 4 }),
      size: fc.integer({ min: 1, max: 97 }),
    });
    fc.assert(
      fc.property(cases, ({ which, changes, size }) => {
        const recording = all[which]!;
        let bytes = recording.bytes;
        for (const change of changes) bytes = mutate(bytes, change, recording.ndjson);
        const events: ChatEvent[] = [];
        // runSync throws unless the pipeline ended (a Completion or an error) before it returned.
        const outcome = replay(recording, chunksOf(bytes, size), events);
        if (outcome.error === undefined) {
          expect(outcome.values).toHaveLength(1);
          expectConsistent(outcome.values[0]!, events);
        } else {
          const error = outcome.error;
          if (!isLlmStreamError(error)) throw error; // a TypeError or a RangeError: a bug, shown as it is
          expect(error).toBeInstanceOf(LlmStreamError);
          expect(LIBRARY_ERRORS).toContain(error.name);
          expect(outcome.values).toEqual([]);
          expect(error.partial).toBeDefined();
          expectPartialConsistent(error.partial as CompletionSnapshot, events);
        }
        expect(JSON.stringify(Object.getOwnPropertyNames(Object.prototype))).toBe(pristine);
      }),
      runs(600),
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Per layer: what the existing specs do not already cover

describe('per layer', () => {
  describe('decodeUtf8({ fatal: true })', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }).map(utf8),
      fc.uint8Array({ minLength: 1, maxLength: 4 }),
      fc.constantFrom(
        ...[[0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc3], [0xf0, 0x9f]].map(
          (b) => new Uint8Array(b),
        ),
      ),
    );
    const input = fc.array(piece, { maxLength: 8 }).map((pieces) => concatBytes(...pieces));

    it('fails at the same byte offset however the bytes are split, after decoding only valid text (fast-check)', () => {
      fc.assert(
        fc.property(input, fc.array(fc.nat(40), { maxLength: 8 }), (bytes, cuts) => {
          const whole = runSync([bytes], decodeUtf8({ fatal: true }));
          const split = runSync(splitAt(bytes, cuts), decodeUtf8({ fatal: true }));
          const reference = new TextDecoder('utf-8', { fatal: true });
          let valid: boolean;
          try {
            reference.decode(bytes);
            valid = true;
          } catch {
            valid = false;
          }
          if (valid) {
            expect(whole).toEqual({ values: whole.values });
            expect(split.values.join('')).toBe(whole.values.join(''));
            expect(split.error).toBeUndefined();
            return;
          }
          const error = whole.error as LlmStreamError;
          expect(isLlmStreamError(error)).toBe(true);
          expect((split.error as Error).message).toBe(error.message);
          expect((split.error as Error).name).toBe(error.name);
          if (error.name === 'ProtocolError') {
            // The bytes before the named offset are valid UTF-8, perhaps ending mid-character...
            const offset = error.position!.byteOffset!;
            expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, offset), { stream: true })).not.toThrow();
            // ...and the text emitted, split or not, is a prefix of theirs.
            const before = new TextDecoder('utf-8').decode(bytes.subarray(0, offset), { stream: true });
            expect(before.startsWith(split.values.join(''))).toBe(true);
            expect(before.startsWith(whole.values.join(''))).toBe(true);
          }
        }),
        runs(500),
      );
    });
  });

  describe('sseFrames({ maxEventSize })', () => {
    it('never emits a frame over the cap, and fails at the same line however the text is split (fast-check)', () => {
      const line = fc.oneof(
        fc.string({ maxLength: 30 }).map((value) => `data: ${value.replace(/[\r\n]/g, '')}`),
        fc.constantFrom('', ': ping', 'event: x', 'data'),
      );
      const text = fc
        .array(fc.tuple(line, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 14 })
        .map((lines) => lines.map(([l, e]) => l + e).join(''));
      fc.assert(
        fc.property(text, fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(300), { maxLength: 10 }), (stream, cap, cuts) => {
          const parse = (pieces: readonly string[]): { frames: SseFrame[]; error?: string } => {
            const frames: SseFrame[] = [];
            const parser = new SseParser((frame) => frames.push(frame), { maxEventSize: cap });
            try {
              for (const piece of pieces) parser.push(piece);
              parser.end();
            } catch (error) {
              expect(isLlmStreamError(error)).toBe(true);
              return { frames, error: (error as Error).message };
            }
            return { frames };
          };
          const whole = parse([stream]);
          for (const frame of whole.frames) expect(frame.data.length).toBeLessThanOrEqual(cap);
          expect(parse(splitAt(stream, cuts))).toEqual(whole);
        }),
        runs(500),
      );
    });
  });

  describe('ndjsonFrames', () => {
    it('makes one frame per non-blank line, in order, for generated lines, line ends and splits (fast-check)', () => {
      const value = fc.jsonValue({ maxDepth: 2 }).map((json) => JSON.stringify(json));
      const lines = fc.array(fc.tuple(fc.oneof(value, fc.constantFrom('', '  ')), fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 10 });
      fc.assert(
        fc.property(lines, fc.array(fc.nat(400), { maxLength: 10 }), (written, cuts) => {
          const text = written.map(([line, end]) => line + end).join('');
          const bytes = utf8(text);
          const outcome = runSync(splitAt(bytes, cuts), pipe(decodeUtf8(), ndjsonFrames()));
          const expected = written.map(([line]) => line).filter((line) => line.trim() !== '');
          expect(outcome).toEqual({ values: expected.map((data) => ({ event: 'message', data, id: '' })) });
        }),
        runs(300),
      );
    });
  });

  // Generated event streams: content, reasoning, refusal, interleaved calls of several choices, usage.
  const eventStream = fc
    .record({
      choices: fc.array(
        fc.record({
          texts: fc.array(
            fc.tuple(
              fc.constantFrom('content' as const, 'reasoning' as const, 'refusal' as const),
              fc.string({ minLength: 1, maxLength: 5 }),
            ),
            { maxLength: 4 },
          ),
          calls: fc.array(
            fc.record({
              args: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
              cuts: fc.array(fc.nat(60), { maxLength: 4 }),
              end: fc.boolean(),
            }),
            { maxLength: 3 },
          ),
          reason: fc.constantFrom<FinishReason>('stop', 'length', 'tool_calls', 'content_filter'),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      usage: fc.option(fc.record({ promptTokens: fc.nat(99), completionTokens: fc.nat(99), totalTokens: fc.nat(199) }), { nil: undefined }),
      picks: fc.array(fc.nat(), { maxLength: 60 }),
    })
    .map(({ choices, usage, picks }) => {
      // One queue per text run and per call; merged in the order `picks` says, each queue in order.
      const queues: ChatEvent[][] = [];
      const finishes: ChatEvent[] = [];
      choices.forEach((spec, choice) => {
        queues.push(spec.texts.map(([type, text]) => ({ type, choice, text }) as ChatEvent));
        spec.calls.forEach((call, index) => {
          const text = JSON.stringify(call.args);
          const fragments = splitAt(text, call.cuts);
          const queue: ChatEvent[] = fragments.map((piece, k) =>
            k === 0
              ? { type: 'tool-call-delta', choice, index, id: `call_${choice}_${index}`, name: `f${index}`, arguments: piece }
              : { type: 'tool-call-delta', choice, index, arguments: piece },
          );
          if (call.end) queue.push({ type: 'tool-call-end', choice, index });
          queues.push(queue);
        });
        // As a dialect emits it: a choice that made calls and says `stop` finished for its calls.
        const reason = spec.reason === 'stop' && spec.calls.length > 0 ? 'tool_calls' : spec.reason;
        finishes.push({ type: 'finish', choice, reason, raw: spec.reason });
      });
      const events: ChatEvent[] = [{ type: 'start', id: 'gen-1', model: 'm' }];
      let k = 0;
      for (let open = queues.filter((q) => q.length > 0); open.length > 0; open = open.filter((q) => q.length > 0)) {
        events.push(open[(picks[k++ % Math.max(picks.length, 1)] ?? 0) % open.length]!.shift()!);
      }
      events.push(...finishes);
      if (usage !== undefined) events.push({ type: 'usage', usage });
      events.push({ type: 'done' });
      return events;
    });

  describe('groupToolCallsByIndex', () => {
    it('adds each call so far to its fragments, and emits each whole call once, before the event that closed it (fast-check)', () => {
      fc.assert(
        fc.property(eventStream, (events) => {
          const outcome = runSync(events, groupToolCallsByIndex());
          expect(outcome.error).toBeUndefined();
          const out = outcome.values;
          expect(
            out
              .filter((event) => event.type !== 'tool-call')
              .map(({ ...event }) => {
                if (event.type === 'tool-call-delta') delete (event as { call?: unknown }).call;
                return event;
              }),
          ).toEqual(events);
          const sofar = new Map<string, string>();
          const emitted = new Map<string, number>();
          out.forEach((event, position) => {
            if (event.type === 'tool-call-delta') {
              const key = `${event.choice}/${event.index}`;
              sofar.set(key, (sofar.get(key) ?? '') + event.arguments);
              expect(event.call).toEqual({ id: `call_${key.replace('/', '_')}`, name: `f${event.index}`, arguments: sofar.get(key) });
            }
            if (event.type === 'tool-call') {
              const key = `${event.choice}/${event.call.index}`;
              expect(emitted.has(key)).toBe(false);
              emitted.set(key, position);
              expect(event.call.arguments).toBe(sofar.get(key));
              expect(event.call.args).toEqual(JSON.parse(sofar.get(key)!));
              // Just before the end of this call, or before its choice's finish.
              const next = out.slice(position + 1).find((e) => e.type !== 'tool-call')!;
              expect(
                (next.type === 'tool-call-end' && next.choice === event.choice && next.index === event.call.index) ||
                  (next.type === 'finish' && next.choice === event.choice),
              ).toBe(true);
            }
          });
          expect([...emitted.keys()].sort()).toEqual([...sofar.keys()].sort());
        }),
        runs(300),
      );
    });
  });

  describe('finalizeCompletion and scanCompletion', () => {
    it('agree: the last snapshot is the completion, with or without groupToolCallsByIndex in front (fast-check)', () => {
      fc.assert(
        fc.property(eventStream, (events) => {
          const direct = runSync(events, finalizeCompletion());
          const grouped = runSync(events, pipe(groupToolCallsByIndex(), finalizeCompletion()));
          const snapshots = runSync(events, scanCompletion());
          expect(grouped).toEqual(direct);
          expect(direct.values).toHaveLength(1);
          expectConsistent(direct.values[0]!, runSync(events, groupToolCallsByIndex()).values);
          const completion = direct.values[0]!;
          const last = snapshots.values[snapshots.values.length - 1]!;
          expect(last.finished).toBe(true);
          const strip = (snapshot: CompletionSnapshot['choices'][number]) => ({
            ...snapshot,
            toolCalls: snapshot.toolCalls.map(({ complete, ...call }) => {
              expect(complete).toBe(true);
              return call;
            }),
          });
          expect(last.choices.map(strip)).toEqual(completion.choices);
          expect([last.id, last.model, last.usage]).toEqual([completion.id, completion.model, completion.usage]);
        }),
        runs(300),
      );
    });
  });

  describe('idleTimeout', () => {
    it('fails exactly when some wait (from subscription, then between values) exceeds ms, at that moment (fast-check)', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 8 }), fc.integer({ min: 2, max: 12 }), (gaps, ms) => {
          // Value i arrives at times[i]; a wait is that minus the previous value's time (0 for the first).
          const times: number[] = [];
          gaps.forEach((gap, i) => times.push(i === 0 ? gap : times[i - 1]! + 1 + gap));
          const waits = times.map((time, i) => time - (i === 0 ? 0 : times[i - 1]!));
          fc.pre(!waits.includes(ms)); // a value and the timer at the same frame: either may come first
          const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
          testScheduler.run(({ cold, flush }) => {
            const marble = `${gaps.map((gap) => `${gap}ms a`).join(' ')} |`;
            const seen: number[] = [];
            let failedAt: number | undefined;
            cold(marble)
              .pipe(idleTimeout(ms))
              .subscribe({
                next: () => seen.push(testScheduler.now()),
                error: (error: unknown) => {
                  expect(error).toBeInstanceOf(StreamIdleError);
                  failedAt = testScheduler.now();
                },
              });
            flush();
            const late = waits.findIndex((wait) => wait > ms);
            if (late === -1) {
              expect(seen).toEqual(times);
              expect(failedAt).toBeUndefined();
            } else {
              expect(seen).toEqual(times.slice(0, late));
              expect(failedAt).toBe((late === 0 ? 0 : times[late - 1]!) + ms);
            }
          });
        }),
        runs(300),
      );
    });
  });

  describe('TokenAssembler and assembleMessages', () => {
    it('agree with a plain model of messages for any interleaving of deltas and finals (fast-check)', () => {
      const event: fc.Arbitrary<TokenEvent> = fc.record(
        {
          id: fc.constantFrom('a', 'b', '__proto__', 'constructor'),
          delta: fc.string({ maxLength: 3 }),
          final: fc.boolean(),
        },
        { requiredKeys: ['id'] },
      );
      fc.assert(
        fc.property(fc.array(event, { maxLength: 30 }), (events) => {
          const model = new Map<string, { text: string; final: boolean }>();
          const assembler = new TokenAssembler();
          const firstFinals: { id: string; text: string }[] = [];
          for (const e of events) {
            const state = model.get(e.id) ?? { text: '', final: false };
            model.set(e.id, state);
            let expected: string | null = null;
            if (state.final) expected = e.final === true ? state.text : null;
            else {
              if (e.delta !== undefined) state.text += e.delta;
              if (e.final === true) {
                state.final = true;
                expected = state.text;
                firstFinals.push({ id: e.id, text: state.text });
              }
            }
            expect(assembler.apply(e)).toBe(expected);
            expect(assembler.get(e.id)).toBe(state.text);
          }
          const open = [...model].filter(([, state]) => !state.final).map(([id]) => id);
          expect(assembler.openIds()).toEqual(open);
          const outcome = runSync(events, assembleMessages());
          expect(outcome.values).toEqual(firstFinals);
          if (open.length === 0) expect(outcome.error).toBeUndefined();
          else expect((outcome.error as LlmStreamError).partial).toEqual(open.map((id) => ({ id, text: model.get(id)!.text })));
          expect(({} as Record<string, unknown>)['a']).toBeUndefined();
        }),
        runs(300),
      );
    });
  });
});

// A guard for the helpers above: a mutation that changes nothing would make the mutation property vacuous.
describe('the mutation helpers', () => {
  it('change the bytes as described', () => {
    const bytes = utf8('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    expect(new TextDecoder().decode(mutate(bytes, { kind: 'swap', first: 0, second: 0.99 }, false))).toBe(
      'data: 3\n\ndata: 2\n\ndata: 1\n\n',
    );
    expect(new TextDecoder().decode(mutate(bytes, { kind: 'cut', at: 0.5 }, false))).toBe('data: 1\n\ndata');
    expect(new TextDecoder().decode(mutate(bytes, { kind: 'duplicate', from: 0, length: 9, to: 0.34 }, false))).toBe(
      'data: 1\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n',
    );
    expect(mutate(bytes, { kind: 'flip', at: 0, mask: 0x20 }, false)[0]).toBe('D'.charCodeAt(0));
    expect(frameEnds(utf8('a\r\n\r\nb\n\n'), false)).toEqual([5, 8]);
  });
});
