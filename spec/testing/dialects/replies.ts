import fc from 'fast-check';
import { FinishReason, JsonValue, Usage } from '../../../src/types/events';
import { Chunking } from '../../../src/testing/chunking';
import { TestChoice, TestReply, TestToolCall } from '../../../src/dialects/writing/TestReply';
import { ProviderFormat } from '../../../src/dialects/writing/wire';
import { FORMATS, FormatFacts } from './formats';

/**
 * Arbitrary replies a format can carry, from its facts: unicode text (astral characters, combining
 * marks, control characters, quotes and backslashes included), reasoning, tool calls with JSON
 * arguments (and raw text, and custom calls, where the format has them), finish reasons, usage,
 * signatures, several choices.
 */

/** Text of every kind: whole graphemes, any code point, and the characters JSON and SSE escape or split on. */
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('', 'Grüß dich 👋', 'a\r\nb\n\nc', 'data: [DONE]\n\n', '"\\\u2028\u0000', '𝄞é\u0301 中文 🙂🙂') },
);

/** A JSON object as the arguments of a call: its values of every JSON kind, round-tripped so `-0` and the like are as JSON reads them. */
const object = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue });

function toolCall(facts: FormatFacts, choice: number, k: number, format: ProviderFormat): fc.Arbitrary<TestToolCall> {
  const name = fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }));
  // Ids a reply gives are its own: `t<choice>.<k>-...` never meets another call's, nor the kit's `call_<n>`.
  const id = fc.option(
    fc.string({ maxLength: 10 }).map((tail) => `t${choice}.${k}-${tail}`),
    { nil: undefined },
  );
  const args: fc.Arbitrary<TestToolCall['arguments']> =
    facts.calls === 'whole'
      ? object
      : fc.oneof(
          { weight: 4, arbitrary: object },
          { weight: 1, arbitrary: object.map((value) => ({ raw: JSON.stringify(value, null, 1) })) },
          // The UI message stream gives a call that streamed no text its input, {}, as the text.
          { weight: 1, arbitrary: fc.constant(format === 'ai-sdk-ui' ? { raw: '{}' } : { raw: '' }) },
        );
  const functionCall = fc.record({ id, name, arguments: args }, { requiredKeys: ['name', 'arguments'] });
  if (!facts.custom) return functionCall;
  const custom = fc.record(
    { id, name, arguments: text.map((raw) => ({ raw })), kind: fc.constant('custom' as const) },
    { requiredKeys: ['name', 'arguments', 'kind'] },
  );
  return fc.oneof({ weight: 3, arbitrary: functionCall }, { weight: 1, arbitrary: custom });
}

function choiceOf(facts: FormatFacts, index: number, format: ProviderFormat): fc.Arbitrary<TestChoice> {
  const calls =
    facts.calls === 'none'
      ? fc.constant([])
      : fc
          .integer({ min: 0, max: 2 })
          .chain((count) => fc.tuple(...Array.from({ length: count }, (_, k) => toolCall(facts, index, k, format))));
  return fc
    .record({
      reasoning: facts.reasoning ? fc.option(text, { nil: undefined }) : fc.constant(undefined),
      text: fc.option(text, { nil: undefined }),
      toolCalls: calls,
      signatures: fc.array(fc.base64String({ minLength: 4, maxLength: 24 }), { maxLength: Math.min(2, facts.signatures) }),
      finish: fc.option(fc.constantFrom(...(Object.keys(facts.raw) as FinishReason[])), { nil: undefined }),
    })
    .map(({ reasoning, text: said, toolCalls, signatures, finish }) => {
      // A finish the reply may state: `tool_calls` only with calls where only the calls say it, `stop` never after calls.
      // And in OpenAI's Chat stream, where nothing ends a call, not `length` after a custom call (it reads as cut).
      const lastCustom = toolCalls[toolCalls.length - 1]?.kind === 'custom';
      const allowed =
        finish !== undefined &&
        !(finish === 'stop' && toolCalls.length > 0) &&
        !(finish === 'tool_calls' && facts.toolCallsByCalls && toolCalls.length === 0) &&
        !(finish === 'length' && lastCustom && format === 'openai-chat');
      return {
        ...(reasoning === undefined ? {} : { reasoning }),
        ...(said === undefined ? {} : { text: said }),
        ...(toolCalls.length === 0 ? {} : { toolCalls }),
        ...(signatures.length === 0 || signatures.some((s) => s === '') ? {} : { reasoningSignatures: signatures }),
        ...(allowed ? { finishReason: finish } : {}),
      };
    });
}

function usageOf(facts: FormatFacts): fc.Arbitrary<Usage | undefined> {
  if (facts.usage === 'none') return fc.constant(undefined);
  const count = fc.nat({ max: 100_000 });
  const usage = fc
    .record({
      prompt: count,
      completion: count,
      total: count,
      cached: fc.option(fc.nat({ max: 1000 })),
      written: fc.option(fc.nat({ max: 1000 })),
      reasoning: fc.option(fc.nat({ max: 1000 })),
    })
    .map(({ prompt, completion, total, cached, written, reasoning }): Usage => {
      const has = (detail: (typeof facts.details)[number], value: number | null): boolean =>
        value !== null && facts.details.includes(detail);
      // The parts are parts: the cache within the prompt, the reasoning within the completion.
      const promptTokens = prompt + (cached ?? 0) + (written ?? 0);
      const completionTokens = completion + (reasoning ?? 0);
      return {
        promptTokens,
        completionTokens,
        totalTokens: facts.usage === 'sum' ? promptTokens + completionTokens : total,
        ...(has('cachedPromptTokens', cached) ? { cachedPromptTokens: cached! } : {}),
        ...(has('cacheWritePromptTokens', written) ? { cacheWritePromptTokens: written! } : {}),
        ...(has('reasoningTokens', reasoning) ? { reasoningTokens: reasoning! } : {}),
      };
    });
  return fc.option(usage, { nil: undefined });
}

/** An arbitrary reply `format` can carry. */
export function replyFor(format: ProviderFormat): fc.Arbitrary<TestReply> {
  const facts = FORMATS[format];
  return fc
    .record({
      choices: fc
        .integer({ min: 1, max: facts.choices })
        .chain((n) => fc.tuple(...Array.from({ length: n }, (_, index) => choiceOf(facts, index, format)))),
      usage: usageOf(facts),
      id: facts.ownId ? fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }) : fc.constant(undefined),
      model: facts.ownModel ? fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }) : fc.constant(undefined),
    })
    .map(({ choices, usage, id, model }) => ({
      choices,
      ...(usage === undefined ? {} : { usage }),
      ...(id === undefined ? {} : { id }),
      ...(model === undefined ? {} : { model }),
    }));
}

/** Every kind of chunking the kit offers, with arbitrary sizes and seeds. */
export const chunkings: fc.Arbitrary<Chunking[]> = fc
  .record({ every: fc.integer({ min: 1, max: 64 }), seed: fc.integer(), maxSize: fc.integer({ min: 1, max: 32 }) })
  .map(({ every, seed, maxSize }) => ['events', 'whole', 'inside-characters', { every }, { random: seed, maxSize }]);
