import fc from 'fast-check';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { pipe } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { LlmStreamError, ProtocolError, ProviderError, StreamClosedEarlyError } from '../src/errors/errors';
import { Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../src/frames/sseFrames';
import { splitAt, utf8 } from './support/chunking';
import { Outcome, runSync } from './support/collect';
import { openaiSdk } from './support/openaiSdk';
import { bodyStream } from '../src/testing/bodyStream';
import { fakeResponse } from '../src/testing/fakeResponse';

const { ChatCompletionStream, Stream } = openaiSdk;

/**
 * This library against the official `openai` SDK on the same bytes: random valid Chat Completions
 * streams must assemble to the same content, refusal, tool calls, finish reasons and usage, choice by
 * choice. Where the two must differ, each difference is its own test below, with the reason this
 * library's answer is the right one.
 *
 * The SDK's entry point: `ChatCompletionStream.fromReadableStream` reads the SDK's own newline-
 * delimited JSON (what `toReadableStream()` writes), not SSE, so the bytes first go through
 * `Stream.fromSSEResponse`, the SDK's SSE reader (the one `client.chat.completions.stream()` uses:
 * it stops at `[DONE]` and throws on an `error` payload); its `toReadableStream()` feeds the runner,
 * whose `finalChatCompletion()` (async) is the SDK's assembled reply.
 */

const FUZZ_RUNS = Number(process.env['FUZZ_RUNS']) || 0;
if (FUZZ_RUNS > 0) jest.setTimeout(3_600_000);

/** The SDK's final completion for these bytes, delivered in these pieces. */
async function sdkCompletion(pieces: readonly Uint8Array[]): Promise<ChatCompletion> {
  const chunks = Stream.fromSSEResponse(fakeResponse(bodyStream(pieces)), new AbortController());
  return ChatCompletionStream.fromReadableStream(chunks.toReadableStream()).finalChatCompletion();
}

function ours(pieces: readonly Uint8Array[]): Outcome<Completion> {
  return runSync(pieces, pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion()));
}

function ourCompletion(pieces: readonly Uint8Array[]): Completion {
  const outcome = ours(pieces);
  expect(outcome.error).toBeUndefined();
  return outcome.values[0]!;
}

// ---------------------------------------------------------------------------------------------------
// Valid streams, generated

interface PlannedCall {
  id: string;
  name: string;
  arguments: string;
  cuts: number[];
}

interface PlannedChoice {
  content: string[];
  refusal: string[];
  calls: PlannedCall[];
  finish: 'stop' | 'length' | 'content_filter';
}

interface PlannedStream {
  choices: PlannedChoice[];
  usage: { where: 'absent' | 'last-chunk' | 'finish-chunk'; prompt: number; completion: number; cached?: number; reasoning?: number };
  picks: number[];
  cuts: number[];
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
  fc.constantFrom('é', '中文', '🙂', 'Zürich', '👩‍👩‍👧', ' ', '\n', '"quoted"', '\\'),
);

const call: fc.Arbitrary<PlannedCall> = fc.record({
  id: fc.stringMatching(/^call_[A-Za-z0-9]{1,8}$/),
  name: fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/),
  arguments: fc
    .dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
    .map((args) => JSON.stringify(args)),
  cuts: fc.array(fc.nat(80), { maxLength: 5 }),
});

const choice: fc.Arbitrary<PlannedChoice> = fc.record({
  content: fc.array(text, { maxLength: 5 }),
  refusal: fc.array(text, { maxLength: 3 }),
  // Ids made distinct by position: two calls of one choice never share an id.
  calls: fc.array(call, { maxLength: 3 }).map((calls) => calls.map((c, k) => ({ ...c, id: `${c.id}_${k}` }))),
  finish: fc.constantFrom('stop' as const, 'length' as const, 'content_filter' as const),
});

const plannedStream: fc.Arbitrary<PlannedStream> = fc.record({
  choices: fc.array(choice, { minLength: 1, maxLength: 3 }),
  usage: fc.record(
    {
      where: fc.constantFrom('absent' as const, 'last-chunk' as const, 'finish-chunk' as const),
      prompt: fc.nat(5000),
      completion: fc.nat(5000),
      cached: fc.nat(100),
      reasoning: fc.nat(100),
    },
    { requiredKeys: ['where', 'prompt', 'completion'] },
  ),
  picks: fc.array(fc.nat(), { maxLength: 80 }),
  cuts: fc.array(fc.nat(4000), { maxLength: 12 }),
});

