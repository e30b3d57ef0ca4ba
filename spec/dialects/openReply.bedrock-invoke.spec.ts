import { from, toArray } from 'rxjs';
import { awsEventStreamFrames } from '../../src/frames/awsEventStreamFrames';
import { bedrockInvoke } from '../../src/dialects/bedrock-invoke/bedrockInvoke';
import { DialectFactory } from '../../src/dialects/Dialect';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ChatEvent, Completion } from '../../src/types/events';
import { concat, eventMessage } from '../support/awsEventStream';
import { chunksOf } from '../support/chunking';
import { collectSync } from '../support/collect';
import { CHUNK_SIZES } from '../support/dialect';

// Bedrock's InvokeModelWithResponseStream for Anthropic models: each `chunk` event's payload (AWS's
// PayloadPart) is `{"bytes": <base64 of one Anthropic event>, "p": <padding>}`, and the last event
// carries Bedrock's `amazon-bedrock-invocationMetrics` beside its type
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html,
// https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
// What the Anthropic events carry that their dialect does not map is kept as there, under
// `anthropic`; so are the metrics, whole, and any field of a chunk's payload beside its bytes and its
// padding, on the reply.

type Payload = Record<string, unknown>;

/** One `chunk` message: the Anthropic event in base64 `bytes`, the padding `p`, and `beside` it. */
const chunk = (event: Payload, n: number, beside: Payload = {}): Uint8Array =>
  eventMessage('chunk', {
    bytes: Buffer.from(JSON.stringify(event)).toString('base64'),
    p: 'abcdefghij'.slice(0, 1 + (n % 10)),
    ...beside,
  });

/** A reply: every event in a chunk of its own, with what `beside(n)` gives beside its bytes. */
const stream = (events: readonly Payload[], beside: (n: number) => Payload = () => ({})): Uint8Array =>
  concat(events.map((event, n) => chunk(event, n, beside(n))));

/** Bedrock bytes through the pipeline in pieces of `size`: the events, and the completion. */
function read(bytes: Uint8Array, dialect: DialectFactory | 'auto', size = bytes.length): { events: ChatEvent[]; completion: Completion } {
  const pieces = chunksOf(bytes, size);
  const events = collectSync(from(pieces).pipe(awsEventStreamFrames(), assembleChunks({ dialect }), toArray()));
  const completed = collectSync(
    from(pieces).pipe(awsEventStreamFrames(), assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()),
  );
  expect(events.error).toBeUndefined();
  expect(completed.error).toBeUndefined();
  return { events: events.values[0]!, completion: completed.values[0]! };
}

const MESSAGE = { id: 'msg_bdrk_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null };
const METRICS = { inputTokenCount: 10, outputTokenCount: 9, invocationLatency: 930, firstByteLatency: 410 };

describe('bedrock-invoke keeps every field it does not map, where it arrived', () => {
  const container = { id: 'container_011', expires_at: '2026-01-01T00:05:00Z' };
  const caller = { type: 'direct' };
  const events = [
    { type: 'message_start', message: { ...MESSAGE, stop_sequence: null, container, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', origin: 'model' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {}, caller } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}', piece: 1 } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: '###' }, usage: { output_tokens: 9 } },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': METRICS },
  ];
  // A field of the chunk's own beside the bytes, on the first chunk only.
  const bytes = stream(events, (n) => (n === 0 ? { trace: 'Root=1-abc' } : {}));
  const REPLY = { anthropic: { stop_sequence: '###', container, 'amazon-bedrock-invocationMetrics': METRICS, trace: 'Root=1-abc' } };

  const expectKept = (completion: Completion): void => {
    expect(completion.providerMetadata).toEqual(REPLY);
    expect(completion.choices[0]!.providerMetadata).toEqual({ anthropic: { origin: 'model' } });
    expect(completion.toolCalls).toEqual([
      { index: 0, id: 'toolu_1', name: 'f', arguments: '{}', args: {}, providerMetadata: { anthropic: { caller, piece: 1 } } },
    ]);
    // The Anthropic usage is the reference: the metrics, kept, are not read as the usage.
    expect(completion.usage).toEqual({ promptTokens: 10, completionTokens: 9, totalTokens: 19 });
  };

  it('on the completion, the choice and the call, whole and at every chunk size', () => {
    for (const size of [bytes.length, ...CHUNK_SIZES]) expectKept(read(bytes, bedrockInvoke, size).completion);
  });

  it('reads the same under auto', () => {
    expectKept(read(bytes, 'auto').completion);
    expectKept(read(bytes, 'auto', 7).completion);
  });

  it('keeps the metrics when they are the usage too', () => {
    const withoutUsage = events.map((event) => {
      if (event.type === 'message_start') return { type: 'message_start', message: { ...MESSAGE } };
      if (event.type === 'message_delta') return { type: 'message_delta', delta: { stop_reason: 'end_turn' } };
      return event;
    });
    const { completion } = read(stream(withoutUsage), bedrockInvoke);
    expect(completion.usage).toEqual({ promptTokens: 10, completionTokens: 9, totalTokens: 19 });
    expect(completion.providerMetadata).toEqual({ anthropic: { 'amazon-bedrock-invocationMetrics': METRICS } });
  });

  it('keeps none for a stream of only the fields it reads, its padding changing in every chunk', () => {
    const plain = [
      { type: 'message_start', message: { ...MESSAGE, usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ];
    const { completion } = read(stream(plain), bedrockInvoke);
    expect('providerMetadata' in completion).toBe(false);
    expect('providerMetadata' in completion.choices[0]!).toBe(false);
    expect('providerMetadata' in completion.toolCalls[0]!).toBe(false);
  });
});

describe('bedrock-invoke: fields a long stream sends in every chunk', () => {
  const text = (n: number, delta: Payload = {}): Payload => ({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: `w${n} `, ...delta },
  });
  const reply = (middle: readonly Payload[]): Payload[] => [
    { type: 'message_start', message: { ...MESSAGE, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...middle,
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 14 } },
    { type: 'message_stop' },
  ];
  const deltas = (delta: (n: number) => Payload = () => ({})): Payload[] => Array.from({ length: 14 }, (_, n) => text(n, delta(n)));

  it('keeps a field every chunk repeats once, beside the bytes and in the event', () => {
    const bytes = stream(reply(deltas(() => ({ lang: 'en' }))), () => ({ region: 'us-east-1' }));
    for (const size of [bytes.length, ...CHUNK_SIZES]) {
      const { completion, events } = read(bytes, bedrockInvoke, size);
      expect(completion.providerMetadata).toEqual({ anthropic: { region: 'us-east-1' } });
      expect(completion.choices[0]!.providerMetadata).toEqual({ anthropic: { lang: 'en' } });
      expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'anthropic', fields: { region: 'us-east-1' } },
        { type: 'provider-metadata', provider: 'anthropic', choice: 0, fields: { lang: 'en' } },
      ]);
    }
  });

  it('keeps a field whose value changes in every chunk at its last value', () => {
    const events = reply(deltas((n) => ({ offset: n })));
    const bytes = stream(events, (n) => ({ seq: n }));
    for (const size of [bytes.length, ...CHUNK_SIZES]) {
      const { completion } = read(bytes, bedrockInvoke, size);
      expect(completion.providerMetadata).toEqual({ anthropic: { seq: events.length - 1 } });
      expect(completion.choices[0]!.providerMetadata).toEqual({ anthropic: { offset: 13 } });
    }
    expect(read(bytes, 'auto').completion.providerMetadata).toEqual({ anthropic: { seq: events.length - 1 } });
  });
});
