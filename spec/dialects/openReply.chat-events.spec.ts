import { of, toArray } from 'rxjs';
import { map } from 'rxjs/operators';
import { SseFrame } from '../../src/frames/SseParser';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';
import { chatEvents } from '../../src/dialects/chat-events/chatEvents';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { toolCallPreviews } from '../../src/reply/toolCallPreviews';
import { ProtocolError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { encodeSse } from '../../src/ui/encodeSse';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { collectSync } from '../support/collect';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { groupedEvents } from '../support/complete';

// This library's own events, read back by a relay's client, keep the fields a newer version of the
// library writes and this one does not know, as `providerMetadata['chat-events']` of the place the
// event names (its call, its choice, or the reply). The namespace is the format's own: the provider's
// metadata travels in `provider-metadata` events under the provider's name, and a newer field must
// neither mix with it nor replace a provider's field of the same name.

/** An event as `toMessageEvents` sends it: `event:` its type. */
const event = (payload: { readonly type: string } & Record<string, unknown>): SseFrame => frame(payload, payload.type);
const sse = (frames: readonly SseFrame[]): string => frames.map((f) => `event: ${f.event}\ndata: ${f.data}\n\n`).join('');
const DONE = event({ type: 'done' });

/** Whole, then at every chunk size: the completion, with no error. */
function everySize(text: string, check: (completion: Completion, events: readonly ChatEvent[]) => void): void {
  for (const size of [undefined, ...CHUNK_SIZES]) {
    const { completion, events, error } = assembleText(text, chatEvents, size === undefined ? {} : { chunkSize: size });
    expect(error).toBeUndefined();
    check(completion!, events);
  }
}

describe('chat-events keeps every field of a newer version, where its event belongs', () => {
  // Every event this version reads, each with a field of its own that it does not know, so that none
  // replaces another: on the reply (start, progress, usage, timings, unknown, provider-metadata, done),
  // on the choice (text, reasoning, a signature, a refusal, logprobs, a source, audio, a tool the
  // provider ran and its result, the finish) and on a call (its fragments, its end, the whole call).
  const ACME = { acme: { fingerprint: 'fp_1' } };
  const frames = [
    event({ type: 'start', id: 'r1', model: 'm', f_start: 1 }),
    event({ type: 'progress', progress: { total: 4, cache: 0, processed: 4, timeMs: 2 }, f_progress: 1 }),
    event({ type: 'provider-metadata', provider: 'acme', fields: { fingerprint: 'fp_1' }, f_metadata: 1 }),
    event({ type: 'reasoning', choice: 0, text: 'Think.', f_reasoning: 1 }),
    event({ type: 'reasoning-signature', choice: 0, signature: 'sig', f_signature: 1 }),
    event({ type: 'content', choice: 0, text: 'Hi', f_content: 1 }),
    event({ type: 'refusal', choice: 0, text: 'No.', f_refusal: 1 }),
    event({ type: 'logprobs', choice: 0, content: [{ token: 'Hi', logprob: -0.1, bytes: null, top_logprobs: [] }], f_logprobs: 1 }),
    event({ type: 'source', choice: 0, source: { kind: 'url', url: 'https://example.com' }, f_source: 1 }),
    event({ type: 'audio', choice: 0, id: 'a1', transcript: 'Hi', f_audio: 1 }),
    event({
      type: 'provider-tool-call',
      choice: 0,
      call: { id: 'ws_1', name: 'web_search', type: 'web_search_call', input: {}, f_ran: 1 },
      f_provider_call: 1,
    }),
    event({ type: 'provider-tool-result', choice: 0, id: 'ws_1', result: [], f_result: 1 }),
    event({ type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '', f_first: 1 }),
    event({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '{"a":1}', f_fragment: 1 }),
    event({
      type: 'tool-call',
      choice: 0,
      call: { index: 0, id: 'c1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, f_call: 1 },
      f_tool_call: 1,
    }),
    event({ type: 'tool-call-end', choice: 0, index: 0, f_end: 1 }),
    event({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls', f_finish: 1 }),
    event({ type: 'usage', usage: { promptTokens: 4, completionTokens: 2, totalTokens: 6 }, f_usage: 1 }),
    event({ type: 'timings', timings: { predicted_ms: 5 }, f_timings: 1 }),
    event({ type: 'unknown', payload: { type: 'ping' }, f_unknown: 1 }),
    event({ type: 'done', f_done: 1 }),
  ];
  const REPLY = { f_start: 1, f_progress: 1, f_metadata: 1, f_usage: 1, f_timings: 1, f_unknown: 1, f_done: 1 };
  const CHOICE = {
    f_reasoning: 1,
    f_signature: 1,
    f_content: 1,
    f_refusal: 1,
    f_logprobs: 1,
    f_source: 1,
    f_audio: 1,
    f_provider_call: 1,
    f_ran: 1,
    f_result: 1,
    f_finish: 1,
  };
  const CALL = { f_first: 1, f_fragment: 1, f_tool_call: 1, f_call: 1, f_end: 1 };

  it('on the reply, the choice and the call, whole and at every chunk size, beside the provider metadata relayed', () => {
    everySize(sse(frames), (completion) => {
      expect(completion.content).toBe('Hi');
      expect(completion.providerMetadata).toEqual({ ...ACME, 'chat-events': REPLY });
      expect(completion.choices[0]!.providerMetadata).toEqual({ 'chat-events': CHOICE });
      expect(completion.toolCalls).toEqual([
        { index: 0, id: 'c1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: { 'chat-events': CALL } },
      ]);
    });
  });

  it('on the tool-call event that groupToolCallsByIndex emits at the end of the call', () => {
    const events = groupedEvents(sse(frames), chatEvents);
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: { index: 0, id: 'c1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: { 'chat-events': CALL } },
      },
    ]);
  });

  it('on a call the token limit cut, kept apart from the calls', () => {
    const cut = [
      event({ type: 'start', id: 'r1', model: 'm' }),
      event({ type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '{"a"' }),
      event({
        type: 'tool-call-incomplete',
        choice: 0,
        call: { index: 0, id: 'c1', name: 'f', arguments: '{"a"', f_cut: 1 },
        f_incomplete: 1,
      }),
      event({ type: 'finish', choice: 0, reason: 'length', raw: 'length' }),
      DONE,
    ];
    everySize(sse(cut), (_completion, events) => {
      expect(events.filter((e) => e.type === 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'chat-events', choice: 0, call: 0, fields: { f_incomplete: 1 } },
        { type: 'provider-metadata', provider: 'chat-events', choice: 0, call: 0, fields: { f_cut: 1 } },
      ]);
    });
  });

  it('keeps none for events of only the fields this version writes', () => {
    const plain = frames.map((f) => {
      const payload = JSON.parse(f.data) as Record<string, unknown>;
      const known = Object.fromEntries(Object.entries(payload).filter(([key]) => !key.startsWith('f_')));
      const call = known['call'] as Record<string, unknown> | undefined;
      if (call !== undefined) known['call'] = Object.fromEntries(Object.entries(call).filter(([key]) => !key.startsWith('f_')));
      return frame(known, f.event);
    });
    everySize(sse(plain), (completion) => {
      expect(completion.providerMetadata).toEqual(ACME);
      expect('providerMetadata' in completion.choices[0]!).toBe(false);
      expect('providerMetadata' in completion.toolCalls[0]!).toBe(false);
    });
  });
});

describe('the providerMetadata of a whole call', () => {
  const whole = (providerMetadata: unknown) => [
    event({ type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '{}' }),
    event({ type: 'tool-call', choice: 0, call: { index: 0, id: 'c1', name: 'f', arguments: '{}', args: {}, providerMetadata } }),
    event({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' }),
    DONE,
  ];

  it('is read with the call, as the server showed it', () => {
    const { events, error } = assembleText(sse(whole({ acme: { signature: 'sig' } })), chatEvents);
    expect(error).toBeUndefined();
    expect(events.find((e) => e.type === 'tool-call')).toEqual({
      type: 'tool-call',
      choice: 0,
      call: { index: 0, id: 'c1', name: 'f', arguments: '{}', args: {}, providerMetadata: { acme: { signature: 'sig' } } },
    });
  });

  it.each([
    ['not an object', 'sig', 'frame 2: call.providerMetadata is "sig", not an object'],
    ['a provider whose fields are not an object', { acme: 1 }, 'frame 2: call.providerMetadata.acme is 1, not an object'],
  ])('is a ProtocolError when %s', (_name, providerMetadata, message) => {
    const { error } = assembleText(sse(whole(providerMetadata)), chatEvents);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe(message);
  });
});

describe('chat-events relayed from a server keeps nothing of its own', () => {
  // A server reading an OpenAI-compatible stream whose chunks carry fields the dialect keeps (the
  // envelope's, a call's thought signature), with tool-call progress and previews on, relays it to a
  // client: every field it writes is this version's, and the client's completion is the server's.
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model: 'm', system_fingerprint: 'fp_1' };
  const call = {
    index: 0,
    id: 'call_1',
    type: 'function',
    function: { name: 'f', arguments: '{"a":' },
    extra_content: { google: { thought_signature: 'c2ln' } },
  };
  const upstream = [
    frame({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' } }] }),
    frame({ ...head, choices: [{ index: 0, delta: { tool_calls: [call] } }] }),
    frame({ ...head, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] } }] }),
    frame({ ...head, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
    frame('[DONE]'),
  ];
  const upstreamText = upstream.map((f) => `data: ${f.data}\n\n`).join('');

  it('and ends in the completion the server had, tool-call events and their metadata included', () => {
    const server = assembleText(upstreamText, openaiChat).completion!;
    expect(server.toolCalls[0]!.providerMetadata).toEqual({ openai: { extra_content: { google: { thought_signature: 'c2ln' } } } });
    const relayed = collectSync(
      of(new TextEncoder().encode(upstreamText)).pipe(
        decodeUtf8(),
        sseFrames(),
        assembleChunks({ dialect: openaiChat }),
        groupToolCallsByIndex({ previews: toolCallPreviews() }),
        toMessageEvents(),
        map((message) => ({ event: message.type, data: message.data, id: message.id })),
        encodeSse(),
        toArray(),
      ),
    );
    expect(relayed.error).toBeUndefined();
    const text = relayed.values[0]!.join('');
    // The server's own stream has the progress on each fragment and the metadata on the whole call.
    expect(text).toContain('"preview"');
    expect(text).toContain('"type":"tool-call","choice":0,"call":{');
    everySize(text, (completion, events) => {
      expect(completion).toEqual(server);
      expect(events.filter((e) => e.type === 'provider-metadata' && e.provider === 'chat-events')).toEqual([]);
      expect(events.find((e) => e.type === 'tool-call')).toEqual({
        type: 'tool-call',
        choice: 0,
        call: {
          index: 0,
          id: 'call_1',
          name: 'f',
          arguments: '{"a":1}',
          args: { a: 1 },
          providerMetadata: server.toolCalls[0]!.providerMetadata,
        },
      });
    });
  });
});

describe('chat-events fields kept from events read through a learned shape', () => {
  // Twenty content events of one shape: after two, the parser reads them through a template.
  const stream = (extra: (n: number) => Record<string, unknown>) => [
    event({ type: 'start', id: 'r1', model: 'm' }),
    ...Array.from({ length: 20 }, (_, n) => event({ type: 'content', choice: 0, text: `w${n} `, ...extra(n) })),
    event({ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }),
    DONE,
  ];
  const TEXT = Array.from({ length: 20 }, (_, n) => `w${n} `).join('');

  it('keeps a field every event repeats once', () => {
    everySize(sse(stream(() => ({ lang: 'en' }))), (completion, events) => {
      expect(completion.content).toBe(TEXT);
      expect(completion.choices[0]!.providerMetadata).toEqual({ 'chat-events': { lang: 'en' } });
      expect(events.filter((e) => e.type === 'provider-metadata')).toHaveLength(1);
    });
  });

  it('keeps a field whose value changes in every event at its last value', () => {
    everySize(sse(stream((n) => ({ seq: n }))), (completion, events) => {
      expect(completion.content).toBe(TEXT);
      expect(completion.choices[0]!.providerMetadata).toEqual({ 'chat-events': { seq: 19 } });
      expect(events.filter((e) => e.type === 'provider-metadata')).toHaveLength(20);
    });
  });
});
