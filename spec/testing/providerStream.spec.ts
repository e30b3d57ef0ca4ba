import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { from } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { Chunking } from '../../src/testing/chunking';
import { testReply } from '../../src/testing/singleChoiceReply';
import { TestReply } from '../../src/dialects/writing/TestReply';
import { UnsupportedReplyError } from '../../src/dialects/writing/UnsupportedReplyError';
import { providerStream } from '../../src/testing/writeProviderStream';
import { ProviderFormat } from '../../src/dialects/writing/wire';
import { WEATHER, WEATHER_PLAIN, bodyText } from './dialects/examples';
import { assemble, framesFor } from './dialects/pipeline';
import { collectSync } from '../support/collect';

/**
 * `providerStream` across formats: the chunkings cut the same bytes where they say, the faults cut
 * or extend the whole body where they say, the options refuse what they cannot do, and every SSE
 * body is read by an independent SSE parser (eventsource-parser) event for event.
 */

const FORMATS: readonly ProviderFormat[] = [
  'openai-chat',
  'openai-completions',
  'openai-responses',
  'anthropic',
  'gemini',
  'ollama',
  'llamacpp-completion',
  'typed-events',
  'chat-events',
  'ai-sdk-ui',
  'bedrock-converse',
  'bedrock-invoke',
];

/** A reply each format can carry: the weather scenario, less what the format lacks. */
function replyFor(format: ProviderFormat): TestReply {
  switch (format) {
    case 'openai-completions':
    case 'llamacpp-completion':
      return { choices: [{ text: 'Grüß dich 👋, Paris!' }], usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 } };
    case 'typed-events':
      return WEATHER_PLAIN;
    case 'ai-sdk-ui':
      return { choices: [{ ...WEATHER.choices[0]! }] };
    default:
      return WEATHER;
  }
}

const concat = (chunks: readonly Uint8Array[]): Buffer => Buffer.concat(chunks);

describe('providerStream: what every stream is', () => {
  it.each(FORMATS)('%s: status 200, its content type, not stalled, no fault; assembles to a completion', (format) => {
    const stream = providerStream(replyFor(format), format);
    expect(stream.status).toBe(200);
    expect(stream.stalls).toBe(false);
    expect(stream.fault).toBeUndefined();
    expect(stream.contentType).toMatch(/^(text\/event-stream|application\/x-ndjson|application\/vnd\.amazon\.eventstream)/);
    expect(stream.dialect).toBe(format === 'openai-completions' ? 'openai-chat' : format);
    expect(assemble(stream).values).toHaveLength(1);
  });

  it.each(FORMATS.filter((format) => format !== 'chat-events' && format !== 'ai-sdk-ui'))(
    '%s: the auto dialect recognises it from its first frames, and reads the same completion',
    (format) => {
      const stream = providerStream(replyFor(format), format, { chunking: { random: 3 } });
      const auto = collectSync(
        from(stream.chunks).pipe(framesFor(stream.contentType), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion()),
      );
      expect(auto.values).toEqual(assemble(stream).values);
    },
  );

  it('sends headers beside the content type only where the provider does (the UI message stream)', () => {
    expect(FORMATS.filter((format) => providerStream(replyFor(format), format).headers !== undefined)).toEqual(['ai-sdk-ui']);
  });

  it.each(FORMATS.filter((format) => providerStream(replyFor(format), format).contentType.startsWith('text/event-stream')))(
    '%s: an independent SSE parser reads one event per chunk, each JSON or [DONE]',
    (format) => {
      const stream = providerStream(replyFor(format), format);
      const messages: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (message) => messages.push(message) });
      for (const chunk of stream.chunks) parser.feed(new TextDecoder().decode(chunk));
      // A comment (typed-events' keep-alive) is a chunk of its own and no event.
      const comments = stream.chunks.filter((chunk) => chunk[0] === 0x3a).length;
      expect(messages).toHaveLength(stream.chunks.length - comments);
      for (const message of messages) if (message.data !== '[DONE]') expect(() => JSON.parse(message.data) as unknown).not.toThrow();
    },
  );
});

