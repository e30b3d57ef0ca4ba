import { SseFrame } from '../../src/frames/SseParser';
import { aiSdkUi } from '../../src/dialects/ai-sdk-ui/aiSdkUi';
import { Completion } from '../../src/types/events';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { groupedEvents } from '../support/complete';

// The AI SDK's UI message stream keeps what a chunk carries beside the fields the dialect reads, as
// `providerMetadata['ai-sdk']`: a `start` or `finish` chunk's on the reply, a tool chunk's on its
// call, any other's on the choice. The SDK's own `providerMetadata` of a chunk is such a field, kept
// as it came. (`auto` does not choose this format: it is always named.)

const sse = (frames: readonly SseFrame[]): string => frames.map((f) => `data: ${f.data}\n\n`).join('');
const DONE = frame('[DONE]');

/** Whole, then at every chunk size: the completion, with no error. */
function everySize(frames: readonly SseFrame[], check: (completion: Completion) => void): void {
  for (const size of [undefined, ...CHUNK_SIZES]) {
    const { completion, error } = assembleText(sse(frames), aiSdkUi, size === undefined ? {} : { chunkSize: size });
    expect(error).toBeUndefined();
    check(completion!);
  }
}

describe('ai-sdk-ui keeps every field it does not map, where it arrived', () => {
  // Each chunk of the protocol with a field beside the ones read, a different one on each so that
  // none replaces another: the message's metadata on `start`, the provider's item id in the SDK's own
  // `providerMetadata` on `text-end`, `dynamic` and `title` on a call's start, Gemini's thought
  // signature on its input, and newer fields elsewhere.
  const GOOGLE = { google: { thoughtSignature: 'c2ln' } };
  const frames = [
    frame({ type: 'start', messageId: 'msg-1', messageMetadata: { model: 'gpt-5' } }),
    frame({ type: 'start-step', stepNumber: 0 }),
    frame({ type: 'reasoning-start', id: 'r0', reasoningFormat: 'summary' }),
    frame({ type: 'reasoning-delta', id: 'r0', delta: 'Think.', redacted: false }),
    frame({ type: 'reasoning-end', id: 'r0', tokens: 12 }),
    frame({ type: 'text-start', id: 't0', language: 'en' }),
    frame({ type: 'text-delta', id: 't0', delta: 'Hi', stage: 'draft' }),
    frame({ type: 'text-end', id: 't0', providerMetadata: { openai: { itemId: 'msg_1' } } }),
    frame({ type: 'source-url', sourceId: 's0', url: 'https://example.com', title: 'Example', favicon: 'https://example.com/f.ico' }),
    frame({ type: 'tool-input-start', toolCallId: 'call_1', toolName: 'weather', dynamic: true, title: 'Weather' }),
    frame({ type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: '{"city":"Paris"}', offset: 0 }),
    frame({ type: 'tool-input-available', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Paris' }, providerMetadata: GOOGLE }),
    frame({ type: 'finish-step', warnings: [] }),
    frame({ type: 'finish', finishReason: 'tool-calls', stopSequence: '###' }),
    DONE,
  ];
  const CHOICE = {
    stepNumber: 0,
    reasoningFormat: 'summary',
    redacted: false,
    tokens: 12,
    language: 'en',
    stage: 'draft',
    providerMetadata: { openai: { itemId: 'msg_1' } },
    favicon: 'https://example.com/f.ico',
    warnings: [],
  };
  const CALL = { dynamic: true, title: 'Weather', offset: 0, providerMetadata: GOOGLE };

  it('on the reply, the choice and the call, whole and at every chunk size', () => {
    everySize(frames, (completion) => {
      expect(completion.content).toBe('Hi');
      expect(completion.reasoning).toBe('Think.');
      expect(completion.providerMetadata).toEqual({ 'ai-sdk': { messageMetadata: { model: 'gpt-5' }, stopSequence: '###' } });
      expect(completion.choices[0]!.providerMetadata).toEqual({ 'ai-sdk': CHOICE });
      expect(completion.toolCalls[0]!.providerMetadata).toEqual({ 'ai-sdk': CALL });
    });
  });

  it('on the tool-call event that groupToolCallsByIndex emits when the input is available', () => {
    const events = groupedEvents(sse(frames), aiSdkUi);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: {
          index: 0,
          id: 'call_1',
          name: 'weather',
          arguments: '{"city":"Paris"}',
          args: { city: 'Paris' },
          providerMetadata: { 'ai-sdk': CALL },
        },
      },
    ]);
  });

  it('on a call given whole by its input, with no start', () => {
    const whole = [
      frame({ type: 'start', messageId: 'msg-1' }),
      frame({ type: 'tool-input-available', toolCallId: 'call_1', toolName: 'f', input: {}, providerMetadata: GOOGLE }),
      frame({ type: 'finish' }),
      DONE,
    ];
    everySize(whole, (completion) => expect(completion.toolCalls[0]!.providerMetadata).toEqual({ 'ai-sdk': { providerMetadata: GOOGLE } }));
  });

  it('keeps none for chunks of only the fields it reads', () => {
    const plain = [
      frame({ type: 'start', messageId: 'msg-1' }),
      frame({ type: 'start-step' }),
      frame({ type: 'reasoning-start', id: 'r0' }),
      frame({ type: 'reasoning-delta', id: 'r0', delta: 'Think.' }),
      frame({ type: 'reasoning-end', id: 'r0' }),
      frame({ type: 'text-start', id: 't0' }),
      frame({ type: 'text-delta', id: 't0', delta: 'Hi' }),
      frame({ type: 'text-end', id: 't0' }),
      frame({ type: 'source-url', sourceId: 's0', url: 'https://example.com', title: 'Example' }),
      frame({ type: 'tool-input-start', toolCallId: 'call_1', toolName: 'f', inputEncoding: 'text' }),
      frame({ type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: 'x' }),
      frame({ type: 'tool-input-available', toolCallId: 'call_1', toolName: 'f', input: 'x' }),
      frame({ type: 'finish-step' }),
      frame({ type: 'finish', finishReason: 'tool-calls' }),
      DONE,
    ];
    everySize(plain, (completion) => {
      expect('providerMetadata' in completion).toBe(false);
      expect('providerMetadata' in completion.choices[0]!).toBe(false);
      expect('providerMetadata' in completion.toolCalls[0]!).toBe(false);
    });
  });
});