/** Takes from the queues in the order `picks` says (cycling), each queue in its own order. */
function interleave<T>(queues: T[][], picks: readonly number[]): T[] {
  const out: T[] = [];
  let k = 0;
  for (let open = queues.filter((q) => q.length > 0); open.length > 0; open = open.filter((q) => q.length > 0)) {
    out.push(open[(picks.length === 0 ? 0 : picks[k++ % picks.length]!) % open.length]!.shift()!);
  }
  return out;
}

type Chunk = Record<string, unknown>;

/**
 * Interleaves the fragments of parallel calls: any started call may go next, or the next call to
 * start (so calls start in index order, as servers send them).
 */
function interleaveCalls(fragments: Chunk[][], picks: readonly number[]): Chunk[] {
  const out: Chunk[] = [];
  let started = 0;
  let k = 0;
  while (fragments.some((queue) => queue.length > 0)) {
    const candidates: number[] = [];
    for (let i = 0; i < started; i++) if (fragments[i]!.length > 0) candidates.push(i);
    if (started < fragments.length) candidates.push(started);
    const pick = candidates[(picks.length === 0 ? 0 : picks[k++ % picks.length]!) % candidates.length]!;
    if (pick === started) started++;
    out.push(fragments[pick]!.shift()!);
  }
  return out;
}

/** The chunks OpenAI would send for this plan, as SSE bytes ending with `[DONE]`. */
function wire(plan: PlannedStream): string {
  const base = { id: 'chatcmpl-gen', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-gen', system_fingerprint: 'fp_1' };
  const withUsageNull = plan.usage.where === 'last-chunk';
  const chunkOf = (index: number, delta: Chunk, finish: string | null = null): Chunk => ({
    ...base,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    ...(withUsageNull ? { usage: null } : {}),
  });
  const queues = plan.choices.map((planned, index) => {
    const queue: Chunk[] = [chunkOf(index, { role: 'assistant', content: '', refusal: null })];
    for (const piece of planned.content) queue.push(chunkOf(index, { content: piece }));
    for (const piece of planned.refusal) queue.push(chunkOf(index, { refusal: piece }));
    // Parallel calls: their fragments interleave, each call's first fragment (id, name) after the
    // previous call's first fragment, as indices are first sent in order.
    const fragments = planned.calls.map((c, k) =>
      splitAt(c.arguments, c.cuts).map((piece, n) =>
        chunkOf(index, {
          tool_calls: [
            n === 0
              ? { index: k, id: c.id, type: 'function', function: { name: c.name, arguments: piece } }
              : { index: k, function: { arguments: piece } },
          ],
        }),
      ),
    );
    queue.push(...interleaveCalls(fragments, plan.picks));
    queue.push(chunkOf(index, {}, planned.calls.length > 0 ? 'tool_calls' : planned.finish));
    return queue;
  });
  const chunks = interleave(queues, plan.picks);
  const usage = {
    prompt_tokens: plan.usage.prompt,
    completion_tokens: plan.usage.completion,
    total_tokens: plan.usage.prompt + plan.usage.completion,
    ...(plan.usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: plan.usage.cached } }),
    ...(plan.usage.reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: plan.usage.reasoning } }),
  };
  if (plan.usage.where === 'finish-chunk') chunks[chunks.length - 1] = { ...chunks[chunks.length - 1]!, usage };
  if (plan.usage.where === 'last-chunk') chunks.push({ ...base, choices: [], usage });
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** The fields both sides have, from this library's completion. */
function fromOurs(completion: Completion): unknown {
  return {
    id: completion.id,
    model: completion.model,
    choices: completion.choices.map((c) => ({
      index: c.index,
      content: c.content,
      refusal: c.refusal,
      toolCalls: c.toolCalls.map((t) => ({ id: t.id, name: t.name, arguments: t.arguments })),
      finishReason: c.finishReason,
    })),
    usage:
      completion.usage === null
        ? null
        : {
            prompt: completion.usage.promptTokens,
            completion: completion.usage.completionTokens,
            total: completion.usage.totalTokens,
            cached: completion.usage.cachedPromptTokens,
            reasoning: completion.usage.reasoningTokens,
          },
  };
}

