import { SseFrame } from '../../src/frames/SseParser';
import { autoDialect } from '../../src/dialects/auto';
import { gemini } from '../../src/dialects/gemini/gemini';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// What gemini keeps of the fields it does not map, and where: the chunk's on the reply, a candidate's
// (its content's, its parts', its grounding's beside the chunks and supports) on the choice, and a
// functionCall part's (its thoughtSignature too) on the call. The chunks follow Google's reference
// (https://ai.google.dev/api/generate-content#generatecontentresponse, and Vertex AI's
// https://cloud.google.com/vertex-ai/docs/reference/rest/v1/GenerateContentResponse): a documented
// field the completion has no place for at every level, and an unknown one beside it.

/** Frames as Gemini's SSE writes them: `data: <chunk>`, CRLF, a blank line. */
const sse = (frames: readonly SseFrame[]): string => frames.map((f) => `data: ${f.data}\r\n\r\n`).join('');

const ENVELOPE = { modelVersion: 'gemini-3-flash-preview', responseId: 'r-1', createTime: '2026-04-02T17:03:50.399550Z', novelEnvelope: 1 };
const RATINGS = [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }];
const CITATIONS = { citationSources: [{ startIndex: 0, endIndex: 5, uri: 'https://example.com/q' }] };
const ENTRY_POINT = { renderedContent: '<div class="search"></div>' };

/** A chunk of one candidate (index 0) holding `parts`, with `candidate`'s fields, and `content`'s. */
const chunk = (parts: unknown[], candidate: Record<string, unknown> = {}, content: Record<string, unknown> = {}) =>
  frame({ candidates: [{ content: { role: 'model', parts, ...content }, index: 0, ...candidate }], ...ENVELOPE });