describe('ai-sdk-ui fields kept from chunks read through a learned shape', () => {
  // Twenty text deltas of one shape: after two, the parser reads them through a template.
  const stream = (extra: (n: number) => Record<string, unknown>) => [
    frame({ type: 'start', messageId: 'msg-1' }),
    frame({ type: 'text-start', id: 't0' }),
    ...Array.from({ length: 20 }, (_, n) => frame({ type: 'text-delta', id: 't0', delta: `w${n} `, ...extra(n) })),
    frame({ type: 'text-end', id: 't0' }),
    frame({ type: 'finish' }),
    DONE,
  ];
  const TEXT = Array.from({ length: 20 }, (_, n) => `w${n} `).join('');

  it('keeps a field every chunk repeats once', () => {
    const repeated = stream(() => ({ providerMetadata: { openai: { itemId: 'msg_1' } } }));
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(sse(repeated), aiSdkUi, size === undefined ? {} : { chunkSize: size });
      expect(completion!.content).toBe(TEXT);
      expect(completion!.choices[0]!.providerMetadata).toEqual({ 'ai-sdk': { providerMetadata: { openai: { itemId: 'msg_1' } } } });
      expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(1);
    }
  });

  it('keeps a field whose value changes in every chunk at its last value', () => {
    const changing = stream((n) => ({ seq: n }));
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(sse(changing), aiSdkUi, size === undefined ? {} : { chunkSize: size });
      expect(completion!.content).toBe(TEXT);
      expect(completion!.choices[0]!.providerMetadata).toEqual({ 'ai-sdk': { seq: 19 } });
      expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(20);
    }
  });
});
