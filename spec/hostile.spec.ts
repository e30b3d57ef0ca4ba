import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { NEVER, Observable, OperatorFunction, VirtualTimeScheduler, concat, of, pipe } from 'rxjs';
import { assembleChunks, AssembleChunksOptions } from '../src/reply/assembleChunks';
import { SseFrame } from '../src/frames/SseParser';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { DialectFactory } from '../src/dialects/Dialect';
import { DIALECTS } from '../src/dialects/registry';
import { autoDialect } from '../src/dialects/auto';
import { LlmStreamError, ProtocolError, StreamIdleError } from '../src/errors/errors';
import { isLlmStreamError } from '../src/errors/isLlmStreamError';
import { Completion, JsonValue } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { idleTimeout } from '../src/io/idleTimeout';
import { ndjsonFrames } from '../src/frames/ndjsonFrames';
import { sseFrames } from '../src/frames/sseFrames';
import { chunksOf, utf8 } from './support/chunking';
import { Outcome, runSync } from './support/collect';

/**
 * Hostile and broken input. Every file in marbles/hostile/ is replayed through the whole pipeline at
 * several chunk sizes, with its own dialect and with `auto`, against the outcome written beside it by
 * hand (marbles/hostile/README.md); the big cases (a 1 GB line, 100,000 calls, 10^6 comment lines,
 * nesting 100,000 deep, a stall) are generated here, lazily. Whatever the input: a Completion or a
 * typed error of this library with a partial, never a TypeError, never a hang, never a prototype
 * changed.
 */

interface Expected {
  dialect: string;
  why: string;
  options?: { fatal?: boolean };
  completion?: Completion;
  error?: string;
  messageIncludes?: string[];
  autoMessageIncludes?: string[];
  partial?: Record<string, unknown>;
}

const HOSTILE = join(__dirname, '..', 'marbles', 'hostile');
const NAMED: Readonly<Record<string, DialectFactory | undefined>> = DIALECTS;
const SIZES = [1, 2, 3, 5, 8, 13, 64];

function corpus(): { name: string; bytes: Uint8Array; expected: Expected }[] {
  return readdirSync(HOSTILE)
    .filter((file) => file.endsWith('.sse'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.sse'.length);
      return {
        name,
        bytes: new Uint8Array(readFileSync(join(HOSTILE, file))),
        expected: JSON.parse(readFileSync(join(HOSTILE, `${name}.expected.json`), 'utf8')) as Expected,
      };
    });
}

type Framing = 'sse' | 'ndjson';

function pipeline(
  dialect: DialectFactory,
  options: { fatal?: boolean; framing?: Framing; assemble?: AssembleChunksOptions } = {},
): OperatorFunction<Uint8Array, Completion> {
  const framing: OperatorFunction<string, SseFrame> = options.framing === 'ndjson' ? ndjsonFrames() : sseFrames();
  return pipe(
    decodeUtf8({ fatal: options.fatal === true }),
    framing,
    assembleChunks({ ...options.assemble, dialect }),
    groupToolCallsByIndex(),
    finalizeCompletion(),
  );
}

/** Runs a lazily generated source through the pipeline; it must end synchronously (no hang). */
function runSource(source: Observable<Uint8Array>, operator: OperatorFunction<Uint8Array, Completion>): Outcome<Completion> {
  return runSync([0], () => source.pipe(operator));
}

/** The error of an outcome, checked to be one of this library's, with a message and a partial. */
function typedError(outcome: Outcome<Completion>): LlmStreamError {
  expect(outcome.values).toEqual([]);
  const error = outcome.error;
  expect(error).toBeInstanceOf(LlmStreamError);
  expect(isLlmStreamError(error)).toBe(true);
  const typed = error as LlmStreamError;
  expect(['StreamClosedEarlyError', 'ProtocolError', 'ProviderError', 'StreamIdleError']).toContain(typed.name);
  expect(typed.message.length).toBeGreaterThan(0);
  expect(typed.partial).toBeDefined();
  return typed;
}

function completionOf(outcome: Outcome<Completion>): Completion {
  expect(outcome.error).toBeUndefined();
  expect(outcome.values).toHaveLength(1);
  return outcome.values[0]!;
}

