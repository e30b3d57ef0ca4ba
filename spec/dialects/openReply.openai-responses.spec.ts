import { SseFrame } from '../../src/frames/SseParser';
import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { autoDialect } from '../../src/dialects/auto';
import { Completion } from '../../src/types/events';
import { assembleText, CHUNK_SIZES, eventsOfType } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// What `openai-responses` does not map is kept where it arrived: the lifecycle events and the
// `response` object they repeat on the reply (the last value of each field), the text events, content
// parts and items other than calls on the choice, a call item and its fragments on the call. The
// streams are written from the documented events of the Responses API, with a field no reference
// names at every level.

type Payload = Record<string, unknown>;

/** Named events whose `type` repeats the name and whose `sequence_number` counts from 0, as OpenAI sends them. */
const framesOf = (payloads: readonly Payload[]): SseFrame[] =>
  payloads.map((payload, n) => frame({ type: payload['type'], sequence_number: n, ...payload }, String(payload['type'])));

const sse = (frames: readonly SseFrame[]): string => frames.map((f) => `event: ${f.event}\ndata: ${f.data}\n\n`).join('');

/** The response object as each lifecycle event repeats it, with only the fields the dialect reads. */
const response = (status: string, extra: Payload = {}): Payload => ({
  id: 'resp_1',
  object: 'response',
  status,
  model: 'gpt-5',
  output: [],
  usage: null,
  error: null,
  incomplete_details: null,
  ...extra,
});

const USAGE = { input_tokens: 5, output_tokens: 7, total_tokens: 12 };