describe('providerStream: chunkings', () => {
  const reply = testReply('Grüß dich 👋 — 東京 𝄞', { usage: { promptTokens: 3, completionTokens: 9, totalTokens: 12 } });
  const whole = concat(providerStream(reply, 'openai-chat', { chunking: 'whole' }).chunks);

  it('cut the same bytes, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.oneof(
          fc.constantFrom<Chunking>('events', 'whole', 'inside-characters'),
          fc.integer({ min: 1, max: 40 }).map((every): Chunking => ({ every })),
          fc.record({ random: fc.integer(), maxSize: fc.integer({ min: 1, max: 40 }) }),
        ),
        (format, chunking) => {
          const all = concat(providerStream(replyFor(format), format, { chunking: 'whole' }).chunks);
          const chunks = providerStream(replyFor(format), format, { chunking }).chunks;
          expect(concat(chunks).equals(all)).toBe(true);
          expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
        },
      ),
      { numRuns: 100, seed: 7 },
    );
  });

  it("'whole' is one chunk; 'events' one per event, each ending with its blank line", () => {
    expect(providerStream(reply, 'openai-chat', { chunking: 'whole' }).chunks).toHaveLength(1);
    const events = providerStream(reply, 'openai-chat').chunks.map((chunk) => new TextDecoder().decode(chunk));
    expect(
      events.every((event) => event.startsWith('data: ') && event.endsWith('\n\n') && event.indexOf('\n\n') === event.length - 2),
    ).toBe(true);
  });

  it('{ every: n } gives chunks of n bytes, the last one shorter', () => {
    const chunks = providerStream(reply, 'openai-chat', { chunking: { every: 7 } }).chunks;
    expect(chunks.slice(0, -1).every((chunk) => chunk.length === 7)).toBe(true);
    expect(chunks[chunks.length - 1]!.length).toBeLessThanOrEqual(7);
    expect(chunks).toHaveLength(Math.ceil(whole.length / 7));
  });

  it('{ random: seed, maxSize } cuts at sizes from 1 to maxSize, the same for the same seed, differently for another', () => {
    const sizes = (seed: number, maxSize?: number): number[] =>
      providerStream(reply, 'openai-chat', { chunking: maxSize === undefined ? { random: seed } : { random: seed, maxSize } }).chunks.map(
        (chunk) => chunk.length,
      );
    expect(sizes(42, 5)).toEqual(sizes(42, 5));
    expect(sizes(42, 5)).not.toEqual(sizes(43, 5));
    expect(sizes(42, 5).every((size) => size >= 1 && size <= 5)).toBe(true);
    expect(new Set(sizes(42, 5).slice(0, -1)).size).toBeGreaterThan(1);
    expect(Math.max(...sizes(1))).toBeLessThanOrEqual(16);
  });

  it("'inside-characters' cuts inside every multi-byte character, and nowhere else", () => {
    const chunks = providerStream(reply, 'openai-chat', { chunking: 'inside-characters' }).chunks;
    // Every chunk but the first begins with a continuation byte: each cut fell inside a character.
    expect(chunks.slice(1).every((chunk) => (chunk[0]! & 0xc0) === 0x80)).toBe(true);
    const continuations = [...whole].filter((byte) => (byte & 0xc0) === 0x80).length;
    expect(chunks).toHaveLength(continuations + 1);
    // 👋 (4 bytes) and 𝄞 (4 bytes) are each cut three times.
    expect(chunks.filter((chunk) => chunk.length === 1).length).toBeGreaterThanOrEqual(6);
    expect(providerStream(testReply('plain'), 'openai-chat', { chunking: 'inside-characters' }).chunks).toHaveLength(1);
  });

  it.each([
    [{ every: 0 }, RangeError],
    [{ every: 1.5 }, RangeError],
    [{ random: 1, maxSize: 0 }, RangeError],
    ['lines' as unknown as Chunking, TypeError],
  ] as const)('refuses the chunking %j', (chunking, type) => {
    expect(() => providerStream(reply, 'openai-chat', { chunking })).toThrow(type);
  });
});

