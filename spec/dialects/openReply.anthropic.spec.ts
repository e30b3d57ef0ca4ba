import { SseFrame } from '../../src/frames/SseParser';
import { anthropic } from '../../src/dialects/anthropic/anthropic';
import { autoDialect } from '../../src/dialects/auto';
import { Completion } from '../../src/types/events';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// What Anthropic's Messages stream sends that the dialect does not map is kept where it arrived: an
// event's own fields, the message's (message_start) and its changes (message_delta's delta) on the
// reply; a content block's and its deltas' on the choice, or on the call for a tool_use block. Each
// stream is written from the events of Anthropic's streaming reference
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming), with fields the reference
// documents that the completion has no field for (the message's `container` and `stop_sequence`,
// `context_management`, a tool call's `caller`, an MCP block's `server_name` and `is_error`) and
// unknown ones at the levels that document none.

const sse = (frames: readonly SseFrame[]): string =>
  frames.map((f) => `${f.event === 'message' ? '' : `event: ${f.event}\n`}data: ${f.data}\n\n`).join('');

/** A frame as Anthropic sends it: the event name repeats `data.type`. */
const named = (payload: { type: string } & Record<string, unknown>): SseFrame => frame(payload, payload.type);

const MESSAGE = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null };
const USAGE = { input_tokens: 10, output_tokens: 1 };