/** What must never change, however hostile the input: the shared prototypes. */
function prototypeState(): string {
  const describe = (target: object): string[] =>
    Object.getOwnPropertyNames(target).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
      return `${key}:${typeof descriptor.value}:${String(descriptor.writable)}:${typeof descriptor.get}`;
    });
  return JSON.stringify([describe(Object.prototype), describe(Array.prototype), describe(String.prototype), describe(Function.prototype)]);
}

const pristine = prototypeState();

function expectPrototypesUntouched(): void {
  expect(prototypeState()).toBe(pristine);
  const probe: Record<string, unknown> = {};
  expect(probe['polluted']).toBeUndefined();
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
}

/** Depth of a value nested only through single-key objects or single-element arrays. */
function depthOf(value: JsonValue): number {
  let depth = 0;
  let current: JsonValue = value;
  for (;;) {
    if (Array.isArray(current) && current.length === 1) current = current[0]!;
    else if (typeof current === 'object' && current !== null && !Array.isArray(current) && 'a' in current) current = current['a']!;
    else return depth;
    depth++;
  }
}

const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const DEEP = 100_000;

const data = (payload: string): string => `data: ${payload}\n\n`;
const chatChunk = (delta: string, finish: string | null = null, extra = ''): string =>
  data(`{"id":"h1"${extra},"choices":[{"index":0,"delta":${delta},"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]}`);
const DONE = data('[DONE]');