describe('providerStream: faults', () => {
  it.each(FORMATS.filter((format) => format !== 'openai-completions' && format !== 'llamacpp-completion'))(
    '%s: each fault leaves a prefix of the whole body, or a prefix and the error after it',
    (format) => {
      const reply = replyFor(format);
      const whole = concat(providerStream(reply, format).chunks);
      const isPrefix = (body: Buffer): boolean => body.length < whole.length && whole.subarray(0, body.length).equals(body);
      for (const fault of ['cut-mid-line', 'cut-before-end', 'cut-in-arguments', 'stall'] as const) {
        const stream = providerStream(reply, format, { fault });
        expect(isPrefix(concat(stream.chunks))).toBe(true);
        expect(stream.stalls).toBe(fault === 'stall');
      }
      const failed = concat(providerStream(reply, format, { fault: 'error' }).chunks);
      const stalled = concat(providerStream(reply, format, { fault: 'stall' }).chunks);
      // The error comes where the stall would: after the same events.
      expect(failed.subarray(0, stalled.length).equals(stalled)).toBe(true);
      expect(failed.length).toBeGreaterThan(stalled.length);
    },
  );

  it('cut before the end drops exactly the end signal; in OpenAI Chat, the finish and usage chunks with [DONE]', () => {
    // A reply whose choices all finished is whole there without [DONE] (servers that omit it): the
    // finish chunks, the usage chunk and [DONE] are its end together.
    const body = bodyText(providerStream(WEATHER, 'openai-chat', { fault: 'cut-before-end' }).chunks);
    const full = bodyText(providerStream(WEATHER, 'openai-chat').chunks);
    expect(full.startsWith(body)).toBe(true);
    const dropped = full
      .slice(body.length)
      .split('\n\n')
      .filter((event) => event !== '')
      .map((event) => event.slice('data: '.length));
    expect(dropped[dropped.length - 1]).toBe('[DONE]');
    const chunks = dropped.slice(0, -1).map((data) => JSON.parse(data) as { choices: { finish_reason: string | null }[]; usage?: unknown });
    expect(chunks.map((chunk) => (chunk.choices.length === 0 ? 'usage' : chunk.choices[0]!.finish_reason))).toEqual(
      WEATHER.usage === undefined ? ['tool_calls'] : ['tool_calls', 'usage'],
    );
    const anthropicBody = bodyText(providerStream(WEATHER, 'anthropic', { fault: 'cut-before-end' }).chunks);
    expect(bodyText(providerStream(WEATHER, 'anthropic').chunks)).toBe(
      `${anthropicBody}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
  });

  it('cut mid-line stops inside a line, never inside a character', () => {
    const reply = testReply('ééééééééééééééééééééééééééé');
    for (const format of FORMATS.filter((f) => f !== 'bedrock-converse' && f !== 'bedrock-invoke')) {
      const body = concat(providerStream(reply, format, { fault: 'cut-mid-line' }).chunks);
      expect(body[body.length - 1]).not.toBe(0x0a);
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(body)).not.toThrow();
    }
  });

  it('a cut inside the arguments of a reply without calls is refused', () => {
    expect(() => providerStream(testReply('no calls'), 'openai-chat', { fault: 'cut-in-arguments' })).toThrow(UnsupportedReplyError);
    expect(() =>
      providerStream(testReply({ toolCalls: [{ name: 'f', arguments: 1 }] }), 'anthropic', { fault: 'cut-in-arguments' }),
    ).toThrow('anthropic cannot write fault: cut-in-arguments needs a call whose arguments have two characters or more');
  });

  it('refuses a fault it does not know, and a format it does not know', () => {
    expect(() => providerStream(testReply('a'), 'openai-chat', { fault: 'reset' as never })).toThrow(TypeError);
    expect(() => providerStream(testReply('a'), 'no-such-format' as never)).toThrow(TypeError);
  });
});

describe('providerStream: a call the token limit cut', () => {
  it.each(['openai-chat', 'openai-responses', 'anthropic', 'chat-events', 'bedrock-converse', 'bedrock-invoke', 'ai-sdk-ui'] as const)(
    '%s: arguments that do not parse, then the finish length: the completion keeps the call apart as incomplete',
    (format) => {
      const reply = testReply({
        text: 'Checking.',
        toolCalls: [{ name: 'get_weather', arguments: { raw: '{"city":"Par' } }],
        finishReason: 'length',
      });
      const completion = assemble(providerStream(reply, format)).values[0]!;
      expect(completion.finishReason).toBe('length');
      expect(completion.toolCalls).toEqual([]);
      expect(completion.incompleteToolCalls).toEqual([{ index: 0, id: 'call_0', name: 'get_weather', arguments: '{"city":"Par' }]);
    },
  );
});

describe('testReply', () => {
  it('makes a one-choice reply from a text, or from a choice, with the rest beside it', () => {
    expect(testReply('Hello')).toEqual({ choices: [{ text: 'Hello' }] });
    const usage = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
    expect(testReply({ text: 'a', finishReason: 'length' }, { usage, model: 'm' })).toEqual({
      choices: [{ text: 'a', finishReason: 'length' }],
      usage,
      model: 'm',
    });
  });
});
