import { readReply, sseOf } from '../support/pipeline';

// Gemini replies whose parts the library dropped or left unread, each written from the types of
// @google/genai (googleapis/js-genai, src/types.ts at 6e9b35c45e21f0d37179a24d29dca01ebed698e6: `Part`
// and the interfaces named above each stream) and read through the README pipeline at 1, 7 and 64-byte
// chunks and whole. The expected values are written here from those types, not printed from the code.

type Part = Record<string, unknown>;

/** A `GenerateContentResponse` of one candidate. */
function chunk(parts: readonly Part[], finishReason?: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason === undefined ? {} : { finishReason }) }],
    ...(finishReason === undefined ? {} : { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 } }),
    modelVersion: 'gemini-3-flash',
    responseId: 'r1',
  };
}

describe('gemini reads every part of a reply (issue 30, B and C)', () => {
  it('reads audioTranscription parts before the last chunk as the transcript of the reply audio', () => {
    // Part.audioTranscription: Transcription {text?, finished?, languageCode?, speakerLabel?, words?};
    // the audio itself is an inlineData part (Blob {data, mimeType}), kept whole as today.
    const audio = { inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAA' } };
    const { completion, error } = readReply(
      sseOf([
        chunk([audio]),
        chunk([{ audioTranscription: { text: 'Hello', finished: false } }]),
        chunk([{ audioTranscription: { text: ' there.', finished: true, languageCode: 'en-US' } }]),
        chunk([], 'STOP'),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ id: 'r1', content: null, finishReason: 'stop', toolCalls: [] });
    expect(completion!.audio).toEqual({ id: null, data: '', transcript: 'Hello there.', expiresAt: null });
    // What else the transcription said stays on the choice; the audio part is kept whole.
    expect(completion!.choices[0]!.providerMetadata).toEqual({ google: { items: [audio], finished: true, languageCode: 'en-US' } });
  });

  it('reads server-side toolCall and toolResponse parts as provider tool calls with their results, in order, finish stop', () => {
    // Part.toolCall: ToolCall {id?, toolType?: ToolType, args?}; Part.toolResponse: ToolResponse {id?,
    // toolType?, response?}. "The client is NOT expected to execute this ToolCall": it echoes both back.
    const { completion, error } = readReply(
      sseOf([
        chunk([{ toolCall: { id: 'tc_1', toolType: 'GOOGLE_SEARCH_WEB', args: { queries: ['rxjs operators'] } } }]),
        chunk([{ toolCall: { id: 'tc_2', toolType: 'URL_CONTEXT', args: { urls: ['https://rxjs.dev'] } } }]),
        chunk([{ toolResponse: { id: 'tc_2', toolType: 'URL_CONTEXT', response: { status: 'ok' } } }]),
        chunk([{ toolResponse: { id: 'tc_1', toolType: 'GOOGLE_SEARCH_WEB', response: { results: 3 } } }]),
        chunk([{ text: 'RxJS has pipeable operators.' }], 'STOP'),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'RxJS has pipeable operators.', finishReason: 'stop', toolCalls: [] });
    expect(completion!.providerToolCalls).toEqual([
      { id: 'tc_1', name: 'GOOGLE_SEARCH_WEB', type: 'toolCall', input: { queries: ['rxjs operators'] }, result: { results: 3 } },
      { id: 'tc_2', name: 'URL_CONTEXT', type: 'toolCall', input: { urls: ['https://rxjs.dev'] }, result: { status: 'ok' } },
    ]);
    expect(completion!.choices[0]).not.toHaveProperty('providerMetadata');
  });
});
