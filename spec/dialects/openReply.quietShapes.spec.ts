import fc from 'fast-check';
import { OpenAiChatParser } from '../../src/dialects/openai-chat/openaiChat';
import type { KeptVisitor } from '../../src/dialects/base/JsonDialectParser';
import { ChatEvent } from '../../src/types/events';
import { JsonObject } from '../../src/internal/json';

/**
 * openai-chat declares where it keeps what no field names (`visitKept`), and skips its `keepUnmapped`
 * calls for the chunks of a shape that keep nothing new. The skip must never lose a field, nor keep one
 * twice: the same chunks read by the same dialect with every call made in full give the same events,
 * whatever the extra fields, where they sit (envelope, usage details, choice, delta, whole message,
 * call), whether their values vary from chunk to chunk, and whatever the choice indexes.
 */
class EveryCallParser extends OpenAiChatParser {
  // The envelope reported with no mapped field and a place that depends on the stream: no shape ever
  // keeps nothing new, and every chunk is read with all its calls made in full.
  protected override visitKept(chunk: JsonObject, visit: KeptVisitor): void {
    visit(chunk, new Set(), undefined);
  }
}

type Read = { readonly events: readonly ChatEvent[] } | { readonly error: string };

function read(Parser: typeof OpenAiChatParser, payloads: readonly string[]): Read {
  const events: ChatEvent[] = [];
  const parser = new Parser((event) => events.push(event), {});
  try {
    for (const data of payloads) parser.push({ event: 'message', data, id: '' });
    parser.push({ event: 'message', data: '[DONE]', id: '' });
    parser.end();
  } catch (error) {
    return { error: String(error) };
  }
  return { events };
}

/** Extra fields of one level: a name, and a value that is the same in every chunk or varies. */
const extraField = fc.record({
  name: fc.constantFrom('x_a', 'x_b', 'system_fingerprint', 'service_tier', 'extra_content_z'),
  value: fc.oneof(fc.constant('same'), fc.constant(7), fc.constant({ nested: 'same' })),
  varies: fc.boolean(),
});
const extras = fc.array(extraField, { maxLength: 2 });

/** Which levels carry extras in a stream, and how its chunks are made. */
const streamPlan = fc.record({
  envelope: extras,
  choice: extras,
  delta: extras,
  call: extras,
  details: extras,
  choiceIndexes: fc.constantFrom([0], [1], [0, 1]),
  indexVaries: fc.boolean(),
  chunks: fc.integer({ min: 3, max: 12 }),
  withCall: fc.boolean(),
  wholeMessageLast: fc.boolean(),
  /** A chunk, now and then, of another shape that keeps a different value of an envelope field. */
  otherShapeEvery: fc.integer({ min: 0, max: 4 }),
});

type Plan = typeof streamPlan extends fc.Arbitrary<infer T> ? T : never;

function withExtras(object: Record<string, unknown>, fields: Plan['envelope'], chunk: number): Record<string, unknown> {
  for (const { name, value, varies } of fields) object[name] = varies ? `${chunk}-${String(chunk * 7919)}` : value;
  return object;
}

function payloadsOf(plan: Plan): string[] {
  const payloads: string[] = [];
  for (let chunk = 0; chunk < plan.chunks; chunk++) {
    const choices = plan.choiceIndexes.map((index) => {
      const delta = withExtras({ content: `t${chunk} ` }, plan.delta, chunk);
      if (plan.withCall) {
        const call =
          chunk === 0
            ? { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }
            : { index: 0, function: { arguments: `${chunk}` } };
        delta['tool_calls'] = [withExtras(call, plan.call, chunk)];
      }
      return withExtras({ index: plan.indexVaries && chunk % 2 === 1 ? index + 2 : index, delta, finish_reason: null }, plan.choice, chunk);
    });
    const envelope = withExtras({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices }, plan.envelope, chunk);
    if (plan.otherShapeEvery > 0 && chunk % plan.otherShapeEvery === plan.otherShapeEvery - 1) envelope['x_other'] = `shape-${chunk % 3}`;
    payloads.push(JSON.stringify(envelope));
  }
  const last = plan.choiceIndexes.map((index) =>
    plan.wholeMessageLast
      ? withExtras(
          { index, message: withExtras({ role: 'assistant', content: 'whole' }, plan.delta, 99), finish_reason: 'stop' },
          plan.choice,
          99,
        )
      : withExtras({ index, delta: {}, finish_reason: 'stop' }, plan.choice, 99),
  );
  payloads.push(
    JSON.stringify(withExtras({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: last }, plan.envelope, 99)),
  );
  const usage = {
    prompt_tokens: 1,
    completion_tokens: 2,
    total_tokens: 3,
    completion_tokens_details: withExtras({ reasoning_tokens: 0 }, plan.details, 0),
  };
  payloads.push(
    JSON.stringify(withExtras({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [], usage }, plan.envelope, 100)),
  );
  return payloads;
}

describe('openai-chat skips keeping only where nothing new would be kept', () => {
  it('reads every stream as the dialect does with every keepUnmapped call made', () => {
    fc.assert(
      fc.property(streamPlan, (plan) => {
        const payloads = payloadsOf(plan);
        expect(read(OpenAiChatParser, payloads)).toEqual(read(EveryCallParser, payloads));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a field at a choice whose index is new, in a shape where the index varies', () => {
    // One shape whose choice index is a hole (0 and 1 in turn): a chunk of it for choice 3 keeps the field there too.
    const chunk = (index: number, text: string): string =>
      JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index, delta: { content: text }, finish_reason: null, x_seen: 'yes' }],
      });
    const payloads = [chunk(0, 'a'), chunk(1, 'b'), chunk(0, 'c'), chunk(1, 'd'), chunk(0, 'e'), chunk(1, 'f'), chunk(3, 'g')];
    const result = read(OpenAiChatParser, payloads);
    expect('events' in result && result.events.filter((event) => event.type === 'provider-metadata')).toEqual([
      { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { x_seen: 'yes' } },
      { type: 'provider-metadata', provider: 'openai', choice: 1, fields: { x_seen: 'yes' } },
      { type: 'provider-metadata', provider: 'openai', choice: 3, fields: { x_seen: 'yes' } },
    ]);
  });
});
