import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectOptions } from '../../src/dialects/Dialect';
import { gemini } from '../../src/dialects/gemini/gemini';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { runSync } from '../support/collect';
import { assembleBytes, assembleText, readBytes, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

// The example stream of this dialect, byte for byte (marbles/README.md says where it came from).
const EXAMPLE = marbleFile('dialects/gemini-native.sse');

/** Runs frames through the gemini core; returns the events and the error, if any. */
const readGemini = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(gemini, frames, options);

/** A Gemini chunk with one candidate (index 0) holding `parts`. */
function chunk(parts: unknown[], candidate: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    candidates: [{ content: { parts, role: 'model' }, index: 0, ...candidate }],
    modelVersion: 'gemini-x',
    responseId: 'r1',
    ...extra,
  };
}

/** The last chunk of a reply: an empty text part and the finish reason. */
const finishing = (reason = 'STOP', extra: Record<string, unknown> = {}) => frame(chunk([{ text: '' }], { finishReason: reason }, extra));

const start: ChatEvent = { type: 'start', id: 'r1', model: 'gemini-x' };
const done: ChatEvent = { type: 'done' };
const stopped: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'STOP' };

const SIGNATURE = 'EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7IdY8FBMm7Z6dCKFU3Ft0la15g';
const REASONING = "**Planning weather lookups**\n\nI'll call get_weather for Paris and Tokyo.";
const PARIS = {
  index: 0,
  id: 'b36LacjwM668nsEP2tbsgQQ-call-0',
  name: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
  args: { city: 'Paris', unit: 'celsius' },
  // The signature of the call's part goes back with the call.
  providerMetadata: { google: { thoughtSignature: SIGNATURE } },
};
/** The call's signature for the next turn, on call 0, after the reasoning and the content before it. */
const SIGNATURE_ITEM = {
  provider: 'google',
  kind: 'signature',
  type: 'thoughtSignature',
  part: 'tool-call',
  call: 0,
  data: SIGNATURE,
} as const;
const SIGNED = { ...SIGNATURE_ITEM, at: { reasoning: REASONING.length, content: 'Let me check both cities.'.length } };
const TOKYO = {
  index: 1,
  id: 'b36LacjwM668nsEP2tbsgQQ-call-1',
  name: 'get_weather',
  arguments: '{"city":"Tokyo","unit":"celsius"}',
  args: { city: 'Tokyo', unit: 'celsius' },
};

/** The example stream's completion, read off the file by hand. */
const EXAMPLE_COMPLETION: Completion = {
  id: 'b36LacjwM668nsEP2tbsgQQ',
  model: 'gemini-3-flash-preview',
  content: 'Let me check both cities.',
  reasoning: REASONING,
  refusal: null,
  toolCalls: [PARIS, TOKYO],
  finishReason: 'tool_calls',
  rawFinishReason: 'STOP',
  // Usage in OpenAI's meaning: the completion is candidatesTokenCount (41) + thoughtsTokenCount (88).
  usage: { promptTokens: 58, completionTokens: 129, totalTokens: 187, reasoningTokens: 88 },
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
      rawFinishReason: 'STOP',
      reasoningSignatures: [SIGNATURE],
      opaqueItems: [SIGNED],
    },
  ],
};

/** The example stream's events, read off the file by hand. */
const EXAMPLE_EVENTS: ChatEvent[] = [
  { type: 'start', id: 'b36LacjwM668nsEP2tbsgQQ', model: 'gemini-3-flash-preview' },
  { type: 'reasoning', choice: 0, text: REASONING },
  { type: 'usage', usage: { promptTokens: 58, completionTokens: 88, totalTokens: 146, reasoningTokens: 88 } },
  { type: 'content', choice: 0, text: 'Let me check both cities.' },
  { type: 'usage', usage: { promptTokens: 58, completionTokens: 94, totalTokens: 152, reasoningTokens: 88 } },
  { type: 'tool-call-delta', choice: 0, index: 0, id: PARIS.id, name: 'get_weather', arguments: PARIS.arguments },
  { type: 'opaque-item', choice: 0, item: SIGNATURE_ITEM },
  { type: 'provider-metadata', provider: 'google', choice: 0, call: 0, fields: { thoughtSignature: SIGNATURE } },
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'reasoning-signature', choice: 0, signature: SIGNATURE },
  { type: 'tool-call-delta', choice: 0, index: 1, id: TOKYO.id, name: 'get_weather', arguments: TOKYO.arguments },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'usage', usage: { promptTokens: 58, completionTokens: 129, totalTokens: 187, reasoningTokens: 88 } },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'STOP' },
  { type: 'usage', usage: { promptTokens: 58, completionTokens: 129, totalTokens: 187, reasoningTokens: 88 } },
  { type: 'done' },
];

/** A thoughtSignature's opaque item, of the part it goes back with (its data set by each case). */
const signatureItem = (part: 'reasoning' | 'content' | 'tool-call') => ({
  provider: 'google',
  kind: 'signature',
  type: 'thoughtSignature',
  part,
});

