import { readFileSync } from 'fs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { anthropic } from '../../src/dialects/anthropic/anthropic';
import { DialectOptions } from '../../src/dialects/Dialect';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { assembleBytes, assembleText, readBytes, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

// The example stream of this dialect, byte for byte (marbles/README.md says where it came from).
const EXAMPLE = marbleFile('dialects/anthropic-messages.sse');
// The recording as rebuilt in marbles/ (with event names); its data lines are the recorded payloads.
const JSON_TOOL_RECORDING = marbleFile('real/anthropic-json-tool.2.sse');
const GATEWAY_RECORDING = marbleFile('real/anthropic-fallback-tool-call.sse');

/** Runs frames through the anthropic core; returns the events and the error, if any. */
const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(anthropic, frames, options);

/** A frame as Anthropic sends it: the event name repeats `data.type`. */
const named = (payload: { type: string } & Record<string, unknown>) => frame(payload, payload.type);
const messageStart = (id = 'msg_1', usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) =>
  named({ type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-x', content: [], usage } });
const blockStart = (index: number, contentBlock: Record<string, unknown>) =>
  named({ type: 'content_block_start', index, content_block: contentBlock });
const blockDelta = (index: number, delta: Record<string, unknown>) => named({ type: 'content_block_delta', index, delta });
const blockStop = (index: number) => named({ type: 'content_block_stop', index });
const messageDelta = (stopReason: string | null, usage?: Record<string, unknown>) =>
  named({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, ...(usage ? { usage } : {}) });
const MESSAGE_STOP = named({ type: 'message_stop' });
const textDelta = (index: number, text: string) => blockDelta(index, { type: 'text_delta', text });
const jsonDelta = (index: number, partial: string) => blockDelta(index, { type: 'input_json_delta', partial_json: partial });
const toolUse = (index: number, id: string, name: string, input: unknown = {}) => blockStart(index, { type: 'tool_use', id, name, input });

const START: ChatEvent = { type: 'start', id: 'msg_1', model: 'claude-x' };
const START_USAGE: ChatEvent = { type: 'usage', usage: { promptTokens: 10, completionTokens: 1, totalTokens: 11 } };

/** The events between message_start's and message_stop's own. */
function middle(frames: readonly SseFrame[], options?: DialectOptions): ChatEvent[] {
  const { events, error } = read([messageStart(), ...frames, messageDelta('end_turn'), MESSAGE_STOP], options);
  if (error !== undefined) throw error;
  return events.slice(
    2,
    events.findIndex((e) => e.type === 'finish'),
  );
}

const PARIS = {
  index: 0,
  id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
  name: 'get_weather',
  arguments: '{"city": "Paris", "unit": "celsius"}',
  args: { city: 'Paris', unit: 'celsius' },
};
const TOKYO = {
  index: 1,
  id: 'toolu_01VgQ7rB2sLx9mKd4pNc8ZyE',
  name: 'get_weather',
  arguments: '{"city": "Tokyo", "unit": "celsius"}',
  args: { city: 'Tokyo', unit: 'celsius' },
};
const SIGNATURE = 'EqQBCkYIBxgCKkDdN3v0mZ1x6Qp2Y8kLrT4sWbHc9eFgA7uJ1nVoP5iKzXyRtQ3mLwE2aSdFgH6jKl0BbNcVz8XqYw==';
const REASONING = "The user wants the current weather in Paris and Tokyo. I'll call get_weather once per city.";
/** The thinking block's signature, for the next turn: with the block's reasoning (block 0), before any content. */
const SIGNATURE_ITEM = {
  provider: 'anthropic',
  kind: 'signature',
  type: 'signature_delta',
  part: 'reasoning',
  block: 0,
  data: SIGNATURE,
} as const;
const SIGNED = { ...SIGNATURE_ITEM, at: { reasoning: REASONING.length, content: 0 } };

const EXAMPLE_COMPLETION: Completion = {
  id: 'msg_01HCd8Wq3kZr5vTn7yPbX2aL',
  model: 'claude-sonnet-4-5-20250929',
  content: 'Let me check both cities.',
  reasoning: REASONING,
  refusal: null,
  toolCalls: [PARIS, TOKYO],
  finishReason: 'tool_calls',
  rawFinishReason: 'tool_use',
  usage: { promptTokens: 472, completionTokens: 161, totalTokens: 633, cachedPromptTokens: 0, cacheWritePromptTokens: 0 },
  timings: null,
  reasoningTokens: 0,
  reasoningSignatures: [SIGNATURE],
  opaqueItems: [SIGNED],
  choices: [
    {
      index: 0,
      content: 'Let me check both cities.',
      reasoning: REASONING,
      refusal: null,
      toolCalls: [PARIS, TOKYO],
      finishReason: 'tool_calls',
      rawFinishReason: 'tool_use',
      reasoningSignatures: [SIGNATURE],
      opaqueItems: [SIGNED],
    },
  ],
  // The message's stop_sequence, null at its start and in message_delta: no stop sequence ended it;
  // what message_start's usage counts beside the tokens (the cache writes by time to live, the tier).
  providerMetadata: {
    anthropic: {
      stop_sequence: null,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      service_tier: 'standard',
    },
  },
};

/** The first fragment of a get_weather call, and the next ones, as the example stream has them. */
const call = (index: number, id: string): ChatEvent => ({
  type: 'tool-call-delta',
  choice: 0,
  index,
  id,
  name: 'get_weather',
  arguments: '',
});
const args = (index: number, text: string): ChatEvent => ({ type: 'tool-call-delta', choice: 0, index, arguments: text });

/** The example stream's events, read off the file by hand. */
const EXAMPLE_EVENTS: ChatEvent[] = [
  { type: 'start', id: 'msg_01HCd8Wq3kZr5vTn7yPbX2aL', model: 'claude-sonnet-4-5-20250929' },
  // Both cache counts are 0, so promptTokens is input_tokens alone; they are reported beside it all the same.
  { type: 'usage', usage: { promptTokens: 472, completionTokens: 3, totalTokens: 475, cachedPromptTokens: 0, cacheWritePromptTokens: 0 } },
  {
    type: 'provider-metadata',
    provider: 'anthropic',
    fields: { cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, service_tier: 'standard' },
  },
  // The message's stop_sequence: message_delta's, the same null, is not kept again.
  { type: 'provider-metadata', provider: 'anthropic', fields: { stop_sequence: null } },
  { type: 'reasoning', choice: 0, text: 'The user wants the current' },
  { type: 'reasoning', choice: 0, text: ' weather in Paris and Tokyo.' },
  { type: 'reasoning', choice: 0, text: " I'll call get_weather once per city." },
  { type: 'reasoning-signature', choice: 0, signature: SIGNATURE },
  { type: 'opaque-item', choice: 0, item: SIGNATURE_ITEM },
  { type: 'content', choice: 0, text: 'Let me' },
  { type: 'content', choice: 0, text: ' check both' },
  { type: 'content', choice: 0, text: ' cities.' },
  call(0, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6'),
  args(0, ''),
  args(0, '{"city": "Par'),
  args(0, 'is", "unit": "celsius"}'),
  { type: 'tool-call-end', choice: 0, index: 0 },
  call(1, 'toolu_01VgQ7rB2sLx9mKd4pNc8ZyE'),
  args(1, ''),
  args(1, '{"city": "Tokyo", '),
  args(1, '"unit": "celsius"}'),
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_use' },
  {
    type: 'usage',
    usage: { promptTokens: 472, completionTokens: 161, totalTokens: 633, cachedPromptTokens: 0, cacheWritePromptTokens: 0 },
  },
  { type: 'done' },
];

describe('anthropic', () => {
  exampleStreamSuite({
    dialect: anthropic,
    file: 'dialects/anthropic-messages.sse',
    framing: 'sse',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
    more: () => {
      it('assembles the same with every event: line dropped, as a proxy does', () => {
        const dataOnly = readFileSync(EXAMPLE, 'utf8').replace(/^event: .*\n/gm, '');
        expect(dataOnly).not.toContain('event:');
        expect(assembleText(dataOnly, anthropic).completion).toEqual(EXAMPLE_COMPLETION);
      });
    },
  });

  describe('recorded streams', () => {
    it('assembles the native recording anthropic-json-tool.2 (event names dropped, data-only frames)', () => {
      const lines = readFileSync(JSON_TOOL_RECORDING, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length));
      const bytes = new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join(''));
      const json = {
        index: 0,
        id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA',
        name: 'json',
        arguments: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}',
        args: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
      };
      const expected: Completion = {
        id: 'msg_01K2JbSUMYhez5RHoK9ZCj9U',
        model: 'claude-haiku-4-5-20251001',
        content: "I'll invoke the JSON response tool.",
        reasoning: null,
        refusal: null,
        toolCalls: [json],
        finishReason: 'tool_calls',
        rawFinishReason: 'tool_use',
        usage: { promptTokens: 849, completionTokens: 47, totalTokens: 896, cachedPromptTokens: 0, cacheWritePromptTokens: 0 },
        timings: null,
        reasoningTokens: 0,
        choices: [
          {
            index: 0,
            content: "I'll invoke the JSON response tool.",
            reasoning: null,
            refusal: null,
            toolCalls: [json],
            finishReason: 'tool_calls',
            rawFinishReason: 'tool_use',
          },
        ],
        providerMetadata: {
          anthropic: {
            stop_sequence: null,
            // message_start's usage beside its token counts: the cache writes by time to live, the tier.
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
            service_tier: 'standard',
          },
        },
      };
      for (const chunkSize of [1, 7, 64, bytes.length]) {
        expect(assembleBytes(bytes, anthropic, { chunkSize }).completion).toEqual(expected);
      }
    });

    it('rejects the gateway recording anthropic-fallback-tool-call (OpenAI-shaped, not Anthropic) with a ProtocolError', () => {
      const { error } = assembleBytes(readBytes(GATEWAY_RECORDING), anthropic);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 1: the payload has no type');
    });
  });

  describe('content blocks', () => {
    it('maps text_delta to content, thinking_delta to reasoning, signature_delta to a reasoning-signature', () => {
      expect(
        middle([
          blockStart(0, { type: 'thinking', thinking: '' }),
          blockDelta(0, { type: 'thinking_delta', thinking: 'hmm' }),
          blockDelta(0, { type: 'signature_delta', signature: 'sig' }),
          blockStop(0),
          blockStart(1, { type: 'text', text: '' }),
          textDelta(1, 'Hi'),
          blockStop(1),
        ]),
      ).toEqual([
        { type: 'reasoning', choice: 0, text: 'hmm' },
        { type: 'reasoning-signature', choice: 0, signature: 'sig' },
        {
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'anthropic', kind: 'signature', type: 'signature_delta', part: 'reasoning', block: 0, data: 'sig' },
        },
        { type: 'content', choice: 0, text: 'Hi' },
      ]);
    });

    it("keeps a redacted_thinking block's data as a reasoning-signature", () => {
      expect(middle([blockStart(0, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' }), blockStop(0)])).toEqual([
        { type: 'reasoning-signature', choice: 0, signature: 'EmwKAhgBEgy3' },
        {
          type: 'opaque-item',
          choice: 0,
          item: {
            provider: 'anthropic',
            kind: 'redacted-reasoning',
            type: 'redacted_thinking',
            part: 'reasoning',
            block: 0,
            data: 'EmwKAhgBEgy3',
          },
        },
      ]);
    });

    it('keeps the signatures in arrival order on the completion', () => {
      const { completion } = assembleBytes(
        new TextEncoder().encode(
          [
            messageStart(),
            blockStart(0, { type: 'redacted_thinking', data: 'first' }),
            blockStop(0),
            blockStart(1, { type: 'thinking', thinking: '' }),
            blockDelta(1, { type: 'signature_delta', signature: 'second' }),
            blockStop(1),
            messageDelta('end_turn'),
            MESSAGE_STOP,
          ]
            .map((f) => `event: ${f.event}\ndata: ${f.data}\n\n`)
            .join(''),
        ),
        anthropic,
      );
      expect(completion?.reasoningSignatures).toEqual(['first', 'second']);
    });

    it('reads text already in a block start (a gateway that does not stream the first piece)', () => {
      expect(middle([blockStart(0, { type: 'text', text: 'Hello' }), blockStop(0)])).toEqual([
        { type: 'content', choice: 0, text: 'Hello' },
      ]);
      expect(middle([blockStart(0, { type: 'thinking', thinking: 'T', signature: 'S' }), blockStop(0)])).toEqual([
        { type: 'reasoning', choice: 0, text: 'T' },
        { type: 'reasoning-signature', choice: 0, signature: 'S' },
        {
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'anthropic', kind: 'signature', type: 'thinking', part: 'reasoning', block: 0, data: 'S' },
        },
      ]);
    });

    it('makes no event for empty text, empty thinking, or an empty signature (llama.cpp cannot sign)', () => {
      expect(
        middle([
          blockStart(0, { type: 'thinking', thinking: '' }),
          blockDelta(0, { type: 'thinking_delta', thinking: '' }),
          blockDelta(0, { type: 'signature_delta', signature: '' }),
          blockStop(0),
          blockStart(1, { type: 'text', text: '' }),
          textDelta(1, ''),
          blockStop(1),
        ]),
      ).toEqual([]);
    });

    it('skips ping and unknown event types, and keeps unknown block and delta types as items (an unknown block with its deltas)', () => {
      expect(
        middle([
          named({ type: 'ping' }),
          named({ type: 'brand_new_event', stuff: 1 }),
          blockStart(0, { type: 'text', text: '' }),
          blockDelta(0, { type: 'brand_new_delta', text: 'not read' }),
          textDelta(0, 'a'),
          blockStop(0),
          blockStart(1, { type: 'brand_new_block', data: 'x' }),
          blockDelta(1, { type: 'text_delta', text: 'not a text block' }),
          blockStop(1),
          blockStart(2, { type: 'text', text: '' }),
          textDelta(2, 'b'),
          blockStop(2),
        ]),
      ).toEqual([
        // What the dialect does not read is part of the reply all the same (the open reply): kept, in order.
        { type: 'provider-metadata', provider: 'anthropic', choice: 0, items: [{ type: 'brand_new_delta', text: 'not read' }] },
        { type: 'content', choice: 0, text: 'a' },
        { type: 'provider-metadata', provider: 'anthropic', choice: 0, items: [{ type: 'brand_new_block', data: 'x' }] },
        { type: 'provider-metadata', provider: 'anthropic', choice: 0, items: [{ type: 'text_delta', text: 'not a text block' }] },
        { type: 'content', choice: 0, text: 'b' },
      ]);
    });
  });

  describe('tool calls', () => {
    it('numbers calls densely by the order their blocks start, whatever the block indices', () => {
      const events = middle([
        blockStart(0, { type: 'text', text: '' }),
        blockStop(0),
        toolUse(1, 'toolu_a', 'f'),
        jsonDelta(1, '{}'),
        blockStop(1),
        toolUse(2, 'toolu_b', 'g'),
        blockStop(2),
      ]);
      expect(events).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'toolu_a', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'toolu_b', name: 'g', arguments: '' },
        { type: 'tool-call-end', choice: 0, index: 1 },
      ]);
    });

    it('keeps interleaved fragments of two open blocks apart', () => {
      const { completion } = assembleText(
        [
          messageStart(),
          toolUse(3, 'p', 'f'),
          toolUse(5, 'q', 'g'),
          jsonDelta(5, '{"y":'),
          jsonDelta(3, '{"x":'),
          jsonDelta(3, '1}'),
          jsonDelta(5, '2}'),
          blockStop(5),
          blockStop(3),
          messageDelta('tool_use'),
          MESSAGE_STOP,
        ]
          .map((f) => `data: ${f.data}\n\n`)
          .join(''),
        anthropic,
      );
      expect(completion?.toolCalls).toEqual([
        { index: 0, id: 'p', name: 'f', arguments: '{"x":1}', args: { x: 1 } },
        { index: 1, id: 'q', name: 'g', arguments: '{"y":2}', args: { y: 2 } },
      ]);
    });

    it('parses a call with no arguments ("" fragments only) as {}', () => {
      const { completion } = assembleText(
        [messageStart(), toolUse(0, 'toolu_n', 'now'), jsonDelta(0, ''), blockStop(0), messageDelta('tool_use'), MESSAGE_STOP]
          .map((f) => `data: ${f.data}\n\n`)
          .join(''),
        anthropic,
      );
      expect(completion?.toolCalls).toEqual([{ index: 0, id: 'toolu_n', name: 'now', arguments: '', args: {} }]);
    });

    it('ignores the input: {} placeholder, but serializes a filled input when no fragment followed', () => {
      expect(middle([toolUse(0, 'a', 'f', { city: 'Paris' }), blockStop(0)])).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":"Paris"}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
      expect(middle([toolUse(0, 'a', 'f', { city: 'Paris' }), jsonDelta(0, '{"city":"Rome"}'), blockStop(0)])).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":"Rome"}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
    });
  });

  describe('finish reasons', () => {
    it.each([
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['model_context_window_exceeded', 'length'],
      ['tool_use', 'tool_calls'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'other'],
      ['something_new', 'other'],
    ])('normalizes %s to %s, keeping the raw value', (raw, reason) => {
      const { events } = read([messageStart(), messageDelta(raw), MESSAGE_STOP]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason, raw });
    });

    it('normalizes end_turn to tool_calls when calls were made', () => {
      const { events } = read([messageStart(), toolUse(0, 'a', 'f'), blockStop(0), messageDelta('end_turn'), MESSAGE_STOP]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'end_turn' });
    });

    it('finishes once: a message_delta without a stop_reason makes none, a second stop_reason is ignored unless strict', () => {
      const frames = [
        messageStart(),
        messageDelta(null, { output_tokens: 2 }),
        messageDelta('end_turn'),
        messageDelta('max_tokens'),
        MESSAGE_STOP,
      ];
      expect(read(frames).events.filter((e) => e.type === 'finish')).toEqual([
        { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' },
      ]);
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 4: a second stop_reason');
    });
  });

  describe('usage', () => {
    it('reads message_start usage, then lets message_delta totals overwrite, summing totalTokens from the latest counts', () => {
      const { events } = read([
        messageStart('msg_1', { input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 1 }),
        messageDelta('end_turn', { output_tokens: 20 }),
        MESSAGE_STOP,
      ]);
      // All input: 10 uncached + 4 read from the cache + 2 written to it.
      expect(events.filter((e) => e.type === 'usage')).toEqual([
        {
          type: 'usage',
          usage: { promptTokens: 16, completionTokens: 1, totalTokens: 17, cachedPromptTokens: 4, cacheWritePromptTokens: 2 },
        },
        { type: 'usage', usage: { promptTokens: null, completionTokens: 20, totalTokens: 36 } },
      ]);
      const { completion } = assembleText(
        [
          messageStart('msg_1', { input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 1 }),
          messageDelta('end_turn', { output_tokens: 20 }),
          MESSAGE_STOP,
        ]
          .map((f) => `data: ${f.data}\n\n`)
          .join(''),
        anthropic,
      );
      expect(completion?.usage).toEqual({ promptTokens: 14, completionTokens: 20, totalTokens: 34, cachedPromptTokens: 4 });
    });

    it("takes a gateway's real input_tokens from message_delta over the 0 it sent at the start", () => {
      const { completion } = assembleText(
        [
          messageStart('msg_1', { input_tokens: 0, output_tokens: 0 }),
          messageDelta('end_turn', { input_tokens: 25, output_tokens: 5 }),
          MESSAGE_STOP,
        ]
          .map((f) => `data: ${f.data}\n\n`)
          .join(''),
        anthropic,
      );
      expect(completion?.usage).toEqual({ promptTokens: 25, completionTokens: 5, totalTokens: 30 });
    });

    it('makes no usage event for a usage object without counts, or for usage: null', () => {
      const { events } = read([
        messageStart('msg_1', { service_tier: 'standard' }),
        messageDelta('end_turn'),
        named({ type: 'message_delta', delta: {}, usage: null }),
        MESSAGE_STOP,
      ]);
      expect(events.some((e) => e.type === 'usage')).toBe(false);
    });
  });

  describe('message_start', () => {
    it('emits start once, and ignores a duplicate message_start with the same id', () => {
      const { events } = read([messageStart(), messageStart(), messageDelta('end_turn'), MESSAGE_STOP]);
      expect(events.filter((e) => e.type === 'start')).toEqual([START]);
      expect(events.filter((e) => e.type === 'usage')).toEqual([START_USAGE]);
    });

    it('is a ProtocolError for a second message_start with another id (two generations spliced together)', () => {
      const { error } = read([messageStart('msg_1'), messageStart('msg_2')]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 2: a second message_start with another id ("msg_2", was "msg_1")');
    });

    it('tolerates blocks before message_start (no start event), unless strict', () => {
      const frames = [blockStart(0, { type: 'text', text: '' }), textDelta(0, 'x'), blockStop(0), messageDelta('end_turn'), MESSAGE_STOP];
      expect(read(frames)).toEqual({
        events: [
          { type: 'content', choice: 0, text: 'x' },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' },
          { type: 'provider-metadata', provider: 'anthropic', fields: { stop_sequence: null } },
          { type: 'done' },
        ],
      });
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 1: content_block_start arrived before message_start');
    });
  });

  describe('the end of the stream', () => {
    it('ignores frames after message_stop (a gateway [DONE]), unless strict', () => {
      const frames = [messageStart(), messageDelta('end_turn'), MESSAGE_STOP, frame('[DONE]'), textDelta(0, 'late')];
      expect(read(frames).error).toBeUndefined();
      expect(read(frames).events.at(-1)).toEqual({ type: 'done' });
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 4: a frame arrived after message_stop');
    });

    it('skips a [DONE] before message_stop, so the missing message_stop is what fails; strict rejects the [DONE]', () => {
      const frames = [messageStart(), messageDelta('end_turn'), frame('[DONE]')];
      const { error } = read(frames);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without message_stop after 3 frames');
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 3: [DONE] is not part of the Anthropic stream');
    });

    it('is a ProtocolError for message_stop before any stop_reason', () => {
      const { error } = read([messageStart(), MESSAGE_STOP]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 2: message_stop arrived before any stop_reason');
    });

    it('closes a block left open at message_delta (its call closes at the finish), unless strict', () => {
      const frames = [messageStart(), toolUse(0, 'a', 'f'), jsonDelta(0, '{}'), messageDelta('tool_use'), MESSAGE_STOP];
      expect(read(frames).error).toBeUndefined();
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 4: message_delta arrived while a content block was open');
    });
  });

  describe('errors', () => {
    it.each([
      [
        'event: error with the Anthropic body',
        frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error'),
        'Overloaded',
        'overloaded_error',
        undefined,
      ],
      [
        'a data-only {"type":"error"} (the event: line dropped)',
        frame({ type: 'error', error: { type: 'api_error', message: 'Internal' } }),
        'Internal',
        'api_error',
        undefined,
      ],
      [
        'an OpenAI-style {"error":{...}} from a gateway',
        frame({ error: { message: 'rate limited', type: 'rate_limit_error', code: 429 } }),
        'rate limited',
        'rate_limit_error',
        429,
      ],
    ])('is a ProviderError for %s, with message, type and code', (_name, errorFrame, message, type, code) => {
      const { error, events } = read([messageStart(), errorFrame, messageDelta('end_turn'), MESSAGE_STOP]);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toContain(`at frame 2: ${message} (${type}`);
      expect(error).toMatchObject({ type, code, position: { event: 2 } });
      expect(events).toEqual([START, START_USAGE]);
    });

    it('is a ProviderError for an error before message_start (overload as the first event)', () => {
      const { error } = assembleText(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        anthropic,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        type: 'overloaded_error',
        message: 'the provider reported an error at frame 1: Overloaded (overloaded_error)',
      });
    });

    it('keeps what arrived before a mid-stream error as the partial', () => {
      const text = readFileSync(EXAMPLE, 'utf8');
      const cut = text.slice(0, text.indexOf('event: content_block_start\ndata: {"type":"content_block_start","index":3'));
      const { error } = assembleText(
        cut + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        anthropic,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        partial: {
          id: 'msg_01HCd8Wq3kZr5vTn7yPbX2aL',
          content: 'Let me check both cities.',
          reasoning: REASONING,
          toolCalls: [{ ...PARIS, complete: true }],
          finishReason: null,
        },
      });
    });

    it.each([
      ['data that is not JSON', [frame('{"type":')], 'frame 2: data is not JSON: "{\\"type\\":"'],
      ['a type that is a number', [frame({ type: 5 })], 'frame 2: type is 5'],
      ['a payload without a type on a data-only frame', [frame({ index: 0 })], 'frame 2: the payload has no type'],
      [
        'a delta for a block that never started',
        [textDelta(4, 'x')],
        'frame 2: content_block_delta for content block 4, which never started',
      ],
      [
        'a delta after its block stopped',
        [blockStart(0, { type: 'text' }), blockStop(0), textDelta(0, 'x')],
        'frame 4: content_block_delta for content block 0, which had stopped',
      ],
      ['a stop for a block that never started', [blockStop(1)], 'frame 2: content_block_stop for content block 1, which never started'],
      [
        'a block started twice',
        [blockStart(0, { type: 'text' }), blockStart(0, { type: 'text' })],
        'frame 3: content block 0 started twice',
      ],
      [
        'a block index that is a string',
        [blockStart('0' as unknown as number, { type: 'text' })],
        'frame 2: content_block_start.index is "0", not a block index',
      ],
      [
        'content_block that is not an object',
        [named({ type: 'content_block_start', index: 0, content_block: 'text' })],
        'frame 2: content_block_start.content_block is not an object',
      ],
      [
        'a text_delta whose text is a number',
        [blockStart(0, { type: 'text' }), blockDelta(0, { type: 'text_delta', text: 1 })],
        'frame 3: content block 0 text_delta.text is 1, not text',
      ],
      [
        'partial_json that is an object',
        [toolUse(0, 'a', 'f'), blockDelta(0, { type: 'input_json_delta', partial_json: {} })],
        'frame 3: content block 0 input_json_delta.partial_json is an object, not text',
      ],
      [
        'an input_json_delta in a text block',
        [blockStart(0, { type: 'text' }), jsonDelta(0, '{}')],
        'frame 3: input_json_delta in content block 0, a text block',
      ],
      [
        'a tool_use block without an id',
        [blockStart(0, { type: 'tool_use', name: 'f', input: {} })],
        'frame 2: content block 0 (tool_use) has no id',
      ],
      [
        'a tool_use block without a name',
        [blockStart(0, { type: 'tool_use', id: 'a', input: {} })],
        'frame 2: content block 0 (tool_use) has no name',
      ],
      ['a message_start without a message', [named({ type: 'message_start' })], 'frame 2: message_start.message is not an object'],
      [
        'a stop_reason that is a number',
        [named({ type: 'message_delta', delta: { stop_reason: 3 } })],
        'frame 2: message_delta.delta.stop_reason is 3',
      ],
      [
        'output_tokens that is a string',
        [named({ type: 'message_delta', delta: {}, usage: { output_tokens: '5' } })],
        'frame 2: message_delta.usage.output_tokens is "5", not a count',
      ],
    ])('is a ProtocolError for %s', (_name, frames, message) => {
      const { error } = read([messageStart(), ...frames, messageDelta('end_turn'), MESSAGE_STOP]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(message);
    });
  });

  describe('truncation', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const upTo = (marker: string) => text.slice(0, text.indexOf(marker));
    const tokyoArgs = '"partial_json":"{\\"city\\": \\"Tokyo\\", "';

    it.each([
      ['mid-line, inside the tool arguments', upTo(tokyoArgs) + '"partial_json":"{\\"city\\": \\"To', ''],
      ['mid-event (a data line without its blank line)', upTo(tokyoArgs) + tokyoArgs + '}}\n', '{"city": "Tokyo", '],
      [
        'between events, the call never closed',
        upTo('event: content_block_stop\ndata: {"type":"content_block_stop","index":3}'),
        '{"city": "Tokyo", "unit": "celsius"}',
      ],
    ])('is a StreamClosedEarlyError %s, with the partial', (_name, stream, tokyoSoFar) => {
      for (const chunkSize of [1, 5, 100_000]) {
        const { error } = assembleText(stream, anthropic, { chunkSize });
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect(error).toMatchObject({
          partial: {
            id: 'msg_01HCd8Wq3kZr5vTn7yPbX2aL',
            content: 'Let me check both cities.',
            reasoning: REASONING,
            finishReason: null,
            toolCalls: [
              { ...PARIS, complete: true },
              { index: 1, id: TOKYO.id, name: 'get_weather', arguments: tokyoSoFar, complete: false },
            ],
          },
        });
      }
    });

    it('is a StreamClosedEarlyError before message_stop, even after the finish', () => {
      const { error } = assembleText(upTo('event: message_stop'), anthropic);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without message_stop after 24 frames');
      expect(error).toMatchObject({ partial: { finishReason: 'tool_calls', toolCalls: [{ complete: true }, { complete: true }] } });
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events and completes after message_stop', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-m-b-t-s-d----e---|', {
          m: messageStart(),
          b: blockStart(0, { type: 'text', text: '' }),
          t: textDelta(0, 'Hi'),
          s: blockStop(0),
          d: messageDelta('end_turn', { output_tokens: 3 }),
          e: MESSAGE_STOP,
        });
        expectObservable(source.pipe(assembleChunks({ dialect: anthropic }))).toBe('-(mu)t---(fpv)e---|', {
          m: START,
          u: START_USAGE,
          t: { type: 'content', choice: 0, text: 'Hi' },
          f: { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' },
          p: { type: 'provider-metadata', provider: 'anthropic', fields: { stop_sequence: null } },
          v: { type: 'usage', usage: { promptTokens: null, completionTokens: 3, totalTokens: 13 } },
          e: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^-----------------!');
      });
    });

    it('keeps interleaved fragments of two tool_use blocks apart', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<SseFrame>('-a-b-c-d-|', {
          a: toolUse(1, 'p', 'f'),
          b: toolUse(2, 'q', 'g'),
          c: jsonDelta(2, '{"y":'),
          d: jsonDelta(1, '{"x":'),
        });
        const error = new StreamClosedEarlyError('the stream ended without message_stop after 4 frames');
        expectObservable(source.pipe(assembleChunks({ dialect: anthropic }))).toBe(
          '-a-b-c-d-#',
          {
            a: { type: 'tool-call-delta', choice: 0, index: 0, id: 'p', name: 'f', arguments: '' },
            b: { type: 'tool-call-delta', choice: 0, index: 1, id: 'q', name: 'g', arguments: '' },
            c: { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"y":' },
            d: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"x":' },
          },
          error,
        );
      });
    });

    it('errors with ProviderError at an error event and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-m----e--t--|', {
          m: messageStart(),
          e: frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error'),
          t: textDelta(0, 'never'),
        });
        const error = new ProviderError('the provider reported an error at frame 2: Overloaded (overloaded_error)');
        expectObservable(source.pipe(assembleChunks({ dialect: anthropic }))).toBe('-(mu)-#', { m: START, u: START_USAGE }, error);
        expectSubscriptions(source.subscriptions).toBe('^-----!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes without message_stop', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-m---d-----|', { m: messageStart(), d: messageDelta('end_turn') });
        const error = new StreamClosedEarlyError('the stream ended without message_stop after 2 frames');
        expectObservable(source.pipe(assembleChunks({ dialect: anthropic }))).toBe(
          '-(mu)(dp)--#',
          {
            m: START,
            u: START_USAGE,
            d: { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' },
            p: { type: 'provider-metadata', provider: 'anthropic', fields: { stop_sequence: null } },
          },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^----------!');
      });
    });
  });
});
