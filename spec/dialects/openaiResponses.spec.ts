import { readFileSync } from 'fs';
import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectOptions } from '../../src/dialects/Dialect';
import { OpenAiResponsesParser, openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { runSync } from '../support/collect';
import { assembleBytes, assembleText, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame } from '../support/frames';

// The example stream of this dialect, byte for byte (marbles/README.md says where it came from).
const EXAMPLE = marbleFile('dialects/openai-responses.sse');

const RESP = 'resp_0a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d4e5f6789';
const MODEL = 'o4-mini-2025-04-16';
const PARIS_ARGS = '{"city":"Paris","unit":"celsius"}';
const TOKYO_ARGS = '{"city":"Tokyo","unit":"celsius"}';
const REASONING = "**Planning weather lookups**\n\nI'll call get_weather for Paris and Tokyo.";

/**
 * What the example stream's response object says that no field of a completion names: how the reply
 * was asked for (its settings, tools and metadata), the same in all three lifecycle events.
 */
const ENVELOPE = {
  created_at: 1767225600,
  background: false,
  instructions: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: 'medium', summary: 'auto' },
  service_tier: 'default',
  store: true,
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
      strict: true,
    },
  ],
  top_p: 1,
  truncation: 'disabled',
  user: null,
  metadata: {},
};

/** The example stream's completion, read off the file by hand. */
const EXAMPLE_COMPLETION: Completion = {
  id: RESP,
  model: MODEL,
  content: 'Let me check both cities.',
  reasoning: REASONING,
  refusal: null,
  toolCalls: [
    { index: 0, id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'get_weather', arguments: PARIS_ARGS, args: { city: 'Paris', unit: 'celsius' } },
    { index: 1, id: 'call_Q6pW65MUgW9vF59BmItYGos3', name: 'get_weather', arguments: TOKYO_ARGS, args: { city: 'Tokyo', unit: 'celsius' } },
  ],
  finishReason: 'tool_calls',
  rawFinishReason: 'completed',
  usage: { promptTokens: 96, completionTokens: 142, totalTokens: 238, cachedPromptTokens: 0, reasoningTokens: 64 },
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'Let me check both cities.',
      reasoning: REASONING,
      refusal: null,
      toolCalls: [
        {
          index: 0,
          id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
          name: 'get_weather',
          arguments: PARIS_ARGS,
          args: { city: 'Paris', unit: 'celsius' },
        },
        {
          index: 1,
          id: 'call_Q6pW65MUgW9vF59BmItYGos3',
          name: 'get_weather',
          arguments: TOKYO_ARGS,
          args: { city: 'Tokyo', unit: 'celsius' },
        },
      ],
      finishReason: 'tool_calls',
      rawFinishReason: 'completed',
    },
  ],
  providerMetadata: { openai: ENVELOPE },
};

/**
 * The example stream's events, read off the file by hand: the response object's fields that no field
 * names are kept once, at response.created (the later lifecycle events repeat them).
 */