describe('gemini dialect', () => {
  exampleStreamSuite({
    dialect: gemini,
    file: 'dialects/gemini-native.sse',
    framing: 'sse',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
  });

  describe('order of events within one chunk', () => {
    it('is start, then per part text, call, its kept fields and end, signature; the finish; then usage; then done', () => {
      const payload = chunk(
        [
          { text: 'R', thought: true, thoughtSignature: 's1' },
          { text: 'C' },
          { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 's2' },
        ],
        { finishReason: 'STOP' },
        { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 } },
      );
      expect(readGemini([frame(payload)])).toEqual({
        events: [
          start,
          { type: 'reasoning', choice: 0, text: 'R' },
          { type: 'reasoning-signature', choice: 0, signature: 's1' },
          { type: 'opaque-item', choice: 0, item: { ...signatureItem('reasoning'), data: 's1' } },
          { type: 'content', choice: 0, text: 'C' },
          { type: 'tool-call-delta', choice: 0, index: 0, id: 'r1-call-0', name: 'f', arguments: '{"a":1}' },
          { type: 'opaque-item', choice: 0, item: { ...signatureItem('tool-call'), call: 0, data: 's2' } },
          { type: 'provider-metadata', provider: 'google', choice: 0, call: 0, fields: { thoughtSignature: 's2' } },
          { type: 'tool-call-end', choice: 0, index: 0 },
          { type: 'reasoning-signature', choice: 0, signature: 's2' },
          { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'STOP' },
          { type: 'usage', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } },
          done,
        ],
      });
    });

    it('emits start once, at the first non-empty responseId, with modelVersion as the model', () => {
      const { events } = readGemini([
        frame({ responseId: '', candidates: [] }),
        frame({ responseId: 'a', modelVersion: 'gemini-2.5-pro', candidates: [] }),
        frame({ responseId: 'b', modelVersion: 'other', candidates: [] }),
        finishing(),
      ]);
      expect(events.filter((e) => e.type === 'start')).toEqual([{ type: 'start', id: 'a', model: 'gemini-2.5-pro' }]);
    });

    it('gives a null model when modelVersion is absent', () => {
      expect(readGemini([frame({ responseId: 'a', candidates: [] }), finishing()]).events[0]).toEqual({
        type: 'start',
        id: 'a',
        model: null,
      });
    });

    it('emits no start when no chunk has a responseId, and the completion id is then ""', () => {
      const { events, completion } = assembleText(
        `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] })}\n\n`,
        gemini,
      );
      expect(events).toEqual([{ type: 'content', choice: 0, text: 'hi' }, stopped, done]);
      expect(completion).toMatchObject({ id: '', model: null, content: 'hi' });
    });
  });

  describe('parts', () => {
    const partEvents = (parts: unknown[]) => readGemini([frame(chunk(parts)), finishing()]).events.slice(1, -2);

    it.each([
      ['text', { text: 'hi' }, [{ type: 'content', choice: 0, text: 'hi' }]],
      ['text with thought: true', { text: 'hmm', thought: true }, [{ type: 'reasoning', choice: 0, text: 'hmm' }]],
      ['text with thought: false', { text: 'hi', thought: false }, [{ type: 'content', choice: 0, text: 'hi' }]],
      ['empty text', { text: '' }, []],
      ['empty thought text', { text: '', thought: true }, []],
      [
        'a signature on an empty text part',
        { text: '', thoughtSignature: 'sig' },
        [
          { type: 'reasoning-signature', choice: 0, signature: 'sig' },
          { type: 'opaque-item', choice: 0, item: { ...signatureItem('content'), data: 'sig' } },
        ],
      ],
      [
        'a signature on a thought part with no text',
        { thought: true, thoughtSignature: 'sig' },
        [
          { type: 'reasoning-signature', choice: 0, signature: 'sig' },
          { type: 'opaque-item', choice: 0, item: { ...signatureItem('reasoning'), data: 'sig' } },
        ],
      ],
      ['an empty signature', { text: 'x', thoughtSignature: '' }, [{ type: 'content', choice: 0, text: 'x' }]],
      [
        'inlineData (not text): a part of a kind the dialect does not read, kept whole',
        { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
        [{ type: 'provider-metadata', provider: 'google', choice: 0, items: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }],
      ],
      [
        'executableCode (code the provider runs itself, never a function call)',
        { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        [
          {
            type: 'provider-tool-call',
            choice: 0,
            call: {
              id: 'code-execution-0',
              name: 'code_execution',
              type: 'executableCode',
              input: { language: 'PYTHON', code: 'print(1)' },
            },
          },
        ],
      ],
      ['an empty part', {}, []],
    ])('maps a part with %s', (_name, part, expected) => {
      expect(partEvents([part])).toEqual(expected);
    });

    it('reads the parts of one chunk in order, and text is appended across chunks (parts are never snapshots)', () => {
      const { completion } = assembleText(
        [chunk([{ text: 'Hel' }, { text: 'lo' }]), chunk([{ text: ', world' }]), chunk([{ text: '' }], { finishReason: 'STOP' })]
          .map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`)
          .join(''),
        gemini,
      );
      expect(completion).toMatchObject({ content: 'Hello, world', finishReason: 'stop', rawFinishReason: 'STOP' });
    });

    it('keeps every signature, in arrival order, for the next turn', () => {
      const { completion } = assembleText(
        [
          chunk([{ text: 'a', thought: true, thoughtSignature: 'one' }]),
          chunk([{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'two' }]),
          chunk([{ text: '', thoughtSignature: 'three' }], { finishReason: 'STOP' }),
        ]
          .map((c) => `data: ${JSON.stringify(c)}\n\n`)
          .join(''),
        gemini,
      );
      expect(completion?.reasoningSignatures).toEqual(['one', 'two', 'three']);
      expect(completion?.choices[0]?.reasoningSignatures).toEqual(['one', 'two', 'three']);
    });

    it('tolerates a candidate without content, content without parts, and parts: null', () => {
      for (const candidate of [{ index: 0 }, { index: 0, content: { role: 'model' } }, { index: 0, content: { parts: null } }]) {
        expect(readGemini([frame({ responseId: 'r1', modelVersion: 'gemini-x', candidates: [candidate] }), finishing()])).toEqual({
          events: [start, stopped, done],
        });
      }
    });
  });

  describe('function calls', () => {
    const calls = (frames: SseFrame[]) =>
      readGemini([...frames, finishing()]).events.filter((e) => e.type === 'tool-call-delta' || e.type === 'tool-call-end');

    it('numbers calls densely in order of arrival, across parts and chunks, and closes each at once', () => {
      expect(
        calls([
          frame(chunk([{ functionCall: { name: 'f', args: { x: 1 } } }, { functionCall: { name: 'g', args: { y: 'two' } } }])),
          frame(chunk([{ functionCall: { name: 'h', args: { z: [true, null] } } }])),
        ]),
      ).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'r1-call-0', name: 'f', arguments: '{"x":1}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'r1-call-1', name: 'g', arguments: '{"y":"two"}' },
        { type: 'tool-call-end', choice: 0, index: 1 },
        { type: 'tool-call-delta', choice: 0, index: 2, id: 'r1-call-2', name: 'h', arguments: '{"z":[true,null]}' },
        { type: 'tool-call-end', choice: 0, index: 2 },
      ]);
    });

    it('keeps the functionCall id when it has one, and synthesizes one for an empty id', () => {
      expect(
        calls([
          frame(chunk([{ functionCall: { id: 'call-a', name: 'f', args: {} } }, { functionCall: { id: '', name: 'g', args: {} } }])),
        ]).filter((e) => e.type === 'tool-call-delta'),
      ).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call-a', name: 'f', arguments: '{}' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'r1-call-1', name: 'g', arguments: '{}' },
      ]);
    });

    it('serializes absent or null args as {}', () => {
      const { completion } = assembleText(
        `data: ${JSON.stringify(
          chunk([{ functionCall: { name: 'now' } }, { functionCall: { name: 'today', args: null } }], { finishReason: 'STOP' }),
        )}\n\n`,
        gemini,
      );
      expect(completion?.toolCalls).toEqual([
        { index: 0, id: 'r1-call-0', name: 'now', arguments: '{}', args: {} },
        { index: 1, id: 'r1-call-1', name: 'today', arguments: '{}', args: {} },
      ]);
    });

    it('uses "gemini" in synthesized ids while no responseId has come', () => {
      const { events } = readGemini([
        frame({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] }, finishReason: 'STOP' }] }),
      ]);
      expect(events[0]).toEqual({ type: 'tool-call-delta', choice: 0, index: 0, id: 'gemini-call-0', name: 'f', arguments: '{}' });
    });

    it('numbers calls per candidate, with the candidate in the synthesized id of candidates other than 0', () => {
      const two = (a: unknown[], b: unknown[], finish?: string) => ({
        responseId: 'r1',
        candidates: [
          { index: 0, content: { parts: a }, ...(finish ? { finishReason: finish } : {}) },
          { index: 1, content: { parts: b }, ...(finish ? { finishReason: finish } : {}) },
        ],
      });
      const { events } = readGemini([
        frame(two([{ functionCall: { name: 'f', args: {} } }], [{ functionCall: { name: 'g', args: {} } }])),
        frame(two([], [{ functionCall: { name: 'h', args: {} } }], 'STOP')),
      ]);
      expect(events.filter((e) => e.type === 'tool-call-delta')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'r1-call-0', name: 'f', arguments: '{}' },
        { type: 'tool-call-delta', choice: 1, index: 0, id: 'r1-choice-1-call-0', name: 'g', arguments: '{}' },
        { type: 'tool-call-delta', choice: 1, index: 1, id: 'r1-choice-1-call-1', name: 'h', arguments: '{}' },
      ]);
    });
  });

  describe('finish reasons and the end of the stream', () => {
    it.each([
      ['STOP', 'stop'],
      ['MAX_TOKENS', 'length'],
      ['SAFETY', 'content_filter'],
      ['RECITATION', 'content_filter'],
      ['BLOCKLIST', 'content_filter'],
      ['PROHIBITED_CONTENT', 'content_filter'],
      ['SPII', 'content_filter'],
      ['IMAGE_SAFETY', 'content_filter'],
      ['MALFORMED_FUNCTION_CALL', 'error'],
      ['OTHER', 'other'],
      ['LANGUAGE', 'other'],
      ['FINISH_REASON_UNSPECIFIED', 'other'],
    ])('normalizes %s to %s, keeping the raw value', (raw, reason) => {
      expect(readGemini([finishing(raw)])).toEqual({ events: [start, { type: 'finish', choice: 0, reason, raw }, done] });
    });

    it('normalizes STOP to tool_calls when the candidate made calls (Gemini has no tool-call reason)', () => {
      const { events } = readGemini([frame(chunk([{ functionCall: { name: 'f', args: {} } }])), finishing()]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'STOP' });
    });

    it('does not make MAX_TOKENS tool_calls even with calls', () => {
      const { events } = readGemini([frame(chunk([{ functionCall: { name: 'f', args: {} } }])), finishing('MAX_TOKENS')]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'length', raw: 'MAX_TOKENS' });
    });

    it('ends at the chunk with the finishReason, reading its text first, and ignores frames after it', () => {
      const { events, error } = readGemini([
        frame(chunk([{ text: 'last words' }], { finishReason: 'STOP' })),
        frame(chunk([{ text: 'ignored' }])),
        frame('[DONE]'),
      ]);
      expect(error).toBeUndefined();
      expect(events).toEqual([start, { type: 'content', choice: 0, text: 'last words' }, stopped, done]);
    });

    it('under strict, is a ProtocolError for a frame after the finish chunk', () => {
      const { error } = readGemini([finishing(), frame(chunk([{ text: 'late' }]))], { strict: true });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe('frame 2: a frame arrived after the chunk that finished the stream');
    });

    it('with two candidates, ends only once both have finished', () => {
      const candidate = (index: number, text: string, finishReason?: string) => ({
        index,
        content: { parts: [{ text }] },
        ...(finishReason ? { finishReason } : {}),
      });
      const { events } = readGemini([
        frame({ responseId: 'r1', modelVersion: 'gemini-x', candidates: [candidate(0, 'a', 'STOP'), candidate(1, 'b')] }),
        frame({ responseId: 'r1', modelVersion: 'gemini-x', candidates: [candidate(1, 'c', 'MAX_TOKENS')] }),
      ]);
      expect(events).toEqual([
        start,
        { type: 'content', choice: 0, text: 'a' },
        stopped,
        { type: 'content', choice: 1, text: 'b' },
        { type: 'content', choice: 1, text: 'c' },
        { type: 'finish', choice: 1, reason: 'length', raw: 'MAX_TOKENS' },
        done,
      ]);
    });

    it('finishes candidate 0 with the block reason when the prompt was blocked (no candidates)', () => {
      const blocked = {
        promptFeedback: { blockReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'HIGH' }] },
        usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
        modelVersion: 'gemini-x',
        responseId: 'r1',
      };
      const { events, completion } = assembleText(`data: ${JSON.stringify(blocked)}\r\n\r\n`, gemini);
      expect(events).toEqual([
        start,
        { type: 'finish', choice: 0, reason: 'content_filter', raw: 'SAFETY' },
        { type: 'usage', usage: { promptTokens: 9, completionTokens: null, totalTokens: 9 } },
        // The feedback is kept whole: its safety ratings have no field of their own.
        { type: 'provider-metadata', provider: 'google', fields: { promptFeedback: blocked.promptFeedback } },
        done,
      ]);
      expect(completion).toMatchObject({ content: null, finishReason: 'content_filter', rawFinishReason: 'SAFETY' });
      expect(completion!.providerMetadata).toEqual({ google: { promptFeedback: blocked.promptFeedback } });
    });

    it('finishes nothing for promptFeedback without a blockReason (it rides on ordinary chunks too), and keeps it', () => {
      const { events } = readGemini([frame(chunk([{ text: 'x' }], {}, { promptFeedback: { safetyRatings: [] } })), finishing()]);
      expect(events).toEqual([
        start,
        { type: 'content', choice: 0, text: 'x' },
        { type: 'provider-metadata', provider: 'google', fields: { promptFeedback: { safetyRatings: [] } } },
        stopped,
        done,
      ]);
    });
  });

  describe('usage', () => {
    it('reports every usageMetadata snapshot, and the last value of each field wins', () => {
      const { events, completion } = assembleText(
        [
          chunk([{ text: 'a' }], {}, { usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 } }),
          chunk([{ text: 'b' }], {}, { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 } }),
          chunk(
            [{ text: '' }],
            { finishReason: 'STOP' },
            { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } },
          ),
        ]
          .map((c) => `data: ${JSON.stringify(c)}\n\n`)
          .join(''),
        gemini,
      );
      expect(events.filter((e) => e.type === 'usage')).toEqual([
        { type: 'usage', usage: { promptTokens: 10, completionTokens: null, totalTokens: 10 } },
        { type: 'usage', usage: { promptTokens: 10, completionTokens: 1, totalTokens: 11 } },
        { type: 'usage', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 } },
      ]);
      expect(completion?.usage).toEqual({ promptTokens: 10, completionTokens: 2, totalTokens: 12 });
    });

    it('counts the thinking in the completion, maps cachedContentTokenCount, and ignores the per-modality details', () => {
      const usageMetadata = {
        promptTokenCount: 100,
        candidatesTokenCount: 20,
        totalTokenCount: 150,
        cachedContentTokenCount: 64,
        thoughtsTokenCount: 30,
        toolUsePromptTokenCount: 5,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 100 }],
        cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 64 }],
      };
      expect(readGemini([finishing('STOP', { usageMetadata })]).events).toContainEqual({
        type: 'usage',
        usage: { promptTokens: 100, completionTokens: 50, totalTokens: 150, cachedPromptTokens: 64, reasoningTokens: 30 },
      });
    });

    it("reads usage in OpenAI's meaning from a stream: all output in the completion, the provider's own total", () => {
      // usageMetadata: promptTokenCount "includes the number of tokens in the cached content",
      // cachedContentTokenCount is that cached part, candidatesTokenCount the answer, thoughtsTokenCount
      // the thinking, and totalTokenCount also counts toolUsePromptTokenCount (here 1200 + 4 + 312 + 8).
      // A count of 0 is left out of the JSON (candidatesTokenCount in the first chunk).
      // https://ai.google.dev/api/generate-content#UsageMetadata
      const stream =
        'data: {"candidates":[{"content":{"parts":[{"text":"Adding it up.","thought":true}],"role":"model"},"index":0}],' +
        '"usageMetadata":{"promptTokenCount":1200,"totalTokenCount":1520,"cachedContentTokenCount":1024,"thoughtsTokenCount":312,' +
        '"toolUsePromptTokenCount":8},"modelVersion":"gemini-2.5-flash","responseId":"u-1"}\r\n\r\n' +
        'data: {"candidates":[{"content":{"parts":[{"text":"Forty-two."}],"role":"model"},"finishReason":"STOP","index":0}],' +
        '"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":4,"totalTokenCount":1524,"cachedContentTokenCount":1024,' +
        '"thoughtsTokenCount":312,"toolUsePromptTokenCount":8,"promptTokensDetails":[{"modality":"TEXT","tokenCount":1200}]},' +
        '"modelVersion":"gemini-2.5-flash","responseId":"u-1"}\r\n\r\n';
      const whole = assembleText(stream, gemini);
      for (const chunkSize of [1, 3, 7, 64]) expect(assembleText(stream, gemini, { chunkSize })).toEqual(whole);
      expect(whole.events.filter((e) => e.type === 'usage')).toEqual([
        {
          type: 'usage',
          usage: { promptTokens: 1200, completionTokens: 312, totalTokens: 1520, cachedPromptTokens: 1024, reasoningTokens: 312 },
        },
        {
          type: 'usage',
          usage: { promptTokens: 1200, completionTokens: 316, totalTokens: 1524, cachedPromptTokens: 1024, reasoningTokens: 312 },
        },
      ]);
      expect(whole.completion?.usage).toEqual({
        promptTokens: 1200,
        completionTokens: 316,
        totalTokens: 1524,
        cachedPromptTokens: 1024,
        reasoningTokens: 312,
      });
    });

    it('keeps the text, the usage and the finish of a plain reply cut by the token limit (MAX_TOKENS is length)', () => {
      // FinishReason MAX_TOKENS: "the maximum number of tokens as specified in the request was reached".
      // https://ai.google.dev/api/generate-content#FinishReason
      const stream =
        'data: {"candidates":[{"content":{"parts":[{"text":"One, two,"}],"role":"model"},"index":0}],"usageMetadata":' +
        '{"promptTokenCount":9,"candidatesTokenCount":3,"totalTokenCount":12},' +
        '"modelVersion":"gemini-2.5-flash","responseId":"m-1"}\r\n\r\n' +
        'data: {"candidates":[{"content":{"parts":[{"text":" three"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],' +
        '"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"totalTokenCount":20,"thoughtsTokenCount":7},' +
        '"modelVersion":"gemini-2.5-flash","responseId":"m-1"}\r\n\r\n';
      const whole = assembleText(stream, gemini);
      for (const chunkSize of [1, 3, 7, 64]) expect(assembleText(stream, gemini, { chunkSize })).toEqual(whole);
      expect(whole.error).toBeUndefined();
      expect(whole.completion).toMatchObject({
        content: 'One, two, three',
        toolCalls: [],
        finishReason: 'length',
        rawFinishReason: 'MAX_TOKENS',
        usage: { promptTokens: 9, completionTokens: 11, totalTokens: 20, reasoningTokens: 7 },
      });
      expect(whole.completion?.incompleteToolCalls).toBeUndefined();
    });

    it('makes no usage event for a chunk without usageMetadata, with usageMetadata: null, or with no counts in it', () => {
      for (const extra of [{}, { usageMetadata: null }, { usageMetadata: { promptTokensDetails: [] } }]) {
        expect(readGemini([finishing('STOP', extra)]).events).toEqual([start, stopped, done]);
      }
    });
  });

  describe('unknown events and fields', () => {
    it('with unknownEvents, passes on nothing of a stream whose parts and chunks it all reads', () => {
      const bytes = readBytes(EXAMPLE);
      expect(assembleBytes(bytes, gemini, { dialect: { unknownEvents: true } }).events).toEqual(EXAMPLE_EVENTS);
    });

    it('reads a chunk with unknown fields at every level as one without, and keeps each where it arrived', () => {
      const noisy = {
        candidates: [
          {
            content: { parts: [{ text: 'hi', novel: 1 }, { functionCall: { name: 'f', args: { a: 1 }, extra: true } }], role: 'model' },
            finishReason: 'STOP',
            index: 0,
            safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
            groundingMetadata: {},
            finishMessage: 'ok',
          },
        ],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3, trafficType: 'ON_DEMAND' },
        modelVersion: 'gemini-x',
        responseId: 'r1',
        createTime: '2026-01-01T00:00:00Z',
      };
      const plain = {
        candidates: [
          { content: { parts: [{ text: 'hi' }, { functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 },
        modelVersion: 'gemini-x',
        responseId: 'r1',
      };
      const noisyResult = readGemini([frame(noisy)]);
      expect(noisyResult.error).toBeUndefined();
      const kept = (fields: Record<string, unknown>, place: { choice?: number; call?: number } = {}): ChatEvent =>
        ({ type: 'provider-metadata', provider: 'google', ...place, fields }) as ChatEvent;
      const plainResult = readGemini([frame(plain)]);
      expect(plainResult.error).toBeUndefined();
      const [begin, content, callDelta, callEnd, finish, usage, end, ...more] = plainResult.events;
      expect(more).toEqual([]);
      expect(noisyResult.events).toEqual([
        begin,
        kept({ safetyRatings: noisy.candidates[0]!.safetyRatings, finishMessage: 'ok' }, { choice: 0 }),
        content,
        kept({ novel: 1 }, { choice: 0 }),
        callDelta,
        kept({ extra: true }, { choice: 0, call: 0 }),
        callEnd,
        // finishMessage is also read: the finish details come just before the finish they explain.
        { type: 'finish-details', choice: 0, details: { message: 'ok' } },
        finish,
        usage,
        kept({ createTime: '2026-01-01T00:00:00Z' }),
        end,
      ]);
    });

    it('treats a chunk with no candidates and no block reason as carrying nothing but its usage', () => {
      expect(readGemini([frame({ responseId: 'r1', modelVersion: 'gemini-x' }), finishing()]).events).toEqual([start, stopped, done]);
    });

    it('defaults a missing candidate index to 0', () => {
      const { events } = readGemini([
        frame({ responseId: 'r1', modelVersion: 'gemini-x', candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }] }),
      ]);
      expect(events).toEqual([start, { type: 'content', choice: 0, text: 'x' }, stopped, done]);
    });
  });

  describe('errors', () => {
    const unavailable = { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } };

    it('is a ProviderError for {"error": {code, message, status}}, with the message, the status as type, and the code', () => {
      const { error } = readGemini([frame(chunk([{ text: 'x' }])), frame(unavailable)]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider reported an error at frame 2: The model is overloaded. Please try again later. (UNAVAILABLE, code 503)',
        type: 'UNAVAILABLE',
        code: 503,
        position: { event: 2 },
        body: unavailable,
      });
    });

    it('is a ProviderError for the error body wrapped in an array, and for an event: error frame', () => {
      const wrapped = readGemini([frame([{ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }])]).error;
      expect(wrapped).toBeInstanceOf(ProviderError);
      expect(wrapped).toMatchObject({ type: 'RESOURCE_EXHAUSTED', code: 429 });
      const named = readGemini([frame({ message: 'internal' }, 'error')]).error;
      expect(named).toBeInstanceOf(ProviderError);
      expect((named as ProviderError).message).toBe('the provider reported an error at frame 1: internal');
    });

    it('keeps what arrived before a mid-stream error as the partial', () => {
      const text = [chunk([{ text: 'Partial answer' }]), unavailable].map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');
      const { error } = assembleText(text, gemini);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ type: 'UNAVAILABLE', partial: { id: 'r1', content: 'Partial answer', finishReason: null } });
    });

    it('is a ProtocolError for data that is not JSON, or not an object', () => {
      expect((readGemini([frame('{"candidates":')]).error as ProtocolError).message).toBe(
        'frame 1: data is not JSON: "{\\"candidates\\":"',
      );
      expect((readGemini([frame('[1,2]')]).error as ProtocolError).message).toBe('frame 1: expected a JSON object, got "[1,2]"');
      expect(readGemini([frame('42')]).error).toBeInstanceOf(ProtocolError);
      expect(readGemini([frame('[DONE]')]).error).toBeInstanceOf(ProtocolError);
    });

    it.each([
      ['candidates as an object', { candidates: {} }, 'frame 1: candidates is not an array'],
      ['a candidate that is not an object', { candidates: [7] }, 'frame 1: candidates[0] is not an object'],
      ['a negative candidate index', { candidates: [{ index: -1 }] }, 'frame 1: candidates[0].index is -1, not a candidate index'],
      ['content as a string', { candidates: [{ content: 'hi' }] }, 'frame 1: candidates[0].content is not an object'],
      ['parts as an object', { candidates: [{ content: { parts: {} } }] }, 'frame 1: candidates[0].content.parts is not an array'],
      [
        'a part that is a string',
        { candidates: [{ content: { parts: ['hi'] } }] },
        'frame 1: candidates[0].content.parts[0] is not an object',
      ],
      [
        'text as a number',
        { candidates: [{ content: { parts: [{ text: 5 }] } }] },
        'frame 1: candidates[0].content.parts[0].text is 5, not text',
      ],
      [
        'thoughtSignature as a number',
        { candidates: [{ content: { parts: [{ thoughtSignature: 1 }] } }] },
        'frame 1: candidates[0].content.parts[0].thoughtSignature is 1, not text',
      ],
      [
        'functionCall as a string',
        { candidates: [{ content: { parts: [{ functionCall: 'f()' }] } }] },
        'frame 1: candidates[0].content.parts[0].functionCall is not an object',
      ],
      [
        'a functionCall without a name',
        { candidates: [{ content: { parts: [{ functionCall: { args: {} } }] } }] },
        'frame 1: candidates[0].content.parts[0].functionCall.name is missing, not a function name',
      ],
      [
        'args as a string',
        { candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: '{"a":1}' } }] } }] },
        'frame 1: candidates[0].content.parts[0].functionCall.args is "{\\"a\\":1}", not an object',
      ],
      [
        'args as an array',
        { candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: [1] } }] } }] },
        'frame 1: candidates[0].content.parts[0].functionCall.args is an array, not an object',
      ],
      ['finishReason as a number', { candidates: [{ finishReason: 1 }] }, 'frame 1: candidates[0].finishReason is 1'],
      ['an empty finishReason', { candidates: [{ finishReason: '' }] }, 'frame 1: candidates[0].finishReason is ""'],
      ['usageMetadata as a number', { usageMetadata: 5 }, 'frame 1: usageMetadata is not an object'],
      ['blockReason as a number', { promptFeedback: { blockReason: 2 } }, 'frame 1: promptFeedback.blockReason is 2'],
    ])('is a ProtocolError for %s', (_name, payload, message) => {
      const { error } = readGemini([frame(payload)]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ message, position: { event: 1 } });
    });
  });

  describe('truncation', () => {
    const example = new TextDecoder().decode(readBytes(EXAMPLE));
    /** The example's four events, each without its blank line. */
    const events = example.split('\n\n').filter((block) => block !== '');
    const reasoning = "**Planning weather lookups**\n\nI'll call get_weather for Paris and Tokyo.";
    const calls = [
      {
        index: 0,
        id: 'b36LacjwM668nsEP2tbsgQQ-call-0',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit":"celsius"}',
        args: { city: 'Paris', unit: 'celsius' },
        complete: true,
      },
      {
        index: 1,
        id: 'b36LacjwM668nsEP2tbsgQQ-call-1',
        name: 'get_weather',
        arguments: '{"city":"Tokyo","unit":"celsius"}',
        args: { city: 'Tokyo', unit: 'celsius' },
        complete: true,
      },
    ];

    it('has four events to cut', () => {
      expect(events).toHaveLength(4);
    });

    it('is a StreamClosedEarlyError when the stream ends before the finish chunk, with the calls that came', () => {
      const { error } = assembleText(
        events
          .slice(0, 3)
          .map((block) => `${block}\n\n`)
          .join(''),
        gemini,
      );
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({
        message: 'the stream ended without a finishReason after 3 frames',
        position: { event: 3 },
        partial: {
          id: 'b36LacjwM668nsEP2tbsgQQ',
          model: 'gemini-3-flash-preview',
          content: 'Let me check both cities.',
          reasoning,
          toolCalls: calls,
          finishReason: null,
          usage: { promptTokens: 58, completionTokens: 129, totalTokens: 187, reasoningTokens: 88 },
        },
      });
    });

    it('is a StreamClosedEarlyError when the last event is whole but its blank line and the finish chunk never came (mid-event)', () => {
      const { error } = assembleText(`${events.slice(0, 3).join('\n\n')}\n`, gemini);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({
        message: 'the stream ended without a finishReason after 3 frames',
        partial: { toolCalls: calls, finishReason: null },
      });
    });

    it('is a StreamClosedEarlyError when the stream ends mid-line, inside the tool arguments', () => {
      const cut = example.slice(0, example.indexOf('"Tokyo"') + 3);
      const { error, events: emitted } = assembleText(cut, gemini);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toMatch(/^the stream ended mid-line/);
      expect(error).toMatchObject({ partial: { content: 'Let me check both cities.', reasoning, toolCalls: [], finishReason: null } });
      expect(emitted.some((e) => e.type === 'tool-call-delta')).toBe(false);
    });

    it('is a StreamClosedEarlyError when the stream ends mid-line inside the finish chunk, before its finishReason', () => {
      const cut = example.slice(0, example.indexOf('"finishReason"'));
      const { error } = assembleText(cut, gemini);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ partial: { toolCalls: calls, finishReason: null } });
    });

    it('still ends at the finish chunk when a CRLF stream is cut right after the CR of its last line', () => {
      const crlf = example.replace(/\n/g, '\r\n');
      expect(crlf.endsWith('}\r\n\r\n')).toBe(true);
      const { error, completion } = assembleText(crlf.slice(0, crlf.length - 3), gemini); // ends in "}\r"
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ finishReason: 'tool_calls', rawFinishReason: 'STOP' });
    });

    it('is a StreamClosedEarlyError for an empty stream', () => {
      const { error } = assembleText('', gemini);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without a finishReason after 0 frames');
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps frames to events and completes at the end of the source after the finish chunk', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a----b----f------|', {
          a: frame(chunk([{ text: 'Hi', thought: true }])),
          b: frame(chunk([{ text: 'Hello' }])),
          f: frame(chunk([{ text: '!' }], { finishReason: 'STOP' })),
        });
        const expected = '             -(sr)-c----(xyz)--|';
        expectObservable(source.pipe(assembleChunks({ dialect: gemini }))).toBe(expected, {
          s: start,
          r: { type: 'reasoning', choice: 0, text: 'Hi' },
          c: { type: 'content', choice: 0, text: 'Hello' },
          x: { type: 'content', choice: 0, text: '!' },
          y: stopped,
          z: done,
        });
        expectSubscriptions(source.subscriptions).toBe('^-----------------!');
      });
    });

    it('keeps two candidates apart when their calls interleave', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const call = (index: number, name: string, finishReason?: string) =>
          frame({
            responseId: 'r1',
            modelVersion: 'gemini-x',
            candidates: [
              { index, content: { parts: [{ functionCall: { name, args: { n: name } } }] }, ...(finishReason ? { finishReason } : {}) },
            ],
          });
        const source = cold<SseFrame>('-a-----b-----c--------d--------|', {
          a: call(0, 'f'),
          b: call(1, 'g'),
          c: call(0, 'h', 'STOP'),
          d: call(1, 'k', 'STOP'),
        });
        // A chunk that finishes a candidate with a whole call in it is read at the next frame (or the
        // end): that frame tells whether the server ran the call (server-side MCP, docs/dialects.md).
        const expected = '             -(sde)-(uv)-----------(wxy)----(ABCZ|)';
        expectObservable(source.pipe(assembleChunks({ dialect: gemini }))).toBe(expected, {
          s: start,
          d: { type: 'tool-call-delta', choice: 0, index: 0, id: 'r1-call-0', name: 'f', arguments: '{"n":"f"}' },
          e: { type: 'tool-call-end', choice: 0, index: 0 },
          u: { type: 'tool-call-delta', choice: 1, index: 0, id: 'r1-choice-1-call-0', name: 'g', arguments: '{"n":"g"}' },
          v: { type: 'tool-call-end', choice: 1, index: 0 },
          w: { type: 'tool-call-delta', choice: 0, index: 1, id: 'r1-call-1', name: 'h', arguments: '{"n":"h"}' },
          x: { type: 'tool-call-end', choice: 0, index: 1 },
          y: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'STOP' },
          A: { type: 'tool-call-delta', choice: 1, index: 1, id: 'r1-choice-1-call-1', name: 'k', arguments: '{"n":"k"}' },
          B: { type: 'tool-call-end', choice: 1, index: 1 },
          C: { type: 'finish', choice: 1, reason: 'tool_calls', raw: 'STOP' },
          Z: done,
        });
      });
    });

    it('errors with ProviderError at an error chunk and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a-----e--b--|', {
          a: frame(chunk([{ text: 'x' }])),
          e: frame({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }),
          b: frame(chunk([{ text: 'never' }])),
        });
        const error = new ProviderError('the provider reported an error at frame 2: overloaded (UNAVAILABLE, code 503)');
        expectObservable(source.pipe(assembleChunks({ dialect: gemini }))).toBe(
          '-(sx)--#',
          {
            s: start,
            x: { type: 'content', choice: 0, text: 'x' },
          },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^------!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes before a finish chunk', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a------|', { a: frame(chunk([{ text: 'x' }])) });
        const error = new StreamClosedEarlyError('the stream ended without a finishReason after 1 frame');
        expectObservable(source.pipe(assembleChunks({ dialect: gemini }))).toBe(
          '-(sx)---#',
          {
            s: start,
            x: { type: 'content', choice: 0, text: 'x' },
          },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^-------!');
      });
    });

    it('lets an early unsubscribe reach the source', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const live = hot<SseFrame>('-a--a--|', { a: frame(chunk([{ text: 'x' }])) });
        expectObservable(live.pipe(assembleChunks({ dialect: gemini })), '---!').toBe('-(sx)', {
          s: start,
          x: { type: 'content', choice: 0, text: 'x' },
        });
        expectSubscriptions(live.subscriptions).toBe('^--!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<SseFrame>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(frame(chunk([{ text: String(i) }])));
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(assembleChunks({ dialect: gemini }), take(3)));
      expect(outcome.values).toHaveLength(3);
      expect(produced).toEqual([0, 1]); // start + content "0", then content "1"
    });
  });
});