describe('gemini keeps every field it does not map, where it arrived', () => {
  const frames = [
    chunk([{ text: 'Quote', partMetadata: { source: 'kb' } }], { safetyRatings: RATINGS }, { novelContent: 'c' }),
    chunk([{ functionCall: { name: 'lookup', args: { q: 'x' }, novelCall: 2 }, thoughtSignature: 'c2ln', novelPart: 3 }], {
      citationMetadata: CITATIONS,
      groundingMetadata: { webSearchQueries: ['quote'], searchEntryPoint: ENTRY_POINT, groundingChunks: [] },
      urlContextMetadata: { urlMetadata: [], novelUrlContext: 4 },
    }),
    chunk([{ text: '' }], { finishReason: 'STOP', finishMessage: 'done', avgLogprobs: -0.25 }),
  ];
  const REPLY = { google: { createTime: ENVELOPE.createTime, novelEnvelope: 1 } };
  const CHOICE = {
    google: {
      safetyRatings: RATINGS,
      novelContent: 'c',
      partMetadata: { source: 'kb' },
      citationMetadata: CITATIONS,
      webSearchQueries: ['quote'],
      searchEntryPoint: ENTRY_POINT,
      novelUrlContext: 4,
      finishMessage: 'done',
      avgLogprobs: -0.25,
    },
  };
  // The signature goes back with the call on the next turn: it rides with it.
  const CALL = { google: { thoughtSignature: 'c2ln', novelPart: 3, novelCall: 2 } };

  it('on the completion, the choice and the call, whole and at every chunk size, a field every chunk repeats kept once', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events, error } = assembleText(sse(frames), gemini, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.providerMetadata).toEqual(REPLY);
      expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
      expect(completion!.toolCalls[0]!.providerMetadata).toEqual(CALL);
      // The signature is the choice's reasoning signature as before, too.
      expect(completion!.reasoningSignatures).toEqual(['c2ln']);
      expect(events.filter((event) => event.type === 'provider-metadata' && event.choice === undefined)).toHaveLength(1);
    }
  });

  it('the same under auto', () => {
    const { completion, error } = complete(autoDialect, frames);
    expect(error).toBeUndefined();
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual(CALL);
  });

  it('on the tool-call event that groupToolCallsByIndex emits, as on the completion', () => {
    const events = groupedEvents(sse(frames), gemini);
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: { index: 0, id: 'r-1-call-0', name: 'lookup', arguments: '{"q":"x"}', args: { q: 'x' }, providerMetadata: CALL },
      },
    ]);
  });

  it("keeps each candidate's fields on its own choice, and each call's on its own call", () => {
    const both = frame({
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'zero' }] },
          index: 0,
          tokenCount: 7,
        },
        {
          content: { role: 'model', parts: [{ functionCall: { name: 'g', args: {} }, thoughtSignature: 'one' }] },
          index: 1,
          tokenCount: 9,
        },
      ],
      ...ENVELOPE,
    });
    const end = frame({
      candidates: [
        { content: { role: 'model', parts: [{ functionCall: { name: 'h', args: {} } }] }, index: 0, finishReason: 'STOP' },
        { content: { role: 'model', parts: [{ text: '' }] }, index: 1, finishReason: 'STOP' },
      ],
      ...ENVELOPE,
    });
    const { completion, error } = assembleText(sse([both, end]), gemini);
    expect(error).toBeUndefined();
    expect(completion!.choices.map((choice) => choice.providerMetadata)).toEqual([
      { google: { tokenCount: 7 } },
      { google: { tokenCount: 9 } },
    ]);
    expect(completion!.choices.map((choice) => choice.toolCalls.map((call) => call.providerMetadata))).toEqual([
      [{ google: { thoughtSignature: 'zero' } }, undefined],
      [{ google: { thoughtSignature: 'one' } }],
    ]);
  });

  it("keeps a streamed call's fields on it, from its first part and from the parts that continue it", () => {
    // Vertex AI's streamed arguments: the first part names the call and carries the signature, the
    // next ones continue the same call.
    const streamed = [
      chunk([{ functionCall: { name: 'get_weather', willContinue: true }, thoughtSignature: 'c2ln' }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.city', stringValue: 'Paris' }], willContinue: true, novelCall: 'late' } }]),
      chunk([{ functionCall: {} }]),
      chunk([{ text: '' }], { finishReason: 'STOP' }),
    ];
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(streamed), gemini, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.toolCalls).toEqual([
        {
          index: 0,
          id: 'r-1-call-0',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
          args: { city: 'Paris' },
          providerMetadata: { google: { thoughtSignature: 'c2ln', novelCall: 'late' } },
        },
      ]);
    }
  });

  it('keeps the feedback of a blocked prompt whole on the reply', () => {
    const feedback = { blockReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'HIGH' }] };
    const { completion, error } = complete(gemini, [
      frame({ promptFeedback: feedback, usageMetadata: { promptTokenCount: 9 }, ...ENVELOPE }),
    ]);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ finishReason: 'content_filter', rawFinishReason: 'SAFETY' });
    expect(completion!.providerMetadata).toEqual({ google: { ...REPLY.google, promptFeedback: feedback } });
  });

  it('keeps none for chunks of only the fields it reads', () => {
    const plain = [
      frame({
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ text: 'Hi', thought: true, thoughtSignature: 'c2ln' }, { functionCall: { id: 'fc-1', name: 'f', args: {} } }],
            },
            index: 0,
            groundingMetadata: { groundingChunks: [], groundingSupports: [] },
            urlContextMetadata: { urlMetadata: [] },
          },
        ],
        usageMetadata: { promptTokenCount: 1, trafficType: 'ON_DEMAND' },
        modelVersion: 'm',
        responseId: 'r-1',
      }),
      frame({
        candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0, finishReason: 'STOP' }],
        modelVersion: 'm',
        responseId: 'r-1',
      }),
    ];
    const { completion, error } = complete(gemini, plain);
    expect(error).toBeUndefined();
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('gemini: fields kept from chunks read through a learned shape', () => {
  // Twelve chunks and more of one shape: after two, the parser reads them through a template, and
  // the base skips what it kept already. Each stream would lose a value if a skip were wrong.
  const text = (n: number, candidate: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) =>
    frame({ candidates: [{ content: { role: 'model', parts: [{ text: `w${n} ` }] }, index: 0, ...candidate }], ...ENVELOPE, ...envelope });
  const end = frame({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0, finishReason: 'STOP' }], ...ENVELOPE });

  it('keeps a field every chunk repeats once, where it arrived', () => {
    const frames = [...Array.from({ length: 14 }, (_, n) => text(n, { safetyRatings: RATINGS })), end];
    const { completion, events, error } = assembleText(sse(frames), gemini);
    expect(error).toBeUndefined();
    expect(completion!.providerMetadata).toEqual({ google: { createTime: ENVELOPE.createTime, novelEnvelope: 1 } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ google: { safetyRatings: RATINGS } });
    expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(2);
  });

  it('keeps a field whose value changes in every chunk at its last value, on the reply and on the choice', () => {
    const frames = [...Array.from({ length: 14 }, (_, n) => text(n, { avgLogprobs: -n }, { stamp: `t${n}` })), end];
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(frames), gemini, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.providerMetadata).toEqual({ google: { createTime: ENVELOPE.createTime, novelEnvelope: 1, stamp: 't13' } });
      expect(completion!.choices[0]!.providerMetadata).toEqual({ google: { avgLogprobs: -13 } });
    }
  });

  it("keeps a call part's field on each call when the calls come in chunks of one shape", () => {
    const calls = Array.from({ length: 13 }, (_, n) =>
      chunk([{ functionCall: { name: 'f', args: { n } }, thoughtSignature: n % 2 === 0 ? 'even' : 'odd' }]),
    );
    const { completion, error } = assembleText(sse([...calls, end]), gemini);
    expect(error).toBeUndefined();
    expect(completion!.toolCalls.map((call) => call.providerMetadata)).toEqual(
      Array.from({ length: 13 }, (_, n) => ({ google: { thoughtSignature: n % 2 === 0 ? 'even' : 'odd' } })),
    );
  });
});