const EXAMPLE_EVENTS: ChatEvent[] = [
  { type: 'start', id: RESP, model: MODEL },
  { type: 'provider-metadata', provider: 'openai', fields: ENVELOPE },
  { type: 'reasoning', choice: 0, text: '**Planning weather lookups**\n\n' },
  { type: 'reasoning', choice: 0, text: "I'll call get_weather for Paris and Tokyo." },
  { type: 'content', choice: 0, text: 'Let me' },
  { type: 'content', choice: 0, text: ' check both' },
  { type: 'content', choice: 0, text: ' cities.' },
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'get_weather', arguments: '' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":"' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'Paris","unit":"' },
  { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'celsius"}' },
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_Q6pW65MUgW9vF59BmItYGos3', name: 'get_weather', arguments: '' },
  { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"city":"Tokyo",' },
  { type: 'tool-call-delta', choice: 0, index: 1, arguments: '"unit":"celsius"}' },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
  { type: 'usage', usage: { promptTokens: 96, completionTokens: 142, totalTokens: 238, cachedPromptTokens: 0, reasoningTokens: 64 } },
  { type: 'done' },
];

// ---- hand-built streams -------------------------------------------------------------------------

type Payload = Record<string, unknown>;

/** Numbers the payloads with sequence_number from 0, as OpenAI does. */
function numbered(payloads: Payload[]): Payload[] {
  return payloads.map((payload, i) => ({ ...payload, sequence_number: i }));
}

/** Named SSE events (`event:` = `data.type`), as the wire has them. */
function sse(payloads: Payload[]): string {
  return payloads.map((p) => `event: ${String(p['type'])}\ndata: ${JSON.stringify(p)}\n\n`).join('');
}

/** Frames as `sseFrames` would make them from {@link sse}. */
function framesOf(payloads: Payload[]): SseFrame[] {
  return payloads.map((p) => frame(p, String(p['type'])));
}

/** Runs payloads through the parser directly; returns the events and the error, if any. */
function read(payloads: Payload[], options?: DialectOptions): { events: ChatEvent[]; error?: unknown } {
  const events: ChatEvent[] = [];
  const parser = new OpenAiResponsesParser((event) => events.push(event), options);
  try {
    for (const f of framesOf(payloads)) parser.push(f);
    parser.end();
  } catch (error) {
    return { events, error };
  }
  return { events };
}

const created = (id = 'resp_1', model = 'gpt-test'): Payload => ({
  type: 'response.created',
  response: { id, object: 'response', status: 'in_progress', model, output: [], usage: null },
});
const completed = (usage: unknown = null): Payload => ({
  type: 'response.completed',
  response: { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-test', output: [], usage },
});
const incomplete = (details: unknown): Payload => ({
  type: 'response.incomplete',
  response: { id: 'resp_1', status: 'incomplete', incomplete_details: details, output: [], usage: null },
});
const textDelta = (delta: unknown, itemId = 'msg_1'): Payload => ({
  type: 'response.output_text.delta',
  item_id: itemId,
  output_index: 0,
  content_index: 0,
  delta,
  logprobs: [],
});
const summaryDelta = (delta: string, summaryIndex = 0, itemId = 'rs_1'): Payload => ({
  type: 'response.reasoning_summary_text.delta',
  item_id: itemId,
  output_index: 0,
  summary_index: summaryIndex,
  delta,
});
const callAdded = (itemId: string, outputIndex: number, callId: string, name: string, extra: Payload = {}): Payload => ({
  type: 'response.output_item.added',
  output_index: outputIndex,
  item: { id: itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: callId, name, ...extra },
});
const argsDelta = (itemId: string, outputIndex: number, delta: unknown): Payload => ({
  type: 'response.function_call_arguments.delta',
  item_id: itemId,
  output_index: outputIndex,
  delta,
});
const argsDone = (itemId: string, outputIndex: number, args: string, extra: Payload = {}): Payload => ({
  type: 'response.function_call_arguments.done',
  item_id: itemId,
  output_index: outputIndex,
  arguments: args,
  ...extra,
});
const callDone = (itemId: string, outputIndex: number, callId: string, name: string, args: string): Payload => ({
  type: 'response.output_item.done',
  output_index: outputIndex,
  item: { id: itemId, type: 'function_call', status: 'completed', arguments: args, call_id: callId, name },
});

const start: ChatEvent = { type: 'start', id: 'resp_1', model: 'gpt-test' };
const end: ChatEvent[] = [{ type: 'finish', choice: 0, reason: 'stop', raw: 'completed' }, { type: 'done' }];
const only = (events: ChatEvent[], type: ChatEvent['type']) => events.filter((e) => e.type === type);

/** The interleaved two-call stream: both calls open, their fragments alternate, they close in reverse. */
const INTERLEAVED = numbered([
  created(),
  callAdded('fc_a', 0, 'call_a', 'get_weather'),
  callAdded('fc_b', 1, 'call_b', 'get_time'),
  argsDelta('fc_a', 0, '{"city":'),
  argsDelta('fc_b', 1, '{"zone":'),
  argsDelta('fc_a', 0, '"Paris"}'),
  argsDelta('fc_b', 1, '"JST"}'),
  callDone('fc_b', 1, 'call_b', 'get_time', '{"zone":"JST"}'),
  callDone('fc_a', 0, 'call_a', 'get_weather', '{"city":"Paris"}'),
  completed({ input_tokens: 10, output_tokens: 20, total_tokens: 30 }),
]);

/** A nested `error` event then `response.failed`, as the Responses API sends a failure, built by hand. */
const QUOTA_MESSAGE = 'You exceeded your current quota, please check your plan and billing details.';
const QUOTA_STREAM =
  'event: response.created\n' +
  'data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_err",' +
  '"object":"response","status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}\n\n' +
  'event: response.in_progress\n' +
  'data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_err",' +
  '"object":"response","status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}\n\n' +
  'event: error\n' +
  `data: {"type":"error","sequence_number":2,"error":{"type":"insufficient_quota",` +
  `"code":"insufficient_quota","message":"${QUOTA_MESSAGE}","param":null}}\n\n` +
  'event: response.failed\n' +
  `data: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_err","object":"response",` +
  `"status":"failed","error":{"code":"insufficient_quota","message":"${QUOTA_MESSAGE}"},"output":[],"usage":null}}\n\n`;

describe('openai-responses dialect', () => {
  exampleStreamSuite({
    dialect: openaiResponses,
    file: 'dialects/openai-responses.sse',
    framing: 'sse',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
    more: () => {
      it('dispatches on data.type, so a proxy that drops the event: lines loses nothing', () => {
        const text = readFileSync(EXAMPLE, 'utf8');
        const dataOnly = text.replace(/^event: .*\n/gm, '');
        expect(dataOnly).not.toContain('event:');
        expect(assembleText(dataOnly, openaiResponses)).toEqual({ events: EXAMPLE_EVENTS, completion: EXAMPLE_COMPLETION });
      });

      it('passes under strict (types present, sequence numbers 0, 1, 2, ...)', () => {
        const bytes = new Uint8Array(readFileSync(EXAMPLE));
        expect(assembleBytes(bytes, openaiResponses, { dialect: { strict: true } }).completion).toEqual(EXAMPLE_COMPLETION);
      });
    },
  });

  describe('event order', () => {
    it('is start at response.created, the deltas as they come, then finish, usage, done at the terminal event', () => {
      const { events, error } = read(
        numbered([
          created(),
          { type: 'response.in_progress', response: { id: 'resp_1', status: 'in_progress', model: 'gpt-test' } },
          summaryDelta('Think.'),
          textDelta('Hi'),
          completed({ input_tokens: 3, output_tokens: 4, total_tokens: 7 }),
        ]),
      );
      expect(error).toBeUndefined();
      expect(events).toEqual([
        start,
        { type: 'reasoning', choice: 0, text: 'Think.' },
        { type: 'content', choice: 0, text: 'Hi' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
        { type: 'usage', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } },
        { type: 'done' },
      ]);
    });

    it('emits start once, from the first response object that names an id, when response.created is missing', () => {
      const { events } = read([
        { type: 'response.in_progress', response: { id: '', model: 'x' } },
        { type: 'response.in_progress', response: { id: 'resp_late', model: 'gpt-late' } },
        textDelta('a'),
        completed(),
      ]);
      expect(only(events, 'start')).toEqual([{ type: 'start', id: 'resp_late', model: 'gpt-late' }]);
      expect(events[0]).toEqual({ type: 'start', id: 'resp_late', model: 'gpt-late' });
    });

    it('gives model null when the response names none', () => {
      const { events } = read([{ type: 'response.created', response: { id: 'resp_9' } }, completed()]);
      expect(events[0]).toEqual({ type: 'start', id: 'resp_9', model: null });
    });

    it('ignores every frame after the terminal event', () => {
      const { events, error } = read([created(), completed(), textDelta('late'), { type: 'error', message: 'late', code: 'x' }]);
      expect(error).toBeUndefined();
      expect(events).toEqual([start, ...end]);
    });
  });

  describe('text', () => {
    it('maps output_text.delta to content, refusal.delta to refusal, and both reasoning deltas to reasoning', () => {
      const { events } = read([
        created(),
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'raw thought' },
        textDelta('answer'),
        { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'I cannot' },
        completed(),
      ]);
      expect(events).toEqual([
        start,
        { type: 'reasoning', choice: 0, text: 'raw thought' },
        { type: 'content', choice: 0, text: 'answer' },
        { type: 'refusal', choice: 0, text: 'I cannot' },
        ...end,
      ]);
    });

    it('makes no event for an empty delta', () => {
      const { events } = read([
        created(),
        textDelta(''),
        summaryDelta(''),
        { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: '' },
        callAdded('fc_1', 0, 'call_1', 'f'),
        argsDelta('fc_1', 0, ''),
        completed(),
      ]);
      expect(events).toEqual([
        start,
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'f', arguments: '' },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
        { type: 'done' },
      ]);
    });

    it('does not append the full text that the .done events repeat', () => {
      const { events } = read([
        created(),
        textDelta('Hello'),
        { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello' },
        {
          type: 'response.content_part.done',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', text: 'Hello' },
        },
        summaryDelta('Plan'),
        { type: 'response.reasoning_summary_text.done', item_id: 'rs_1', output_index: 0, summary_index: 0, text: 'Plan' },
        { type: 'response.reasoning_text.done', item_id: 'rs_1', output_index: 0, content_index: 0, text: 'Plan' },
        { type: 'response.refusal.done', item_id: 'msg_1', output_index: 0, content_index: 0, refusal: 'No' },
        completed(),
      ]);
      expect(events).toEqual([
        start,
        { type: 'content', choice: 0, text: 'Hello' },
        { type: 'reasoning', choice: 0, text: 'Plan' },
        ...end,
      ]);
    });

    it('joins a new summary part to the earlier reasoning with a blank line, and nothing within a part', () => {
      const result = assembleText(
        sse(
          numbered([
            created(),
            {
              type: 'response.reasoning_summary_part.added',
              item_id: 'rs_1',
              output_index: 0,
              summary_index: 0,
              part: { type: 'summary_text', text: '' },
            },
            summaryDelta('**One**', 0),
            summaryDelta(' first.', 0),
            {
              type: 'response.reasoning_summary_part.added',
              item_id: 'rs_1',
              output_index: 0,
              summary_index: 1,
              part: { type: 'summary_text', text: '' },
            },
            summaryDelta('**Two**', 1),
            summaryDelta(' second.', 1),
            completed(),
          ]),
        ),
        openaiResponses,
      );
      expect(result.completion?.reasoning).toBe('**One** first.\n\n**Two** second.');
      expect(only(result.events, 'reasoning').map((e) => (e as { text: string }).text)).toEqual([
        '**One**',
        ' first.',
        '\n\n**Two**',
        ' second.',
      ]);
    });

    it('separates the reasoning of two reasoning items the same way, but not text parts of one item', () => {
      const { events } = read([
        created(),
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'a' },
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'b' },
        { type: 'response.reasoning_text.delta', item_id: 'rs_2', output_index: 2, content_index: 0, delta: 'c' },
        completed(),
      ]);
      expect(only(events, 'reasoning').map((e) => (e as { text: string }).text)).toEqual(['a', 'b', '\n\nc']);
    });

    it.each([
      ['output_text.delta', textDelta(5)],
      ['reasoning_summary_text.delta', { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', summary_index: 0, delta: null }],
      ['refusal.delta', { type: 'response.refusal.delta', item_id: 'm', output_index: 0 }],
    ])('is a ProtocolError for a %s whose delta is not text', (_name, payload) => {
      const { error } = read([created(), payload, completed()]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).position).toEqual({ event: 2 });
    });
  });

  describe('tool calls', () => {
    it('opens a call at output_item.added with call_id and name, sends fragments, closes it at output_item.done', () => {
      const { events } = read(
        numbered([
          created(),
          callAdded('fc_1', 0, 'call_1', 'lookup'),
          argsDelta('fc_1', 0, '{"q":'),
          argsDelta('fc_1', 0, '1}'),
          argsDone('fc_1', 0, '{"q":1}', { name: 'lookup' }),
          callDone('fc_1', 0, 'call_1', 'lookup', '{"q":1}'),
          completed(),
        ]),
      );
      expect(events).toEqual([
        start,
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'lookup', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"q":' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '1}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
        { type: 'done' },
      ]);
    });

    it('takes the whole arguments from function_call_arguments.done when no delta came', () => {
      const result = assembleText(
        sse(
          numbered([
            created(),
            callAdded('fc_1', 0, 'call_1', 'lookup'),
            argsDone('fc_1', 0, '{"q":"all at once"}'),
            callDone('fc_1', 0, 'call_1', 'lookup', '{"q":"all at once"}'),
            completed(),
          ]),
        ),
        openaiResponses,
      );
      expect(only(result.events, 'tool-call-delta')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'lookup', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"q":"all at once"}' },
      ]);
      expect(result.completion?.toolCalls).toEqual([
        { index: 0, id: 'call_1', name: 'lookup', arguments: '{"q":"all at once"}', args: { q: 'all at once' } },
      ]);
    });

    it('takes the whole arguments from the finished item when neither deltas nor .done came', () => {
      const result = assembleText(
        sse(numbered([created(), callAdded('fc_1', 0, 'call_1', 'f'), callDone('fc_1', 0, 'call_1', 'f', '{"a":2}'), completed()])),
        openaiResponses,
      );
      expect(result.completion?.toolCalls).toEqual([{ index: 0, id: 'call_1', name: 'f', arguments: '{"a":2}', args: { a: 2 } }]);
    });

    it('opens a call from its output_item.done when its output_item.added never came', () => {
      const { events } = read([created(), callDone('fc_1', 3, 'call_1', 'f', '{}'), completed()]);
      expect(events.slice(1, 3)).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
    });

    it('takes the name from function_call_arguments.done when the added item had none', () => {
      const { events } = read([
        created(),
        callAdded('fc_1', 0, 'call_1', ''),
        argsDelta('fc_1', 0, '{}'),
        argsDone('fc_1', 0, '{}', { name: 'late_name' }),
        completed(),
      ]);
      expect(only(events, 'tool-call-delta')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
        { type: 'tool-call-delta', choice: 0, index: 0, name: 'late_name', arguments: '' },
      ]);
    });

    it('reads custom_tool_call items and custom_tool_call_input deltas the same way, every fragment marked custom', () => {
      const { events } = read([
        created(),
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_c', name: 'run_sql', input: '' },
        },
        { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: '"SELECT ' },
        { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: '1"' },
        { type: 'response.custom_tool_call_input.done', item_id: 'ctc_1', output_index: 0, input: '"SELECT 1"' },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_c', name: 'run_sql', input: '"SELECT 1"' },
        },
        completed(),
      ]);
      expect(events.slice(1)).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_c', name: 'run_sql', arguments: '', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"SELECT ', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '1"', kind: 'custom' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
        { type: 'done' },
      ]);
    });

    it('serializes arguments that arrive as an object', () => {
      const { events } = read([created(), callAdded('fc_1', 0, 'call_1', 'f', { arguments: { city: 'Paris' } }), completed()]);
      expect(events[1]).toEqual({ type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'f', arguments: '{"city":"Paris"}' });
    });

    it('makes no event for message items (their text streams in events of its own)', () => {
      const { events } = read([
        created(),
        { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_1', type: 'message', content: [] } },
        { type: 'response.output_item.done', output_index: 1, item: { id: 'msg_1', type: 'message', content: [] } },
        completed(),
      ]);
      expect(events).toEqual([start, ...end]);
    });

    it('matches fragments by output_index when they carry no item_id', () => {
      const { events } = read([
        created(),
        callAdded('fc_1', 4, 'call_1', 'f'),
        { type: 'response.function_call_arguments.delta', output_index: 4, delta: '{}' },
        completed(),
      ]);
      expect(events[2]).toEqual({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' });
    });

    it('matches fragments by item_id when the server sends no output_index (llama.cpp)', () => {
      const { events, error } = read([
        created(),
        { type: 'response.output_item.added', item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' } },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', delta: '{}' },
        { type: 'response.output_item.done', item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' } },
        completed(),
      ]);
      expect(error).toBeUndefined();
      expect(events.slice(2, 4)).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
    });

    it('is a ProtocolError for a fragment of an unknown item_id', () => {
      const { error } = read([created(), callAdded('fc_1', 0, 'call_1', 'f'), argsDelta('fc_zz', 0, '{}')]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 3: response.function_call_arguments.delta for item "fc_zz", which is no open tool call');
    });

    it('is a ProtocolError for a fragment of a call whose output_item.done already came', () => {
      const { error } = read([
        created(),
        callAdded('fc_1', 0, 'call_1', 'f'),
        callDone('fc_1', 0, 'call_1', 'f', '{}'),
        argsDelta('fc_1', 0, '{}'),
      ]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(
        'frame 4: response.function_call_arguments.delta for item "fc_1" after its response.output_item.done',
      );
    });

    it.each([
      ['an item that is not an object', { type: 'response.output_item.added', output_index: 0, item: 'fc' }],
      ['an item id that is a number', { type: 'response.output_item.added', output_index: 0, item: { id: 7, type: 'function_call' } }],
      ['a call_id that is a number', callAdded('fc_1', 0, 7 as unknown as string, 'f')],
      ['a negative output_index', callAdded('fc_1', -1, 'call_1', 'f')],
      [
        'a call item with no id, call_id or output_index',
        { type: 'response.output_item.added', item: { type: 'function_call', name: 'f' } },
      ],
      ['arguments that are a number', callAdded('fc_1', 0, 'call_1', 'f', { arguments: 5 })],
      ['an argument delta that is not text', argsDelta('fc_0', 0, { a: 1 })],
      ['an argument delta naming no item', { type: 'response.function_call_arguments.delta', delta: '{}' }],
      [
        'encrypted_content that is a number',
        { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', encrypted_content: 1 } },
      ],
    ])('is a ProtocolError for %s', (_name, payload) => {
      const { error } = read([created(), callAdded('fc_0', 9, 'call_0', 'f'), payload, completed()]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).position).toEqual({ event: 3 });
    });

    it('is a ProtocolError for an item added twice', () => {
      const { error } = read([created(), callAdded('fc_1', 0, 'call_1', 'f'), callAdded('fc_1', 1, 'call_2', 'g')]);
      expect((error as Error).message).toBe('frame 3: item "fc_1" was added twice');
    });
  });

  describe('interleaved calls', () => {
    it('keys fragments by item_id, so two calls whose fragments interleave assemble whole', () => {
      const result = assembleText(sse(INTERLEAVED), openaiResponses);
      expect(result.completion).toEqual({
        id: 'resp_1',
        model: 'gpt-test',
        content: null,
        reasoning: null,
        refusal: null,
        toolCalls: [
          { index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } },
          { index: 1, id: 'call_b', name: 'get_time', arguments: '{"zone":"JST"}', args: { zone: 'JST' } },
        ],
        finishReason: 'tool_calls',
        rawFinishReason: 'completed',
        usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 },
        timings: null,
        reasoningTokens: 0,
        choices: [
          {
            index: 0,
            content: null,
            reasoning: null,
            refusal: null,
            toolCalls: [
              { index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } },
              { index: 1, id: 'call_b', name: 'get_time', arguments: '{"zone":"JST"}', args: { zone: 'JST' } },
            ],
            finishReason: 'tool_calls',
            rawFinishReason: 'completed',
          },
        ],
      });
      expect(result.events.slice(3, 9)).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"zone":' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"Paris"}' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: '"JST"}' },
        { type: 'tool-call-end', choice: 0, index: 1 },
        { type: 'tool-call-end', choice: 0, index: 0 },
      ]);
    });

    it('gives dense indices in order of appearance whatever the output_index', () => {
      const { events } = read([created(), callAdded('fc_x', 7, 'call_x', 'f'), callAdded('fc_y', 3, 'call_y', 'g'), completed()]);
      expect(only(events, 'tool-call-delta').map((e) => (e as { index: number }).index)).toEqual([0, 1]);
    });

    it('assembles the same at every chunk size', () => {
      const text = sse(INTERLEAVED);
      const whole = assembleText(text, openaiResponses);
      for (let chunkSize = 1; chunkSize <= 64; chunkSize++) {
        expect(assembleText(text, openaiResponses, { chunkSize })).toEqual(whole);
      }
    });
  });

  describe('reasoning signatures', () => {
    it('emits the encrypted_content of a finished reasoning item, not of the added one', () => {
      const result = assembleText(
        sse(
          numbered([
            created(),
            {
              type: 'response.output_item.added',
              output_index: 0,
              item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA-partial' },
            },
            summaryDelta('Hmm.'),
            {
              type: 'response.output_item.done',
              output_index: 0,
              item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA-whole' },
            },
            {
              type: 'response.output_item.done',
              output_index: 1,
              item: { id: 'rs_2', type: 'reasoning', summary: [], encrypted_content: null },
            },
            textDelta('Hi'),
            completed(),
          ]),
        ),
        openaiResponses,
      );
      expect(only(result.events, 'reasoning-signature')).toEqual([{ type: 'reasoning-signature', choice: 0, signature: 'gAAA-whole' }]);
      expect(result.completion).toMatchObject({ reasoning: 'Hmm.', content: 'Hi', reasoningSignatures: ['gAAA-whole'] });
      expect(result.completion?.choices[0]?.reasoningSignatures).toEqual(['gAAA-whole']);
    });
  });

  describe('finish reasons', () => {
    it('is stop, raw completed, for response.completed without calls', () => {
      expect(read([created(), textDelta('x'), completed()]).events).toContainEqual({
        type: 'finish',
        choice: 0,
        reason: 'stop',
        raw: 'completed',
      });
    });

    it('is tool_calls, raw completed, for response.completed after a function_call item', () => {
      const { events } = read([created(), callAdded('fc_1', 0, 'call_1', 'f'), completed()]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' });
    });

    it.each([
      [{ reason: 'max_output_tokens' }, 'length', 'max_output_tokens'],
      [{ reason: 'content_filter' }, 'content_filter', 'content_filter'],
      [{ reason: 'something_new' }, 'other', 'something_new'],
      [null, 'other', 'incomplete'],
    ])('is read from response.incomplete with incomplete_details %j: %s, raw %s', (details, reason, raw) => {
      const { events, error } = read([created(), textDelta('x'), incomplete(details)]);
      expect(error).toBeUndefined();
      expect(events.slice(-2)).toEqual([{ type: 'finish', choice: 0, reason, raw }, { type: 'done' }]);
    });

    it('is a ProtocolError for incomplete_details that is not an object', () => {
      expect(read([created(), incomplete('max_output_tokens')]).error).toBeInstanceOf(ProtocolError);
    });

    it('assembles a truncated reply as length, keeping the text', () => {
      const result = assembleText(
        sse(numbered([created(), textDelta('Once upon'), incomplete({ reason: 'max_output_tokens' })])),
        openaiResponses,
      );
      expect(result.completion).toMatchObject({ content: 'Once upon', finishReason: 'length', rawFinishReason: 'max_output_tokens' });
    });
  });

  describe('usage', () => {
    it('reads the terminal response.usage, with cached and reasoning token details', () => {
      const { events } = read([
        created(),
        completed({
          input_tokens: 50,
          input_tokens_details: { cached_tokens: 20 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 12 },
          total_tokens: 80,
        }),
      ]);
      expect(only(events, 'usage')).toEqual([
        { type: 'usage', usage: { promptTokens: 50, completionTokens: 30, totalTokens: 80, cachedPromptTokens: 20, reasoningTokens: 12 } },
      ]);
    });

    it('reads usage from response.incomplete too', () => {
      const payload = incomplete({ reason: 'max_output_tokens' });
      (payload['response'] as Payload)['usage'] = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
      expect(only(read([created(), payload]).events, 'usage')).toEqual([
        { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
      ]);
    });

    it('makes no usage event for usage null, or usage with no counts', () => {
      expect(only(read([created(), completed(null)]).events, 'usage')).toEqual([]);
      expect(only(read([created(), completed({})]).events, 'usage')).toEqual([]);
    });

    it('ignores the usage: null of the lifecycle events (usage comes only at the end)', () => {
      const { events } = read([created(), { type: 'response.in_progress', response: { id: 'resp_1', usage: null } }, completed()]);
      expect(events).toEqual([start, ...end]);
    });

    it('is a ProtocolError for usage that is not an object', () => {
      const { error, events } = read([created(), completed(12)]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(events).toEqual([start]);
    });
  });

  describe('unknown and ignored events', () => {
    it('ignores keepalive, lifecycle, content parts and unknown types, and keeps an unknown field where it arrived', () => {
      const noisy = read([
        { type: 'keepalive', sequence_number: 0 },
        created(),
        { type: 'response.queued', response: { id: 'resp_1', status: 'queued' } },
        { type: 'response.in_progress', response: { id: 'resp_1', status: 'in_progress' } },
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } },
        {
          type: 'response.content_part.added',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', text: '' },
        },
        { ...textDelta('Hi'), obfuscation: 'xYz', novel: { deep: [1] } },
        { type: 'keepalive' },
        { type: 'response.something_brand_new', delta: 42 },
        {
          type: 'response.content_part.done',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', text: 'Hi' },
        },
        completed(),
      ]);
      const plain = read([created(), textDelta('Hi'), completed()]);
      expect(noisy.error).toBeUndefined();
      expect(noisy.events.filter((event) => event.type !== 'provider-metadata')).toEqual(plain.events);
      expect(only(noisy.events, 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { novel: { deep: [1] } } },
      ]);
    });

    it('dispatches on the event name when a server omits data.type', () => {
      const events: ChatEvent[] = [];
      const withEvents = new OpenAiResponsesParser((e) => events.push(e));
      withEvents.push(frame({ response: { id: 'r' } }, 'response.created'));
      withEvents.push(frame({ item_id: 'm', delta: 'x' }, 'response.output_text.delta'));
      withEvents.push(frame({ response: { id: 'r' } }, 'response.completed'));
      withEvents.end();
      expect(events).toEqual([
        { type: 'start', id: 'r', model: null },
        { type: 'content', choice: 0, text: 'x' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
        { type: 'done' },
      ]);
    });
  });

  describe('strict', () => {
    it('is a ProtocolError for a gap in sequence_number', () => {
      const payloads = numbered([created(), textDelta('a'), completed()]);
      payloads[2] = { ...payloads[2], sequence_number: 3 };
      const { error } = read(payloads, { strict: true });
      expect((error as Error).message).toBe('frame 3: sequence_number is 3, expected 2');
      expect(read(payloads).error).toBeUndefined();
    });

    it('is a ProtocolError for a missing sequence_number or type', () => {
      expect(read([created(), completed()], { strict: true }).error).toBeInstanceOf(ProtocolError);
      const noType = new OpenAiResponsesParser(() => undefined, { strict: true });
      expect(() => noType.push(frame({ sequence_number: 0, response: { id: 'r' } }, 'response.created'))).toThrow(
        'frame 1: the event has no type',
      );
    });
  });

  describe('provider errors', () => {
    it('is a ProviderError for the nested error event (then response.failed), with the type, code and message', () => {
      const result = assembleText(QUOTA_STREAM, openaiResponses);
      expect(result.error).toBeInstanceOf(ProviderError);
      expect(result.error).toMatchObject({
        message: `the provider reported an error at frame 3: ${QUOTA_MESSAGE} (insufficient_quota, code insufficient_quota)`,
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        position: { event: 3 },
        partial: { id: 'resp_err', model: 'gpt-4.1', content: null, finished: false },
      });
    });

    it('is the same ProviderError at every chunk size', () => {
      for (const chunkSize of [1, 2, 3, 5, 8, 13, 64]) {
        expect((assembleText(QUOTA_STREAM, openaiResponses, { chunkSize }).error as ProviderError).code).toBe('insufficient_quota');
      }
    });

    it('is a ProviderError from response.error when response.failed comes without an error event', () => {
      const withoutErrorEvent = QUOTA_STREAM.replace(/event: error\n.*\n\n/, '');
      const result = assembleText(withoutErrorEvent, openaiResponses);
      expect(result.error).toBeInstanceOf(ProviderError);
      expect(result.error).toMatchObject({
        message: `the provider reported an error at frame 3: ${QUOTA_MESSAGE} (code insufficient_quota)`,
        code: 'insufficient_quota',
        type: undefined,
        partial: { id: 'resp_err' },
      });
    });

    it('is a ProviderError for the flat error event of the SDK types', () => {
      const { error, events } = read([
        created(),
        textDelta('par'),
        { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null, sequence_number: 2 },
      ]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider reported an error at frame 3: Slow down (error, code rate_limit_exceeded)',
        code: 'rate_limit_exceeded',
        position: { event: 3 },
      });
      expect(events).toEqual([start, { type: 'content', choice: 0, text: 'par' }]);
    });

    it('is a ProviderError for an event: error frame without a type, and for a gateway\'s bare {"error": ...}', () => {
      const parser = new OpenAiResponsesParser(() => undefined);
      expect(() => parser.push(frame({ message: 'upstream died' }, 'error'))).toThrow(ProviderError);
      const { error } = read([created(), { error: { message: 'bad gateway', type: 'server_error', code: 502 } } as Payload]);
      expect(error).toMatchObject({ type: 'server_error', code: 502 });
    });
  });

  describe('protocol errors', () => {
    it('is a ProtocolError for data that is not JSON, or not an object', () => {
      const parser = new OpenAiResponsesParser(() => undefined);
      expect(() => parser.push(frame('{"type":'))).toThrow('frame 1: data is not JSON: "{\\"type\\":"');
      expect(() => new OpenAiResponsesParser(() => undefined).push(frame('[1]'))).toThrow(ProtocolError);
      expect(() => new OpenAiResponsesParser(() => undefined).push(frame('"x"'))).toThrow(ProtocolError);
    });

    it.each([
      ['a type that is a number', { type: 3 }],
      ['a response that is a string', { type: 'response.created', response: 'resp_1' }],
    ])('is a ProtocolError for %s', (_name, payload) => {
      expect(read([payload]).error).toBeInstanceOf(ProtocolError);
    });

    it('is a ProtocolError at the end when no event carried a response id', () => {
      const { error } = read([textDelta('x'), { type: 'response.completed', response: { status: 'completed' } }]);
      expect((error as Error).message).toBe('frame 2: no event carried a response id');
    });
  });

  describe('truncation', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const cutAt = (marker: string, extra = 0) => {
      const at = text.indexOf(marker);
      if (at < 0) throw new Error(`marker not found: ${marker}`);
      return text.slice(0, at + extra);
    };

    it('mid-line: a StreamClosedEarlyError with what arrived before the cut', () => {
      const cut = cutAt('"delta":" check both"', 10);
      const { error } = assembleText(cut, openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toMatch(/mid-line/);
      expect(error).toMatchObject({
        partial: { id: RESP, model: MODEL, reasoning: REASONING, content: 'Let me', toolCalls: [], finishReason: null, finished: false },
      });
    });

    it('mid-event (an event: line whose data never came): a StreamClosedEarlyError from the dialect', () => {
      const cut = cutAt('event: response.output_item.done\ndata: {"type":"response.output_item.done","sequence_number":16', 33);
      expect(cut.endsWith('event: response.output_item.done\n')).toBe(true);
      const { error } = assembleText(cut, openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe(
        'the stream ended without response.completed, response.incomplete or response.failed after 16 frames',
      );
      expect(error).toMatchObject({ position: { event: 16 }, partial: { content: 'Let me check both cities.', toolCalls: [] } });
    });

    it('inside tool arguments: the call so far, incomplete', () => {
      const cut = cutAt(
        'event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta","sequence_number":20',
      );
      const { error } = assembleText(cut, openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({
        partial: {
          content: 'Let me check both cities.',
          toolCalls: [
            { index: 0, id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'get_weather', arguments: '{"city":"Paris","unit":"', complete: false },
          ],
          finished: false,
        },
      });
    });

    it('with a call never closed: the arguments whole but the call incomplete', () => {
      const cut = cutAt('event: response.output_item.done\ndata: {"type":"response.output_item.done","sequence_number":27');
      const { error } = assembleText(cut, openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({
        partial: {
          toolCalls: [
            {
              index: 0,
              id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
              arguments: PARIS_ARGS,
              args: { city: 'Paris', unit: 'celsius' },
              complete: true,
            },
            { index: 1, id: 'call_Q6pW65MUgW9vF59BmItYGos3', arguments: TOKYO_ARGS, complete: false },
          ],
        },
      });
    });

    it('before the terminal event: everything but the finish', () => {
      const cut = cutAt('event: response.completed');
      const { error, events } = assembleText(cut, openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(events).toEqual(EXAMPLE_EVENTS.slice(0, -3));
      expect(error).toMatchObject({
        partial: {
          id: RESP,
          reasoning: REASONING,
          content: 'Let me check both cities.',
          toolCalls: [
            { index: 0, complete: true },
            { index: 1, complete: true },
          ],
          finishReason: null,
          usage: null,
          finished: false,
        },
      });
    });

    it('with no frame at all', () => {
      const { error } = assembleText('', openaiResponses);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe(
        'the stream ended without response.completed, response.incomplete or response.failed after 0 frames',
      );
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    const [c, a, d, o, f] = framesOf([
      created(),
      callAdded('fc_1', 0, 'call_1', 'f'),
      argsDelta('fc_1', 0, '{}'),
      callDone('fc_1', 0, 'call_1', 'f', '{}'),
      completed(),
    ]);

    it('maps frames to events and completes after the terminal event', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-c-t-a-d-o-f---|', { c: c!, t: frame(textDelta('Hi')), a: a!, d: d!, o: o!, f: f! });
        expectObservable(source.pipe(assembleChunks({ dialect: openaiResponses }))).toBe('-s-x-y-z-e-(FD)|', {
          s: start,
          x: { type: 'content', choice: 0, text: 'Hi' },
          y: { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_1', name: 'f', arguments: '' },
          z: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
          e: { type: 'tool-call-end', choice: 0, index: 0 },
          F: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
          D: { type: 'done' },
        });
        expectSubscriptions(source.subscriptions).toBe('^--------------!');
      });
    });

    it('interleaves two calls by item_id', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const [cr, addA, addB, dA1, dB1, dA2, dB2, doneB, doneA, fin] = framesOf(INTERLEAVED);
        const source = cold<SseFrame>('cabpqrsBAf----|', {
          c: cr!,
          a: addA!,
          b: addB!,
          p: dA1!,
          q: dB1!,
          r: dA2!,
          s: dB2!,
          B: doneB!,
          A: doneA!,
          f: fin!,
        });
        expectObservable(source.pipe(assembleChunks({ dialect: openaiResponses }))).toBe('Sabpqrs10(FUD)|', {
          S: start,
          a: { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_a', name: 'get_weather', arguments: '' },
          b: { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_b', name: 'get_time', arguments: '' },
          p: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"city":' },
          q: { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"zone":' },
          r: { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"Paris"}' },
          s: { type: 'tool-call-delta', choice: 0, index: 1, arguments: '"JST"}' },
          1: { type: 'tool-call-end', choice: 0, index: 1 },
          0: { type: 'tool-call-end', choice: 0, index: 0 },
          F: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
          U: { type: 'usage', usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 } },
          D: { type: 'done' },
        });
      });
    });

    it('errors with ProviderError at an error event and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-c--e--f--|', {
          c: c!,
          e: frame({ type: 'error', error: { type: 'server_error', code: 'overloaded', message: 'try later' } }, 'error'),
          f: f!,
        });
        const error = new ProviderError('the provider reported an error at frame 2: try later (server_error, code overloaded)');
        expectObservable(source.pipe(assembleChunks({ dialect: openaiResponses }))).toBe('-s--#', { s: start }, error);
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('errors with ProtocolError at a fragment for an unknown item and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-c-d--f-|', { c: c!, d: d!, f: f! });
        const error = new ProtocolError('frame 2: response.function_call_arguments.delta for item "fc_1", which is no open tool call');
        expectObservable(source.pipe(assembleChunks({ dialect: openaiResponses }))).toBe('-s-#', { s: start }, error);
        expectSubscriptions(source.subscriptions).toBe('^--!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes before the terminal event', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-c-t---|', { c: c!, t: frame(textDelta('Hi')) });
        const error = new StreamClosedEarlyError(
          'the stream ended without response.completed, response.incomplete or response.failed after 2 frames',
        );
        expectObservable(source.pipe(assembleChunks({ dialect: openaiResponses }))).toBe(
          '-s-x---#',
          {
            s: start,
            x: { type: 'content', choice: 0, text: 'Hi' },
          },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('lets an early unsubscribe reach the source', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const live = hot<SseFrame>('-c--t--t--|', { c: c!, t: frame(textDelta('x')) });
        expectObservable(live.pipe(assembleChunks({ dialect: openaiResponses })), '^----!').toBe('-s--x', {
          s: start,
          x: { type: 'content', choice: 0, text: 'x' },
        });
        expectSubscriptions(live.subscriptions).toBe('^----!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<SseFrame>((subscriber) => {
        subscriber.next(c!);
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(frame(textDelta(String(i))));
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(assembleChunks({ dialect: openaiResponses }), take(3)));
      expect(outcome.values).toEqual([start, { type: 'content', choice: 0, text: '0' }, { type: 'content', choice: 0, text: '1' }]);
      expect(produced).toEqual([0, 1]);
    });
  });
});