describe('hostile input', () => {
  afterEach(() => {
    expectPrototypesUntouched();
  });

  describe('the corpus in marbles/hostile/', () => {
    const all = corpus();

    it('holds the cases the robustness issue lists, each with a reason', () => {
      const names = all.map((c) => c.name);
      for (const name of [
        'invalid-utf8',
        'overlong-utf8',
        'lone-surrogates',
        'nul-bytes',
        'proto-keys',
        'done-then-more',
        'second-finish',
        'error-after-content',
        'choice-index-2pow53',
        'tool-index-2pow53',
        'arguments-number',
      ]) {
        expect(names).toContain(name);
      }
      expect(all.length).toBeGreaterThanOrEqual(40);
      for (const { expected } of all) {
        expect(expected.why.length).toBeGreaterThan(20);
        expect(NAMED[expected.dialect]).toBeDefined();
        expect(expected.completion === undefined).toBe(expected.error !== undefined);
        if (expected.error !== undefined) expect(expected.messageIncludes?.length).toBeGreaterThan(0);
      }
    });

    describe.each(all.map((c) => [c.name, c] as const))('%s', (_name, { bytes, expected }) => {
      it.each([
        ['its own dialect', false],
        ['auto', true],
      ] as const)('has the outcome written beside it, at every chunk size, with %s', (_how, auto) => {
        const dialect = auto ? autoDialect : NAMED[expected.dialect]!;
        const includes = (auto ? expected.autoMessageIncludes : undefined) ?? expected.messageIncludes ?? [];
        let firstMessage: string | undefined;
        for (const size of [...SIZES, bytes.length || 1]) {
          const outcome = runSync(chunksOf(bytes, size), pipeline(dialect, { fatal: expected.options?.fatal }));
          if (expected.completion !== undefined) {
            expect(completionOf(outcome)).toEqual(expected.completion);
            continue;
          }
          const error = typedError(outcome);
          expect(error.name).toBe(expected.error);
          for (const part of includes) expect(error.message).toContain(part);
          expect(error.partial).toMatchObject(expected.partial!);
          firstMessage ??= error.message;
          expect(error.message).toBe(firstMessage);
        }
      });
    });

    it('proto-keys: parsed arguments hold __proto__ as an own data property, never as their prototype', () => {
      const { bytes } = all.find((c) => c.name === 'proto-keys')!;
      const completion = completionOf(runSync([bytes], pipeline(autoDialect)));
      const args = completion.toolCalls[0]!.args as Record<string, JsonValue>;
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      const own = Object.getOwnPropertyDescriptor(args, '__proto__');
      expect(own).toEqual({ value: { polluted: 'args' }, writable: true, enumerable: true, configurable: true });
      expect(Object.keys(args)).toEqual(['__proto__', 'constructor', 'prototype']);
      expect((args as { polluted?: unknown }).polluted).toBeUndefined();
      // The library's own objects: the completion and its parts have ordinary prototypes.
      for (const object of [completion, completion.toolCalls[0]!, completion.choices[0]!, completion.usage!]) {
        expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      }
    });

    it('proto-keys-llamacpp: timings and provider metadata keep __proto__ as an own field, and their prototype is Object.prototype', () => {
      const { bytes } = all.find((c) => c.name === 'proto-keys-llamacpp')!;
      const completion = completionOf(runSync([bytes], pipeline(NAMED['llamacpp-completion']!)));
      const timings = completion.timings!;
      expect(Object.getPrototypeOf(timings)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(timings, '__proto__')?.value).toBe(1);
      // The first chunk's own `__proto__`, a field the dialect does not map, is kept as a field too.
      const kept = completion.providerMetadata!['llamacpp']!;
      expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value).toEqual({ stop: true, content: 'from-proto' });
    });
  });

  describe('a line or an event announced at 1 GB (generated lazily, never allocated)', () => {
    const MiB = 1024 * 1024;
    /** `prefix`, then 1 MiB pieces of `piece` repeated up to 1 GiB; counts the pieces pulled. */
    function gigabyte(prefix: string, piece: Uint8Array): { source: Observable<Uint8Array>; pulled: () => number } {
      let pulled = 0;
      const source = new Observable<Uint8Array>((subscriber) => {
        subscriber.next(utf8(prefix));
        for (let i = 0; i < 1024 && !subscriber.closed; i++) {
          pulled++;
          subscriber.next(piece); // the same buffer each time: the pipeline must not keep it
        }
        subscriber.complete();
      });
      return { source, pulled: () => pulled };
    }

    it('a line never finished is a ProtocolError at the 16 MiB cap, after 17 of its 1024 mebibytes', () => {
      const { source, pulled } = gigabyte(
        chatChunk('{"content":"before"}') + 'data: {"id":"h1","choices":[{"index":0,"delta":{"content":"',
        new Uint8Array(MiB).fill(0x61),
      );
      const error = typedError(runSource(source, pipeline(autoDialect)));
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toBe('line too large: more than 16777216 characters at line 3 (event 2)');
      expect(error.partial).toMatchObject({ id: 'h1', content: 'before', finished: false });
      expect(pulled()).toBeLessThanOrEqual(17);
    });

    it('an event of a million short data lines is a ProtocolError at the same cap', () => {
      const line = `data: ${'a'.repeat(1017)}\n`; // 1024 bytes
      const { source, pulled } = gigabyte(chatChunk('{"content":"before"}'), utf8(line.repeat(1024)));
      const error = typedError(runSource(source, pipeline(autoDialect)));
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toMatch(/^event too large: more than 16777216 characters at line \d+ \(event 2\)$/);
      expect(error.partial).toMatchObject({ content: 'before' });
      expect(pulled()).toBeLessThanOrEqual(17);
    });
  });

  describe('100,000 tool calls and an index past 2^53 (maxToolCalls, default 1024)', () => {
    const call = (index: number): string =>
      `{"index":${index},"id":"call_${index}","type":"function","function":{"name":"f","arguments":"{}"}}`;

    it('one call per frame: a ProtocolError at call 1025, after reading 1025 of the 100,000 frames', () => {
      let pulled = 0;
      const source = new Observable<Uint8Array>((subscriber) => {
        for (let i = 0; i < 100_000 && !subscriber.closed; i++) {
          pulled++;
          subscriber.next(utf8(chatChunk(`{"tool_calls":[${call(i)}]}`)));
        }
        subscriber.next(utf8(chatChunk('{}', 'tool_calls') + DONE));
        subscriber.complete();
      });
      const error = typedError(runSource(source, pipeline(autoDialect)));
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toBe('frame 1025: choice 0 makes more than 1024 tool calls');
      expect(pulled).toBe(1025);
      const partial = error.partial as { toolCalls: { index: number; id: string; complete: boolean }[] };
      expect(partial.toolCalls).toHaveLength(1024);
      expect(partial.toolCalls[1023]).toMatchObject({ index: 1023, id: 'call_1023', complete: false });
    });

    it('all in one delta: the same error, inside the one frame', () => {
      const calls = Array.from({ length: 100_000 }, (_, i) => call(i)).join(',');
      const bytes = utf8(chatChunk(`{"tool_calls":[${calls}]}`) + chatChunk('{}', 'tool_calls') + DONE);
      const error = typedError(runSync([bytes], pipeline(autoDialect)));
      expect(error.message).toBe('frame 1: choice 0 makes more than 1024 tool calls');
      expect((error.partial as { toolCalls: unknown[] }).toolCalls).toHaveLength(1024);
    });

    it('a lower maxToolCalls is honoured', () => {
      const bytes = utf8(chatChunk(`{"tool_calls":[${[0, 1, 2, 3].map(call).join(',')}]}`) + chatChunk('{}', 'tool_calls') + DONE);
      const error = typedError(runSync([bytes], pipeline(autoDialect, { assemble: { maxToolCalls: 3 } })));
      expect(error.message).toBe('frame 1: choice 0 makes more than 3 tool calls');
      const accepted = completionOf(runSync([bytes], pipeline(autoDialect, { assemble: { maxToolCalls: 4 } })));
      expect(accepted.toolCalls).toHaveLength(4);
    });
  });

  describe('100,000 candidates, a new one in every chunk (gemini)', () => {
    it('costs time linear in the chunks, and ends as a stream that never finished', () => {
      let pulled = 0;
      const source = new Observable<Uint8Array>((subscriber) => {
        for (let i = 0; i < 100_000 && !subscriber.closed; i++) {
          pulled++;
          subscriber.next(utf8(data(`{"responseId":"r1","candidates":[{"index":${i},"content":{"parts":[{"text":"a"}]}}]}`)));
        }
        subscriber.complete();
      });
      const started = Date.now();
      const error = typedError(runSource(source, pipeline(NAMED['gemini']!)));
      // Generous: about half a second here. Looking at every candidate after every chunk made it
      // quadratic: about 40 seconds.
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(pulled).toBe(100_000);
      expect(error.name).toBe('StreamClosedEarlyError');
      expect(error.message).toBe('the stream ended without a finishReason after 100000 frames');
      expect((error.partial as { choices: unknown[] }).choices).toHaveLength(100_000);
    });
  });

  describe('an event with 10^6 comment lines', () => {
    it('is read in time linear in its size, holding none of the comments, and the event around them is intact', () => {
      let pulled = 0;
      const comments = utf8(': keep-alive\n'.repeat(10_000));
      const source = new Observable<Uint8Array>((subscriber) => {
        subscriber.next(utf8('data: {"id":"h1","choices":[{"index":0,"delta":{"content":"a"},\n'));
        for (let i = 0; i < 100 && !subscriber.closed; i++) {
          pulled++;
          subscriber.next(comments);
        }
        subscriber.next(utf8('data: "finish_reason":"stop"}]}\n\n' + DONE));
        subscriber.complete();
      });
      const started = Date.now();
      const completion = completionOf(runSource(source, pipeline(autoDialect)));
      expect(pulled).toBe(100);
      expect(completion).toMatchObject({ id: 'h1', content: 'a', finishReason: 'stop' });
      // Generous: about 0.2 s here; a cost quadratic in the lines would take minutes.
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  describe('JSON nested 100,000 deep', () => {
    it('as the text of tool arguments: parsed, whole, at full depth', () => {
      const args = deepObject(DEEP);
      const bytes = utf8(
        chatChunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":${JSON.stringify(args)}}}]}`) +
          chatChunk('{}', 'tool_calls') +
          DONE,
      );
      const completion = completionOf(runSync(chunksOf(bytes, 65_536), pipeline(autoDialect)));
      expect(completion.toolCalls).toHaveLength(1);
      expect(completion.toolCalls[0]!.arguments).toBe(args);
      expect(depthOf(completion.toolCalls[0]!.args)).toBe(DEEP);
    });

    it('in a field nobody reads: ignored', () => {
      const bytes = utf8(chatChunk('{"content":"a"}', 'stop', `,"x":${'['.repeat(DEEP)}${']'.repeat(DEEP)}`) + DONE);
      expect(completionOf(runSync([bytes], pipeline(autoDialect)))).toMatchObject({ content: 'a', finishReason: 'stop' });
    });

    it('as the whole payload: a ProtocolError (not an object)', () => {
      const bytes = utf8(chatChunk('{"content":"a"}') + data(`${'['.repeat(DEEP)}${']'.repeat(DEEP)}`) + DONE);
      const error = typedError(runSync([bytes], pipeline(autoDialect)));
      expect(error.message).toMatch(/^frame 2: expected a JSON object, got "\[\[\[/);
      expect(error.partial).toMatchObject({ content: 'a' });
    });

    // Arguments sent as an object are serialized; JSON.stringify recurses and would overflow the stack.
    it.each([
      [
        'gemini functionCall.args',
        'gemini',
        'sse',
        data(`{"responseId":"r1","candidates":[{"content":{"parts":[{"text":"a"}]}}]}`) +
          data(
            `{"responseId":"r1","candidates":[{"content":{"parts":[{"functionCall":{"name":"f",` +
              `"args":${deepObject(DEEP)}}}]},"finishReason":"STOP"}]}`,
          ),
        'frame 2: candidates[0].content.parts[0].functionCall.args is nested too deeply to serialize',
      ],
      [
        'anthropic tool_use input',
        'anthropic',
        'sse',
        data('{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}') +
          data('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
          data('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}') +
          data('{"type":"content_block_stop","index":0}') +
          data(
            `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"f","input":${deepObject(DEEP)}}}`,
          ),
        'frame 5: content block 1.input is nested too deeply to serialize',
      ],
      [
        'typed-events tool_call_delta args',
        'typed-events',
        'sse',
        data('{"type":"text","delta":"a"}') +
          data('{"type":"tool_call_start","index":0,"id":"c1","name":"f"}') +
          data(`{"type":"tool_call_delta","index":0,"args":${deepObject(DEEP)}}`),
        'frame 3: tool_call_delta 0: args is nested too deeply to serialize',
      ],
      [
        'ollama function.arguments',
        'ollama',
        'ndjson',
        '{"model":"m","message":{"role":"assistant","content":"a"},"done":false}\n' +
          `{"model":"m","message":{"role":"assistant","content":"",` +
          `"tool_calls":[{"function":{"name":"f","arguments":${deepObject(DEEP)}}}]},"done":false}\n`,
        'frame 2: message.tool_calls[0].function.arguments is nested too deeply to serialize',
      ],
      [
        'openai-responses item arguments',
        'openai-responses',
        'sse',
        data('{"type":"response.created","response":{"id":"resp_1","model":"m"}}') +
          data('{"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":"a"}') +
          data(
            `{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call",` +
              `"id":"fc_1","call_id":"call_1","name":"f","arguments":${deepObject(DEEP)}}}`,
          ),
        'frame 3: item.arguments is nested too deeply to serialize',
      ],
    ] as const)('as %s sent as an object: a ProtocolError naming the frame and the field', (_what, dialect, framing, text, message) => {
      for (const factory of [NAMED[dialect]!, autoDialect]) {
        const error = typedError(runSync([utf8(text)], pipeline(factory, { framing })));
        expect(error).toBeInstanceOf(ProtocolError);
        expect(error.message).toBe(message);
        expect(error.cause).toBeInstanceOf(RangeError);
        expect(error.partial).toMatchObject({ content: 'a', finished: false });
      }
    });
  });

  describe('a stream that stalls forever', () => {
    const arrived = utf8(chatChunk('{"content":"Hel"}') + chatChunk('{"content":"lo"}'));

    it('never ends without idleTimeout: nothing would ever say it failed', () => {
      const scheduler = new VirtualTimeScheduler();
      let ended = false;
      concat(of(arrived), NEVER)
        .pipe(pipeline(autoDialect))
        .subscribe({ error: () => (ended = true), complete: () => (ended = true) });
      scheduler.schedule(() => undefined, 3_600_000);
      scheduler.flush();
      expect(ended).toBe(false);
    });

    it('ends in StreamIdleError with what arrived as the partial when idleTimeout is on the text', () => {
      const scheduler = new VirtualTimeScheduler();
      let outcome: { error: unknown; at: number } | undefined;
      concat(of(arrived), NEVER)
        .pipe(
          decodeUtf8(),
          idleTimeout(30_000, { scheduler }),
          sseFrames(),
          assembleChunks(),
          groupToolCallsByIndex(),
          finalizeCompletion(),
        )
        .subscribe({ error: (error: unknown) => (outcome = { error, at: scheduler.now() }) });
      scheduler.flush();
      expect(outcome?.at).toBe(30_000);
      expect(outcome?.error).toBeInstanceOf(StreamIdleError);
      const error = outcome!.error as StreamIdleError;
      expect(error.message).toBe('the stream was idle for 30000 ms after 1 value');
      expect(error.partial).toMatchObject({ id: 'h1', content: 'Hello', finished: false });
    });
  });
});
