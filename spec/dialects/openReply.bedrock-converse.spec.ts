import { from, toArray } from 'rxjs';
import { SseFrame } from '../../src/frames/SseParser';
import { awsEventStreamFrames } from '../../src/frames/awsEventStreamFrames';
import { autoDialect } from '../../src/dialects/auto';
import { bedrockConverse } from '../../src/dialects/bedrock-converse/bedrockConverse';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { assembleBedrock, converseStream } from '../support/awsEventStream';
import { chunksOf } from '../support/chunking';
import { collectSync } from '../support/collect';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete } from '../support/complete';

// What bedrock-converse keeps of the fields it does not map, and where: `metadata`'s on the reply,
// the message's own events' (`messageStart`, `messageStop`) and its text and reasoning blocks' on
// choice 0, and a toolUse block's on its call. The events follow AWS's reference
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html and
// the event shapes it links); each carries Bedrock's padding `p`, which is never kept, and a field
// the completion has no place for, documented or unknown.

/** The events as SSE text (the dialect reads each frame's event name and JSON, whatever framed them). */
const sse = (events: ReadonlyArray<readonly [string, unknown]>): string =>
  events.map(([event, payload]) => `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`).join('');
const framesOf = (events: ReadonlyArray<readonly [string, unknown]>): SseFrame[] => events.map(([event, payload]) => frame(payload, event));

/** Bedrock's padding: letters of a length that differs from event to event. */
const pad = (n: number): string => 'abcdefghijklmnopqrstuvwxyz'.slice(0, 1 + ((n * 7) % 26));

/** Each event with its padding. */
const padded = (events: ReadonlyArray<readonly [string, Record<string, unknown>]>): [string, Record<string, unknown>][] =>
  events.map(([event, payload], n) => [event, { ...payload, p: pad(n) }]);

const USAGE = { inputTokens: 12, outputTokens: 40, totalTokens: 52 };
const TRACE = { guardrail: { modelOutput: ['{"blocked":false}'] } };

