import { SseFrame } from '../../src/frames/SseParser';
import { cohere } from '../../src/dialects/cohere/cohere';
import { autoDialect } from '../../src/dialects/auto';
import { Completion } from '../../src/types/events';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// Cohere's v2 stream keeps what it does not map as `providerMetadata.cohere`, where it arrived: an
// event's fields and message-end's delta fields on the reply; `delta.message`'s, a content object's
// and a citation's on the choice; a tool call's and its function's on the call.

const sse = (frames: readonly SseFrame[]): string =>
  frames.map((f) => `${f.event === 'message' ? '' : `event: ${f.event}\n`}data: ${f.data}\n\n`).join('');

/** A Cohere event: its payload names its type, and so does its SSE event. */
const event = (type: string, fields: Record<string, unknown> = {}): SseFrame => frame({ type, ...fields }, type);

const EMPTY_MESSAGE = { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] };
const start = (message: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  frame({ id: 'c-1', type: 'message-start', delta: { message: { ...EMPTY_MESSAGE, ...message } }, ...extra }, 'message-start');
const USAGE = { billed_units: { input_tokens: 3, output_tokens: 2 }, tokens: { input_tokens: 9, output_tokens: 2 } };
const end = (reason: string, extra: Record<string, unknown> = {}) =>
  event('message-end', { delta: { finish_reason: reason, usage: USAGE, ...extra } });

describe('cohere keeps every field it does not map, where it arrived', () => {
  // The content-delta event's `logprobs` (documented, not read), and at every other level a field
  // Cohere might add.
  const LOGPROBS = [{ token_ids: [9], logprobs: [-0.1] }];
  const frames = [
    start({ annotations: [] }, { trace_id: 't-1' }),
    event('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '', lang: 'en' } } } }),
    event('content-delta', { index: 0, delta: { message: { content: { text: 'It is 24°C.' } } }, logprobs: LOGPROBS }),
    event('citation-start', {
      index: 0,
      delta: {
        message: {
          citations: {
            start: 6,
            end: 10,
            text: '24°C',
            sources: [{ type: 'tool', id: 'get_weather_1:0', tool_output: { t: '24' } }],
            type: 'TEXT_CONTENT',
            confidence: 0.9,
          },
        },
      },
    }),
    event('citation-end', { index: 0 }),
    event('content-end', { index: 0 }),
    event('tool-plan-delta', { delta: { message: { tool_plan: 'Look it up.', plan_step: 1 }, plan_id: 'p-1' } }),
    event('tool-call-start', {
      index: 0,
      delta: {
        message: {
          tool_calls: {
            id: 'get_weather_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '', strict: true },
            origin: 'm',
          },
        },
      },
    }),
    event('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: '{"city":"Madrid"}' } } } } }),
    event('tool-call-end', { index: 0 }),
    end('TOOL_CALL', { model_version: 'command-a-03-2025' }),
  ].map(
    // Each event also carries a field named after its type, so that each event's own keeping is seen.
    (f): SseFrame => frame({ ...(JSON.parse(f.data) as Record<string, unknown>), [`seen_${f.event}`]: true }, f.event),
  );
  const SEEN = Object.fromEntries(frames.map((f) => [`seen_${f.event}`, true]));
  const REPLY = { cohere: { trace_id: 't-1', logprobs: LOGPROBS, plan_id: 'p-1', model_version: 'command-a-03-2025', ...SEEN } };
  const CHOICE = { cohere: { annotations: [], lang: 'en', confidence: 0.9, plan_step: 1 } };
  const CALL = { cohere: { origin: 'm', strict: true } };
  const expectKept = (completion: Completion | undefined) => {
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual(CALL);
    expect(completion!.content).toBe('It is 24°C.');
    expect(completion!.toolCalls[0]).toMatchObject({ id: 'get_weather_2', name: 'get_weather', args: { city: 'Madrid' } });
  };

  it('on the completion, the choice and the call, whole and at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(frames), cohere, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expectKept(completion);
    }
  });

  it('the same under auto', () => {
    expectKept(complete(autoDialect, frames).completion);
    expectKept(assembleText(sse(frames), autoDialect, { chunkSize: 7 }).completion);
  });

  it('on the tool-call event that groupToolCallsByIndex emits at tool-call-end', () => {
    const events = groupedEvents(sse(frames), cohere);
    const calls = events.filter((e) => e.type === 'tool-call');
    expect(calls).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: {
          index: 0,
          id: 'get_weather_2',
          name: 'get_weather',
          arguments: '{"city":"Madrid"}',
          args: { city: 'Madrid' },
          providerMetadata: CALL,
        },
      },
    ]);
  });

  it("keeps none for events of only the fields it reads, message-start's empty message and usage's billed units among them", () => {
    const plain = [
      start(),
      event('content-start', { index: 0, delta: { message: { content: { type: 'thinking', thinking: '' } } } }),
      event('content-delta', { index: 0, delta: { message: { content: { thinking: 'Hm.' } } } }),
      event('content-end', { index: 0 }),
      event('content-start', { index: 1, delta: { message: { content: { type: 'text', text: '' } } } }),
      event('content-delta', { index: 1, delta: { message: { content: { text: 'Hi' } } } }),
      event('content-end', { index: 1 }),
      event('tool-call-start', {
        index: 0,
        delta: { message: { tool_calls: { id: 'c_1', type: 'function', function: { name: 'f', arguments: '' } } } },
      }),
      event('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: '{}' } } } } }),
      event('tool-call-end', { index: 0 }),
      end('TOOL_CALL'),
    ];
    const { completion, events, error } = assembleText(sse(plain), cohere);
    expect(error).toBeUndefined();
    expect(events.some((e) => e.type === 'provider-metadata')).toBe(false);
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('cohere: fields kept from events read through a learned shape', () => {
  // Twenty content deltas of one shape: after the first ones the parser reads the rest through a template.
  const long = (extra: (n: number) => Record<string, unknown>, content: (n: number) => Record<string, unknown> = () => ({})) =>
    sse([
      start(),
      event('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
      ...Array.from({ length: 20 }, (_, n) =>
        event('content-delta', { index: 0, delta: { message: { content: { text: `w${n} `, ...content(n) } } }, ...extra(n) }),
      ),
      event('content-end', { index: 0 }),
      end('COMPLETE'),
    ]);

  it('keeps a field every event repeats once', () => {
    const { completion, events } = assembleText(
      long(() => ({ region: 'eu' })),
      cohere,
    );
    expect(completion!.providerMetadata).toEqual({ cohere: { region: 'eu' } });
    expect(events.filter((e) => e.type === 'provider-metadata')).toHaveLength(1);
  });

  it('keeps a field whose value changes in every event at its last value, on the reply and on the choice', () => {
    const { completion } = assembleText(
      long(
        (n) => ({ logprobs: [{ token_ids: [n], logprobs: [-n] }] }),
        (n) => ({ seq: n }),
      ),
      cohere,
    );
    expect(completion!.providerMetadata).toEqual({ cohere: { logprobs: [{ token_ids: [19], logprobs: [-19] }] } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ cohere: { seq: 19 } });
  });

  it('reads the same at every chunk size and through auto as whole', () => {
    const text = long((n) => ({ step: n % 3 === 0 ? 'a' : 'b', fixed: true }));
    const whole = assembleText(text, cohere).completion!;
    expect(whole.providerMetadata).toEqual({ cohere: { step: 'b', fixed: true } });
    for (const size of CHUNK_SIZES) expect(assembleText(text, cohere, { chunkSize: size }).completion).toEqual(whole);
    expect(assembleText(text, autoDialect).completion).toEqual(whole);
  });
});