describe('openai-responses keeps every field it does not map, where it arrived', () => {
  const SETTINGS = { created_at: 1767225600, temperature: 1, tools: [{ type: 'function', name: 'get_weather' }], metadata: {} };
  const MESSAGE = { id: 'msg_1', type: 'message', role: 'assistant', content: [] };
  const CALL = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '' };
  const payloads: Payload[] = [
    // The reply: a field beside the response, and the response's settings (`service_tier` is `auto`
    // until the terminal event names the tier that served the request).
    {
      type: 'response.created',
      trace_region: 'eu',
      response: response('in_progress', { ...SETTINGS, service_tier: 'auto', new_setting: 1 }),
    },
    { type: 'response.in_progress', response: response('in_progress', { ...SETTINGS, service_tier: 'auto', new_setting: 1 }) },
    // The choice: reasoning, a built-in tool's item, a message item, its part, a text delta.
    { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [], effort_used: 'low' } },
    {
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_1',
      output_index: 0,
      summary_index: 0,
      delta: 'Look it up.',
      obfuscation: 'aBc',
      summarizer: 'mini',
    },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Look it up.' }], effort_used: 'low' },
    },
    {
      type: 'response.output_item.done',
      output_index: 1,
      item: { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'Paris' }, cost_units: 2 },
    },
    {
      type: 'response.output_item.added',
      output_index: 2,
      lane: 'fast',
      item: { ...MESSAGE, status: 'in_progress', phase: 'final_answer' },
    },
    {
      type: 'response.content_part.added',
      item_id: 'msg_1',
      output_index: 2,
      content_index: 0,
      part_trace: 'p1',
      part: { type: 'output_text', annotations: [], logprobs: [], text: '', voice: 'calm' },
    },
    {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 2,
      content_index: 0,
      delta: 'Sunny.',
      logprobs: [],
      obfuscation: 'xY',
      confidence: 0.9,
    },
    {
      type: 'response.output_text.annotation.added',
      item_id: 'msg_1',
      output_index: 2,
      content_index: 0,
      annotation_index: 0,
      annotation: { type: 'url_citation', url: 'https://example.com/paris', title: 'Paris', start_index: 0, end_index: 6 },
      rank: 1,
    },
    { type: 'response.output_item.done', output_index: 2, item: { ...MESSAGE, status: 'completed', phase: 'final_answer' } },
    // The call: its item (added and done) and its fragments.
    { type: 'response.output_item.added', output_index: 3, item: { ...CALL, status: 'in_progress', priority: 'high' } },
    {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 3,
      delta: '{"city":"Paris"}',
      obfuscation: 'q',
      shard: 7,
    },
    { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 3, arguments: '{"city":"Paris"}' },
    {
      type: 'response.output_item.done',
      output_index: 3,
      queue: 'q1',
      item: { ...CALL, status: 'completed', arguments: '{"city":"Paris"}', priority: 'high' },
    },
    {
      type: 'response.completed',
      latency_ms: 812,
      response: response('completed', { ...SETTINGS, service_tier: 'default', new_setting: 2, usage: USAGE }),
    },
  ];
  const frames = framesOf(payloads);
  const REPLY = { openai: { trace_region: 'eu', ...SETTINGS, service_tier: 'default', new_setting: 2, latency_ms: 812 } };
  const CHOICE = {
    openai: {
      effort_used: 'low',
      summarizer: 'mini',
      cost_units: 2,
      lane: 'fast',
      phase: 'final_answer',
      part_trace: 'p1',
      voice: 'calm',
      confidence: 0.9,
      rank: 1,
    },
  };
  const ON_CALL = { openai: { priority: 'high', shard: 7, queue: 'q1' } };

  const expectKept = (completion: Completion | undefined): void => {
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls).toEqual([
      { index: 0, id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' }, providerMetadata: ON_CALL },
    ]);
  };

  it('on the reply, the choice and the call, read whole and at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(frames), openaiResponses, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expectKept(completion);
    }
  });

  it('under auto, which recognises the format', () => {
    const { completion, error } = complete(autoDialect, frames);
    expect(error).toBeUndefined();
    expectKept(completion);
  });

  it('reads the same events beside them as the stream without them', () => {
    const strip = ({
      trace_region: _t,
      lane: _l,
      part_trace: _p,
      confidence: _c,
      shard: _s,
      rank: _r,
      queue: _q,
      latency_ms: _m,
      summarizer: _z,
      ...rest
    }: Payload): Payload => rest;
    const plainPayloads = payloads.map(strip).map((payload) => {
      const item = payload['item'] as Payload | undefined;
      const part = payload['part'] as Payload | undefined;
      const body = payload['response'] as Payload | undefined;
      return {
        ...payload,
        ...(item === undefined ? {} : { item: withoutKeys(item, ['effort_used', 'cost_units', 'phase', 'priority']) }),
        ...(part === undefined ? {} : { part: withoutKeys(part, ['voice']) }),
        ...(body === undefined ? {} : { response: withoutKeys(body, [...Object.keys(SETTINGS), 'service_tier', 'new_setting']) }),
      };
    });
    const noisy = assembleText(sse(frames), openaiResponses);
    const plain = assembleText(sse(framesOf(plainPayloads)), openaiResponses);
    expect(eventsOfType(plain.events, 'provider-metadata')).toEqual([]);
    expect(noisy.events.filter((event) => event.type !== 'provider-metadata')).toEqual(plain.events);
  });

  it('on the tool-call event that groupToolCallsByIndex emits, as on the completion', () => {
    const events = groupedEvents(sse(frames), openaiResponses);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: {
          index: 0,
          id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
          args: { city: 'Paris' },
          providerMetadata: ON_CALL,
        },
      },
    ]);
  });

  it('keeps a custom tool call item and its input fragments on the call', () => {
    const custom = framesOf([
      { type: 'response.created', response: response('in_progress') },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'ctc_1', type: 'custom_tool_call', status: 'in_progress', call_id: 'call_9', name: 'sql', input: '', grammar: 'g1' },
      },
      // An empty piece adds no text, and is kept from all the same.
      { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: '', warmup: true },
      { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: 'SELECT 1', lane: 2 },
      { type: 'response.custom_tool_call_input.done', item_id: 'ctc_1', output_index: 0, input: 'SELECT 1', lane: 3 },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { id: 'ctc_1', type: 'custom_tool_call', status: 'completed', call_id: 'call_9', name: 'sql', input: 'SELECT 1' },
      },
      { type: 'response.completed', response: response('completed') },
    ]);
    const { completion, error } = complete(openaiResponses, custom);
    expect(error).toBeUndefined();
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual({ openai: { grammar: 'g1', warmup: true, lane: 3 } });
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
  });

  it('keeps what a refusal cut by the token limit carries: its deltas on the choice, response.incomplete on the reply', () => {
    const cut = framesOf([
      { type: 'response.created', response: response('in_progress') },
      { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: "I can't", policy: 'p7' },
      {
        type: 'response.incomplete',
        cut_at: 'token',
        response: response('incomplete', { incomplete_details: { reason: 'max_output_tokens' }, completed_at: 1767225601 }),
      },
    ]);
    const { completion, error } = complete(openaiResponses, cut);
    expect(error).toBeUndefined();
    expect(completion!.refusal).toBe("I can't");
    expect(completion!.finishReason).toBe('length');
    expect(completion!.providerMetadata).toEqual({ openai: { completed_at: 1767225601, cut_at: 'token' } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ openai: { policy: 'p7' } });
  });

  it('keeps none for a stream of only the fields it reads', () => {
    const plain = framesOf([
      { type: 'response.created', response: response('in_progress') },
      { type: 'response.in_progress', response: response('in_progress') },
      { type: 'response.output_item.added', output_index: 0, item: { ...MESSAGE, status: 'in_progress' } },
      {
        type: 'response.content_part.added',
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      },
      {
        type: 'response.output_text.delta',
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta: 'Hi',
        logprobs: [],
        obfuscation: 'ab',
      },
      { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hi', logprobs: [] },
      {
        type: 'response.content_part.done',
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: 'Hi' },
      },
      { type: 'response.output_item.done', output_index: 0, item: { ...MESSAGE, status: 'completed' } },
      { type: 'response.output_item.added', output_index: 1, item: { ...CALL, status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{}', obfuscation: 'c' },
      { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{}' },
      { type: 'response.output_item.done', output_index: 1, item: { ...CALL, status: 'completed', arguments: '{}' } },
      { type: 'response.completed', response: response('completed', { usage: USAGE }) },
    ]);
    const { completion, error } = complete(openaiResponses, plain);
    expect(error).toBeUndefined();
    expect(completion!.content).toBe('Hi');
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('openai-responses fields kept from events read through a learned shape', () => {
  // After two events of one shape, the parser reads the next ones through a template: a field every
  // text delta repeats is kept once, and one that changes in every delta ends at its last value.
  const delta = (n: number, extra: Payload): Payload => ({
    type: 'response.output_text.delta',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: `w${n} `,
    logprobs: [],
    obfuscation: 'o'.repeat(n % 5),
    ...extra,
  });
  const stream = (deltas: readonly Payload[]): SseFrame[] =>
    framesOf([
      { type: 'response.created', response: response('in_progress') },
      ...deltas,
      { type: 'response.completed', response: response('completed') },
    ]);

  it('keeps a field every delta repeats once', () => {
    const frames = stream(Array.from({ length: 14 }, (_, n) => delta(n, { region: 'eu' })));
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(sse(frames), openaiResponses, size === undefined ? {} : { chunkSize: size });
      expect(completion!.choices[0]!.providerMetadata).toEqual({ openai: { region: 'eu' } });
      expect(eventsOfType(events, 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'openai', choice: 0, fields: { region: 'eu' } },
      ]);
    }
  });

  it('keeps a field whose value changes in every delta at its last value', () => {
    const frames = stream(Array.from({ length: 14 }, (_, n) => delta(n, { stamp: `t${n}` })));
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion } = assembleText(sse(frames), openaiResponses, size === undefined ? {} : { chunkSize: size });
      expect(completion!.choices[0]!.providerMetadata).toEqual({ openai: { stamp: 't13' } });
      expect(completion!.content).toBe(Array.from({ length: 14 }, (_, n) => `w${n} `).join(''));
    }
    expect(complete(autoDialect, frames).completion!.choices[0]!.providerMetadata).toEqual({ openai: { stamp: 't13' } });
  });

  it('keeps a call fragment field every fragment repeats once, and one that changes at its last value', () => {
    const fragments = Array.from({ length: 14 }, (_, n) => ({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 0,
      delta: n === 0 ? '[' : n === 13 ? `${n}]` : `${n},`,
      obfuscation: 'p'.repeat(n % 3),
      shard: 'a',
      step: n,
    }));
    const frames = framesOf([
      { type: 'response.created', response: response('in_progress') },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'fc_1', type: 'function_call', status: 'in_progress', call_id: 'call_1', name: 'f', arguments: '' },
      },
      ...fragments,
      { type: 'response.completed', response: response('completed') },
    ]);
    const { completion, events } = assembleText(sse(frames), openaiResponses);
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual({ openai: { shard: 'a', step: 13 } });
    const shards = eventsOfType(events, 'provider-metadata').filter((event) => event.fields !== undefined && 'shard' in event.fields);
    expect(shards).toHaveLength(1);
  });
});

function withoutKeys(object: Payload, keys: readonly string[]): Payload {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}