describe('bedrock-converse keeps every field it does not map, where it arrived', () => {
  const events = padded([
    ['messageStart', { role: 'assistant', novelStart: 1 }],
    ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think.', novelReasoning: 'r' } } }],
    ['contentBlockStop', { contentBlockIndex: 0 }],
    ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Let me look.', novelDelta: 'd' }, novelEvent: 'e' }],
    ['contentBlockStop', { contentBlockIndex: 1, novelStop: 's' }],
    [
      'contentBlockStart',
      {
        contentBlockIndex: 2,
        start: { toolUse: { toolUseId: 'tooluse_1', name: 'lookup', type: 'tool_use' }, novelUnion: 'u' },
        novelBlock: 'b',
      },
    ],
    ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"q":', novelInput: 'i' } } }],
    ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"x"}' } } }],
    ['contentBlockStop', { contentBlockIndex: 2, novelCallStop: true }],
    ['messageStop', { stopReason: 'tool_use', additionalModelResponseFields: { stop_sequence: null } }],
    [
      'metadata',
      {
        usage: USAGE,
        metrics: { latencyMs: 812 },
        trace: TRACE,
        performanceConfig: { latency: 'optimized' },
        serviceTier: { type: 'priority' },
      },
    ],
  ]);
  const REPLY = {
    bedrock: { metrics: { latencyMs: 812 }, trace: TRACE, performanceConfig: { latency: 'optimized' }, serviceTier: { type: 'priority' } },
  };
  const CHOICE = {
    bedrock: {
      novelStart: 1,
      novelReasoning: 'r',
      novelDelta: 'd',
      novelEvent: 'e',
      novelStop: 's',
      additionalModelResponseFields: { stop_sequence: null },
    },
  };
  const CALL = { bedrock: { novelBlock: 'b', novelUnion: 'u', type: 'tool_use', novelInput: 'i', novelCallStop: true } };
  const LOOKUP = { index: 0, id: 'tooluse_1', name: 'lookup', arguments: '{"q":"x"}', args: { q: 'x' } };

  it('on the completion, choice 0 and the call, whole and at every chunk size, the padding never', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(events), bedrockConverse, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.providerMetadata).toEqual(REPLY);
      expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
      expect(completion!.toolCalls).toEqual([{ ...LOOKUP, providerMetadata: CALL }]);
    }
  });

  it('the same from the AWS event stream under auto, at every chunk size, and on the tool-call event', () => {
    const bytes = converseStream(events);
    for (const size of [bytes.length, ...CHUNK_SIZES]) {
      const { values, error } = assembleBedrock(bytes, size);
      expect(error).toBeUndefined();
      expect(values[0]!.providerMetadata).toEqual(REPLY);
      expect(values[0]!.choices[0]!.providerMetadata).toEqual(CHOICE);
      expect(values[0]!.toolCalls).toEqual([{ ...LOOKUP, providerMetadata: CALL }]);
    }
    const outcome = collectSync(
      from(chunksOf(bytes, 7)).pipe(
        awsEventStreamFrames(),
        assembleChunks({ dialect: bedrockConverse }),
        groupToolCallsByIndex(),
        toArray(),
      ),
    );
    expect(outcome.values[0]!.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', choice: 0, call: { ...LOOKUP, providerMetadata: CALL } },
    ]);
  });

  it('the same under auto', () => {
    const { completion, error } = complete(autoDialect, framesOf(events));
    expect(error).toBeUndefined();
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual(CALL);
  });

  it('keeps the fields of the events of a block of a kind it does not read on choice 0, beside the block', () => {
    const image = { image: { format: 'png' } };
    const { completion, error } = complete(
      bedrockConverse,
      framesOf(
        padded([
          ['messageStart', { role: 'assistant' }],
          ['contentBlockStart', { contentBlockIndex: 0, start: image, novelBlock: 'b' }],
          ['contentBlockStop', { contentBlockIndex: 0 }],
          ['messageStop', { stopReason: 'end_turn' }],
        ]),
      ),
    );
    expect(error).toBeUndefined();
    expect(completion!.choices[0]!.providerMetadata).toEqual({ bedrock: { items: [image], novelBlock: 'b' } });
  });

  it('keeps none for events of only the fields it reads, and their padding', () => {
    const plain = padded([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think.', signature: 'c2ln' } } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hi' } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_1', name: 'lookup' } } }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{}' } } }],
      ['contentBlockStop', { contentBlockIndex: 2 }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: USAGE }],
    ]);
    const { completion, error } = complete(bedrockConverse, framesOf(plain));
    expect(error).toBeUndefined();
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('bedrock-converse: fields kept from events read through a learned shape', () => {
  // Fourteen text deltas of one shape (the padding a hole of its own): after two, the parser reads
  // them through a template, and the base skips what it kept already.
  const stream = (delta: (n: number) => Record<string, unknown>): [string, Record<string, unknown>][] =>
    padded([
      ['messageStart', { role: 'assistant' }],
      ...Array.from({ length: 14 }, (_, n): [string, Record<string, unknown>] => [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { text: `w${n} ` }, ...delta(n) },
      ]),
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['messageStop', { stopReason: 'end_turn' }],
    ]);

  it('keeps a field every event repeats once', () => {
    const { completion, events, error } = assembleText(sse(stream(() => ({ region: 'us-east-1' }))), bedrockConverse);
    expect(error).toBeUndefined();
    expect(completion!.choices[0]!.providerMetadata).toEqual({ bedrock: { region: 'us-east-1' } });
    expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(1);
  });

  it('keeps a field whose value changes in every event at its last value, at every chunk size', () => {
    const text = sse(stream((n) => ({ seq: n })));
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(text, bedrockConverse, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.content).toBe(Array.from({ length: 14 }, (_, n) => `w${n} `).join(''));
      expect(completion!.choices[0]!.providerMetadata).toEqual({ bedrock: { seq: 13 } });
    }
  });
});