/** The same fields from the SDK's completion. */
function fromSdk(completion: ChatCompletion): unknown {
  return {
    id: completion.id,
    model: completion.model,
    choices: completion.choices.map((c) => ({
      index: c.index,
      // SDK 7 keeps the role chunk's `content: ""` when no text follows it; SDK 6, like this library
      // (and the non-streaming `message` of a reply made only of calls), says null: there was none.
      content: c.message.content === '' ? null : (c.message.content ?? null),
      refusal: c.message.refusal ?? null,
      toolCalls: (c.message.tool_calls ?? []).map((t) => {
        if (t.type !== 'function') throw new Error(`unexpected tool call type ${t.type}`);
        return { id: t.id, name: t.function.name, arguments: t.function.arguments };
      }),
      finishReason: c.finish_reason,
    })),
    usage:
      completion.usage === undefined || completion.usage === null
        ? null
        : {
            prompt: completion.usage.prompt_tokens,
            completion: completion.usage.completion_tokens,
            total: completion.usage.total_tokens,
            cached: completion.usage.prompt_tokens_details?.cached_tokens,
            reasoning: completion.usage.completion_tokens_details?.reasoning_tokens,
          },
  };
}

describe(`against the official openai SDK ${openaiSdk.version} (ChatCompletionStream)`, () => {
  it('the generator writes what it plans: interleaved choices, parallel calls, usage, [DONE]', () => {
    const plan: PlannedStream = {
      choices: [
        { content: ['Hé'], refusal: [], calls: [{ id: 'call_a', name: 'f', arguments: '{"x":1}', cuts: [3] }], finish: 'stop' },
        { content: [], refusal: ['no'], calls: [], finish: 'content_filter' },
      ],
      usage: { where: 'last-chunk', prompt: 3, completion: 4 },
      picks: [0, 1],
      cuts: [],
    };
    const lines = wire(plan).trim().split('\n\n');
    expect(lines[lines.length - 1]).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map(
      (line) =>
        JSON.parse(line.slice('data: '.length)) as {
          choices: { index: number; delta: Chunk; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.map((chunk) => chunk.choices.map((c) => [c.index, Object.keys(c.delta).join('+'), c.finish_reason]))).toEqual([
      [[0, 'role+content+refusal', null]],
      [[1, 'role+content+refusal', null]],
      [[0, 'content', null]],
      [[1, 'refusal', null]],
      [[0, 'tool_calls', null]],
      [[1, '', 'content_filter']],
      [[0, 'tool_calls', null]],
      [[0, '', 'tool_calls']],
      [],
    ]);
    expect(chunks[8]!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it(
    'gives the same content, refusal, tool calls, finish reason and usage, choice by choice (fast-check)',
    async () => {
      await fc.assert(
        fc.asyncProperty(plannedStream, async (plan) => {
          const bytes = utf8(wire(plan));
          const pieces = splitAt(bytes, plan.cuts);
          const completion = ourCompletion(pieces);
          const sdk = await sdkCompletion(pieces);
          expect(fromOurs(completion)).toEqual(fromSdk(sdk));
          // And the calls' arguments are parsed, which the SDK leaves to the caller.
          for (const c of completion.choices) for (const t of c.toolCalls) expect(t.args).toEqual(JSON.parse(t.arguments));
        }),
        { numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : 150 },
      );
      // 150 streams through both readers: about a second alone, several on a loaded 2-core machine.
    },
    FUZZ_RUNS > 0 ? 3_600_000 : 60_000,
  );

  describe('where they agree on a stream that is not the usual one', () => {
    const chunk = (index: number, delta: Chunk, finish: string | null = null, extra: Chunk = {}): string =>
      `data: ${JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`;
    const DONE = 'data: [DONE]\n\n';

    it('choices arriving out of order: both list them by index', async () => {
      const bytes = utf8(
        chunk(1, { role: 'assistant', content: 'b' }) +
          chunk(0, { role: 'assistant', content: 'a' }) +
          chunk(1, {}, 'stop') +
          chunk(0, {}, 'length') +
          DONE,
      );
      const completion = ourCompletion([bytes]);
      expect(fromOurs(completion)).toEqual(fromSdk(await sdkCompletion([bytes])));
      expect(completion.choices.map((c) => [c.index, c.content])).toEqual([
        [0, 'a'],
        [1, 'b'],
      ]);
    });

    it('frames after [DONE] are ignored by both', async () => {
      const bytes = utf8(chunk(0, { role: 'assistant', content: 'a' }, 'stop') + DONE + chunk(0, { content: 'late' }, 'length'));
      expect(fromOurs(ourCompletion([bytes]))).toEqual(fromSdk(await sdkCompletion([bytes])));
    });

    it('a second finish: the last one wins in both, with the text between', async () => {
      const bytes = utf8(chunk(0, { role: 'assistant', content: 'a' }, 'stop') + chunk(0, { content: 'b' }, 'length') + DONE);
      expect(fromOurs(ourCompletion([bytes]))).toEqual(fromSdk(await sdkCompletion([bytes])));
    });

    it('an error payload fails both: the SDK with an APIError, this library with a ProviderError keeping the text', async () => {
      const bytes = utf8(
        chunk(0, { role: 'assistant', content: 'a' }) +
          `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error' } })}\n\n` +
          DONE,
      );
      await expect(sdkCompletion([bytes])).rejects.toThrow('boom');
      const error = ours([bytes]).error as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.type).toBe('server_error');
      expect(error.partial).toMatchObject({ content: 'a' });
    });
  });

  describe('where they must differ (each with the reason this library is right)', () => {
    const chunk = (index: number, delta: Chunk, finish: string | null = null, extra: Chunk = {}): string =>
      `data: ${JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`;
    const DONE = 'data: [DONE]\n\n';
    const call = (index: number, fields: Chunk): Chunk => ({ tool_calls: [{ index, type: 'function', ...fields }] });

    it('cut before the usage it promised, no [DONE]: the SDK returns a completion, this library a StreamClosedEarlyError', async () => {
      // The connection closed after the finish chunk, and the chunks said `"usage": null`: the server
      // sends usage last (include_usage), so the usage chunk was still on the way. The SDK cannot tell
      // a cut stream from a complete one; this library does not guess, and loses nothing. (A reply
      // that owes nothing more is whole without [DONE]: spec/dialects/fidelity.openai-chat.spec.ts.)
      const bytes = utf8(chunk(0, { role: 'assistant', content: 'Hello' }, null, { usage: null }) + chunk(0, {}, 'stop', { usage: null }));
      const sdk = await sdkCompletion([bytes]);
      expect(sdk.choices[0]!.message.content).toBe('Hello');
      const error = ours([bytes]).error as StreamClosedEarlyError;
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error.message).toBe('the stream ended without [DONE] after 2 frames');
      expect(error.partial).toMatchObject({ content: 'Hello', finishReason: 'stop', finished: true });
    });

    it("finish_reason 'stop' on a choice that made calls: the SDK keeps 'stop', this library says tool_calls, 'stop' as raw", async () => {
      // Several servers (vLLM, Ollama /v1, Gemini's compatible endpoint) send 'stop' after calls. Code
      // that branches on finish_reason === 'tool_calls' would not run them; the raw value stays.
      const bytes = utf8(
        chunk(0, { role: 'assistant', ...call(0, { id: 'call_1', function: { name: 'f', arguments: '{}' } }) }) +
          chunk(0, {}, 'stop') +
          DONE,
      );
      const sdk = await sdkCompletion([bytes]);
      expect(sdk.choices[0]!.finish_reason).toBe('stop');
      const completion = ourCompletion([bytes]);
      expect([completion.finishReason, completion.rawFinishReason]).toEqual(['tool_calls', 'stop']);
    });

    it('choice indices with a gap (0 and 2): the SDK fails on the hole, this library gives both choices by index', async () => {
      // The SDK keeps choices in an array indexed by choice and maps over it at the end; a missing
      // index 1 makes that fail. Each choice that arrived is whole and finished, so this library returns
      // them, each with its own index (and choice 0's at the top).
      const bytes = utf8(
        chunk(0, { role: 'assistant', content: 'a' }) +
          chunk(2, { role: 'assistant', content: 'c' }) +
          chunk(2, {}, 'stop') +
          chunk(0, {}, 'stop') +
          DONE,
      );
      await expect(sdkCompletion([bytes])).rejects.toThrow();
      const completion = ourCompletion([bytes]);
      expect(completion.choices.map((c) => [c.index, c.content])).toEqual([
        [0, 'a'],
        [2, 'c'],
      ]);
    });

    it('usage: null after the usage was reported: the SDK loses it, this library keeps the last value reported', async () => {
      // With include_usage, OpenAI sends "usage": null on every chunk but the usage one. A server that
      // reports usage on its finish chunk and then sends one more chunk with "usage": null has not
      // withdrawn the count: null means "none in this chunk". The SDK copies each chunk's fields over
      // its snapshot, so the null wins there.
      const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
      const bytes = utf8(chunk(0, { role: 'assistant', content: 'a' }, 'stop', { usage }) + chunk(0, {}, null, { usage: null }) + DONE);
      const sdk = await sdkCompletion([bytes]);
      expect(sdk.usage).toBeNull();
      expect(ourCompletion([bytes]).usage).toEqual({ promptTokens: 5, completionTokens: 2, totalTokens: 7 });
    });

    it('usage only under x_groq.usage: the SDK has none, this library reads it', async () => {
      // Groq reports usage there, not in `usage`; it is the reply's usage all the same.
      const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
      const bytes = utf8(chunk(0, { role: 'assistant', content: 'a' }, 'stop', { x_groq: { usage } }) + DONE);
      expect((await sdkCompletion([bytes])).usage).toBeUndefined();
      expect(ourCompletion([bytes]).usage).toEqual({ promptTokens: 5, completionTokens: 2, totalTokens: 7 });
    });

    it('a tool call that never got an id: the SDK makes one up, this library refuses the call', async () => {
      // The id is what the tool result must answer to on the next request; an invented one matches
      // nothing the server knows. A call that cannot be answered is not a call to run.
      const bytes = utf8(
        chunk(0, { role: 'assistant', ...call(0, { function: { name: 'f', arguments: '{}' } }) }) + chunk(0, {}, 'tool_calls') + DONE,
      );
      const sdk = await sdkCompletion([bytes]);
      expect(sdk.choices[0]!.message.tool_calls![0]!.id).toMatch(/^call_[0-9a-f-]{36}$/);
      const error = ours([bytes]).error as ProtocolError;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toBe('tool call 0 of choice 0 never got an id');
    });

    it('arguments that are not JSON: the SDK returns the text, this library refuses the call with it as partial', async () => {
      // A tool run with half its arguments is the fault this library exists to prevent.
      const bytes = utf8(
        chunk(0, { role: 'assistant', ...call(0, { id: 'call_1', function: { name: 'f', arguments: '{"path": "/tm' } }) }) +
          chunk(0, {}, 'tool_calls') +
          DONE,
      );
      expect((await sdkCompletion([bytes])).choices[0]!.message.tool_calls![0]!).toMatchObject({
        function: { arguments: '{"path": "/tm' },
      });
      const error = ours([bytes]).error as LlmStreamError;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.message).toBe('the arguments of tool call 0 of choice 0 (f) are not valid JSON: "{\\"path\\": \\"/tm"');
      expect(error.partial).toMatchObject({ toolCalls: [{ id: 'call_1', arguments: '{"path": "/tm', complete: false }] });
    });

    it('calls without an index (Mistral, Gemini compatible): the SDK drops them or refuses them, this library numbers them', async () => {
      // The SDK files a fragment under tool_calls[index]: without an index, SDK 6 loses the call while
      // the finish still says tool_calls, and SDK 7 refuses the whole stream ("invalid tool call
      // index"). Each such whole call is a call: positions 0, 1 by arrival.
      const bytes = utf8(
        chunk(0, {
          role: 'assistant',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{"n":1}' } },
            { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        }) +
          chunk(0, {}, 'tool_calls') +
          DONE,
      );
      if (openaiSdk.version.startsWith('6.')) {
        expect((await sdkCompletion([bytes])).choices[0]!.message.tool_calls).toEqual([]);
      } else {
        await expect(sdkCompletion([bytes])).rejects.toThrow('invalid tool call index: undefined');
      }
      expect(ourCompletion([bytes]).toolCalls.map((t) => [t.index, t.id, t.name, t.args])).toEqual([
        [0, 'a', 'f', { n: 1 }],
        [1, 'b', 'g', {}],
      ]);
    });

    it('arguments sent as an object: the SDK concatenates "[object Object]", this library serializes it', async () => {
      const bytes = utf8(
        chunk(0, { role: 'assistant', ...call(0, { id: 'call_1', function: { name: 'f', arguments: { city: 'Paris' } } }) }) +
          chunk(0, {}, 'tool_calls') +
          DONE,
      );
      expect((await sdkCompletion([bytes])).choices[0]!.message.tool_calls![0]!).toMatchObject({
        function: { arguments: '[object Object]' },
      });
      expect(ourCompletion([bytes]).toolCalls[0]).toMatchObject({ arguments: '{"city":"Paris"}', args: { city: 'Paris' } });
    });

    it('no role in any delta: the SDK fails, this library assembles the reply', async () => {
      // The role of a streamed reply is always assistant; compatible servers that omit it lose nothing.
      const bytes = utf8(chunk(0, { content: 'a' }) + chunk(0, {}, 'stop') + DONE);
      await expect(sdkCompletion([bytes])).rejects.toThrow('missing role for choice 0');
      expect(ourCompletion([bytes]).content).toBe('a');
    });
  });
});