describe('anthropic keeps every field it does not map, where it arrived', () => {
  const container = { id: 'container_011', expires_at: '2026-01-01T00:05:00Z' };
  const caller = { type: 'direct' };
  const frames = [
    named({
      type: 'message_start',
      region: 'eu',
      message: { ...MESSAGE, stop_sequence: null, container, usage: USAGE },
    }),
    named({ type: 'ping', server_time: 't0' }),
    named({ type: 'content_block_start', index: 0, trace: 'b0', content_block: { type: 'text', text: '', origin: 'model' } }),
    named({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi', confidence: 0.9 } }),
    named({ type: 'content_block_stop', index: 0, closed_by: 'model' }),
    named({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'echo', server_name: 'tools', input: { q: 1 } },
    }),
    named({ type: 'content_block_stop', index: 1 }),
    named({
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [{ type: 'text', text: 'ok' }] },
    }),
    named({ type: 'content_block_stop', index: 2 }),
    named({ type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {}, caller } }),
    named({ type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"a":', piece: 1 } }),
    named({ type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '1}', piece: 2 } }),
    named({ type: 'content_block_stop', index: 3 }),
    named({
      type: 'message_delta',
      delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
      usage: { output_tokens: 9 },
      context_management: { applied_edits: [] },
    }),
    named({ type: 'message_stop', trailer: 'end' }),
  ];
  const REPLY = {
    anthropic: {
      region: 'eu',
      // message_start's null, replaced by the stop sequence message_delta names.
      stop_sequence: '###',
      container,
      server_time: 't0',
      trace: 'b0',
      closed_by: 'model',
      context_management: { applied_edits: [] },
      trailer: 'end',
    },
  };
  const CHOICE = { anthropic: { origin: 'model', confidence: 0.9, server_name: 'tools', is_error: false } };
  const CALL = { anthropic: { caller, piece: 2 } };

  const expectKept = (completion: Completion | undefined): void => {
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls).toEqual([
      { index: 0, id: 'toolu_1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: CALL },
    ]);
    // What was read is read as before.
    expect(completion!.content).toBe('Hi');
    expect(completion!.rawFinishReason).toBe('stop_sequence');
    expect(completion!.providerToolCalls).toHaveLength(1);
  };

  it('on the completion, the choice and the call', () => {
    const { completion, error } = complete(anthropic, frames);
    expect(error).toBeUndefined();
    expectKept(completion);
  });

  it('reads the same whole and at every chunk size', () => {
    const text = sse(frames);
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(text, anthropic, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expectKept(completion);
    }
  });

  it('reads the same under auto', () => {
    expectKept(complete(autoDialect, frames).completion);
    expectKept(assembleText(sse(frames), autoDialect, { chunkSize: 7 }).completion);
  });

  it("on the tool-call event that groupToolCallsByIndex emits at the block's stop", () => {
    const events = groupedEvents(sse(frames), anthropic);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: { index: 0, id: 'toolu_1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: CALL },
      },
    ]);
  });

  it('of a reply cut before message_stop is in the partial of its error', () => {
    const { error } = assembleText(sse(frames.slice(0, -1)), anthropic);
    expect(error).toMatchObject({ name: 'StreamClosedEarlyError' });
    const partial = (error as { partial: Completion }).partial;
    // All but message_stop's own field: that event never came.
    const { trailer, ...beforeStop } = REPLY.anthropic;
    expect(trailer).toBe('end');
    expect(partial.providerMetadata).toEqual({ anthropic: beforeStop });
    expect(partial.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(partial.toolCalls[0]!.providerMetadata).toEqual(CALL);
  });

  it('keeps the fields of thinking and redacted thinking blocks, of their deltas and of a citation delta on the choice', () => {
    const { completion, error } = complete(anthropic, [
      named({ type: 'message_start', message: { ...MESSAGE, usage: USAGE } }),
      named({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '', budget: 1 } }),
      named({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm.', step: 1 } }),
      named({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln', algorithm: 'x' } }),
      named({ type: 'content_block_stop', index: 0 }),
      named({ type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'ZGF0YQ==', reason: 'safety' } }),
      named({ type: 'content_block_stop', index: 1 }),
      named({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
      named({
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'citations_delta', citation: { type: 'char_location', document_index: 0, cited_text: 'a' }, order: 0 },
      }),
      named({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'A.' } }),
      named({ type: 'content_block_stop', index: 2 }),
      named({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }),
      named({ type: 'message_stop' }),
    ]);
    expect(error).toBeUndefined();
    expect(completion!.reasoningSignatures).toEqual(['c2ln', 'ZGF0YQ==']);
    expect(completion!.sources).toHaveLength(1);
    expect(completion!.choices[0]!.providerMetadata).toEqual({
      anthropic: { budget: 1, step: 1, algorithm: 'x', reason: 'safety', order: 0 },
    });
    expect('providerMetadata' in completion!).toBe(false);
  });

  it("keeps a server tool's block and input delta fields on the choice, not as a call's", () => {
    const { completion, error } = complete(anthropic, [
      named({ type: 'message_start', message: { ...MESSAGE, usage: USAGE } }),
      named({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {}, caller: { type: 'direct' } },
      }),
      named({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}', piece: 1 } }),
      named({ type: 'content_block_stop', index: 0 }),
      named({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
      named({ type: 'message_stop' }),
    ]);
    expect(error).toBeUndefined();
    expect(completion!.toolCalls).toEqual([]);
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'srvtoolu_1',
        name: 'web_search',
        type: 'server_tool_use',
        input: { query: 'x' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
      },
    ]);
    expect(completion!.choices[0]!.providerMetadata).toEqual({ anthropic: { caller: { type: 'direct' }, piece: 1 } });
  });

  it('keeps none for a stream of only the fields it reads', () => {
    const plain = [
      named({ type: 'message_start', message: { ...MESSAGE, usage: USAGE } }),
      named({ type: 'ping' }),
      named({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      named({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      named({ type: 'content_block_stop', index: 0 }),
      named({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }),
      named({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } }),
      named({ type: 'content_block_stop', index: 1 }),
      named({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }),
      named({ type: 'message_stop' }),
    ];
    const { completion, error } = complete(anthropic, plain);
    expect(error).toBeUndefined();
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('anthropic: fields kept from events read through a learned shape', () => {
  // After two events of one shape the parser reads the next ones through a template, and the base
  // skips the fields it kept already; these streams are long enough for that.
  const head = [
    named({ type: 'message_start', message: { ...MESSAGE, usage: USAGE } }),
    named({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ];
  const tail = [
    named({ type: 'content_block_stop', index: 0 }),
    named({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
    named({ type: 'message_stop' }),
  ];
  const text = (n: number, event: Record<string, unknown>, delta: Record<string, unknown>): SseFrame =>
    named({ type: 'content_block_delta', index: 0, ...event, delta: { type: 'text_delta', text: `w${n} `, ...delta } });
  const read = (frames: readonly SseFrame[]) => {
    const whole = sse([...head, ...frames, ...tail]);
    const outcome = assembleText(whole, anthropic);
    expect(outcome.error).toBeUndefined();
    // The same at every chunk size.
    for (const size of CHUNK_SIZES) expect(assembleText(whole, anthropic, { chunkSize: size }).completion).toEqual(outcome.completion);
    return outcome;
  };

  it('keeps a field every event repeats once, on the reply and on the choice', () => {
    const { completion, events } = read(Array.from({ length: 14 }, (_, n) => text(n, { region: 'eu' }, { lang: 'en' })));
    expect(completion!.providerMetadata).toEqual({ anthropic: { region: 'eu' } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ anthropic: { lang: 'en' } });
    expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
      { type: 'provider-metadata', provider: 'anthropic', choice: 0, fields: { lang: 'en' } },
      { type: 'provider-metadata', provider: 'anthropic', fields: { region: 'eu' } },
    ]);
    expect(completion!.content).toBe(Array.from({ length: 14 }, (_, n) => `w${n} `).join(''));
  });

  it('keeps a field whose value changes in every event at its last value', () => {
    const { completion } = read(Array.from({ length: 14 }, (_, n) => text(n, { seq: n }, { offset: `o${n}` })));
    expect(completion!.providerMetadata).toEqual({ anthropic: { seq: 13 } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ anthropic: { offset: 'o13' } });
  });

  it("keeps a call's field at its last value, and one every delta repeats once", () => {
    const frames = [
      named({ type: 'message_start', message: { ...MESSAGE, usage: USAGE } }),
      named({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }),
      ...Array.from({ length: 14 }, (_, n) =>
        named({
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: n === 0 ? '{"a":"' : n === 13 ? '"}' : `x${n}`, piece: n, kind: 'k' },
        }),
      ),
      named({ type: 'content_block_stop', index: 0 }),
      named({ type: 'message_delta', delta: { stop_reason: 'tool_use' } }),
      named({ type: 'message_stop' }),
    ];
    const whole = sse(frames);
    const { completion, events, error } = assembleText(whole, anthropic);
    expect(error).toBeUndefined();
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual({ anthropic: { piece: 13, kind: 'k' } });
    const kinds = events.filter((event) => event.type === 'provider-metadata' && event.fields?.['kind'] !== undefined);
    expect(kinds).toHaveLength(1);
    for (const size of CHUNK_SIZES) expect(assembleText(whole, anthropic, { chunkSize: size }).completion).toEqual(completion);
    expect(assembleText(whole, autoDialect).completion).toEqual(completion);
  });
});
