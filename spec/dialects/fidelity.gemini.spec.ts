import { readFileSync } from 'fs';
import { join } from 'path';
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
      {
        id: 'tc_1',
        name: 'GOOGLE_SEARCH_WEB',
        type: 'toolCall',
        input: { queries: ['rxjs operators'] },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { results: 3 },
      },
      {
        id: 'tc_2',
        name: 'URL_CONTEXT',
        type: 'toolCall',
        input: { urls: ['https://rxjs.dev'] },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { status: 'ok' },
      },
    ]);
    expect(completion!.choices[0]).not.toHaveProperty('providerMetadata');
  });
});

/**
 * Server-side MCP (a `mcpServers` tool), as the Gemini API answered googleapis/js-genai's system test
 * "Client Tests server side MCP server ML Dev should call server side MCP server, stream" (commit
 * 6e9b35c45e21f0d37179a24d29dca01ebed698e6), rebuilt as `data:` lines with CRLF in
 * marbles/corpus/gemini/ (SOURCES.md there): the API runs the tool itself and the stream goes on
 * after a first finishReason: the `functionCall` with `STOP` and finishMessage "Model generated
 * function call(s).", then the tool's `functionResponse`, then the answer, then `STOP` again.
 */
describe('gemini reads a server-side MCP reply to its real end (issue 30, C)', () => {
  const recording = readFileSync(
    join(
      __dirname,
      '..',
      '..',
      'marbles',
      'corpus',
      'gemini',
      'js-genai.Client_Tests_server_side_MCP_server_ML_Dev_should_call_server_side_MCP_server-_stream.sse',
    ),
  );
  const text = recording.toString('utf8');
  /** The recorded events, each `data: <json>` and a blank line, CRLF. */
  const events = text.split('\r\n\r\n').filter((event) => event !== '');
  const payloads = events.map((event) => JSON.parse(event.slice('data: '.length)) as Record<string, unknown>);
  /** What the recorded `functionResponse` part carried back. */
  const toolResult = (payloads[1] as { candidates: { content: { parts: { functionResponse: { response: unknown } }[] } }[] }).candidates[0]!
    .content.parts[0]!.functionResponse.response;
  const callArgs = { endDate: '2026-02-02', location: 'New York', startDate: '2026-02-02' };

  it('the recording is the four events of the test, CRLF, the call answered by the server', () => {
    expect(events).toHaveLength(4);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
    expect(toolResult).toMatchObject({ result: expect.stringContaining('"2026-02-02T08:00":"-13°C"') as unknown });
  });

  it('hands the program the answer, finish stop, and the call the server ran as a provider tool call with its result', () => {
    const { completion, error } = readReply(new Uint8Array(recording), 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      id: 'QGiSafzoFOuRjrEPw4nssAI',
      content: 'On February 2nd, 2026, the weather in New York will range from a low of -13°C at 8:00 AM to a high of 0.9°C at 7:00 PM.',
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'STOP',
      // The last chunk's usage: the answer's 101 tokens and 573 of thinking.
      usage: { promptTokens: 22, completionTokens: 674, totalTokens: 820, reasoningTokens: 573 },
    });
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'QGiSafzoFOuRjrEPw4nssAI-server-call-0',
        name: 'weather_server_get_weather',
        type: 'functionCall',
        input: callArgs,
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: toolResult,
      },
    ]);
  });

  it('reads it the same under auto', () => {
    const explicit = readReply(new Uint8Array(recording), 'gemini');
    const auto = readReply(new Uint8Array(recording), 'auto');
    expect(auto.error).toBeUndefined();
    expect(auto.completion).toEqual(explicit.completion);
  });

  it('reads a stream that stops right after the first finish, the call unanswered, as a call for the program (finish tool_calls)', () => {
    const { completion, error } = readReply(`${events[0]!}\r\n\r\n`, 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      content: null,
      toolCalls: [{ index: 0, id: 'QGiSafzoFOuRjrEPw4nssAI-call-0', name: 'weather_server_get_weather', args: callArgs }],
      finishReason: 'tool_calls',
      rawFinishReason: 'STOP',
    });
    expect(completion).not.toHaveProperty('providerToolCalls');
  });

  it.each([
    ['after the functionResponse', 2],
    ['inside the answer', 3],
  ])('refuses the reply cut %s: the answer never finished', (_where, kept) => {
    const { completion, error } = readReply(events.slice(0, kept).join('\r\n\r\n') + '\r\n\r\n', 'gemini');
    expect(completion).toBeUndefined();
    expect((error as Error).name).toBe('StreamClosedEarlyError');
  });

  it('joins each functionResponse to the server-run call it names, by id, else by the earliest call of its name', () => {
    // FunctionCall {id?, name?, args?}; FunctionResponse {id?, name?, response?}: written from @google/genai's types.
    const finishing = (parts: readonly Part[]) => ({
      ...chunk(parts),
      candidates: [{ content: { role: 'model', parts }, index: 0, finishReason: 'STOP' }],
    });
    const { completion, error } = readReply(
      sseOf([
        finishing([
          { functionCall: { id: 'a', name: 'lookup', args: { q: 1 } } },
          { functionCall: { name: 'lookup', args: { q: 2 } } },
          { functionCall: { name: 'lookup', args: { q: 3 } } },
        ]),
        chunk([
          { functionResponse: { name: 'lookup', response: { n: 2 } } },
          { functionResponse: { id: 'a', name: 'lookup', response: { n: 1 } } },
          { functionResponse: { name: 'lookup', response: { n: 3 } } },
        ]),
        chunk([{ text: 'Done.' }], 'STOP'),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Done.', toolCalls: [], finishReason: 'stop' });
    expect(completion!.providerToolCalls).toEqual([
      {
        id: 'a',
        name: 'lookup',
        type: 'functionCall',
        input: { q: 1 },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { n: 1 },
      },
      {
        id: 'r1-server-call-1',
        name: 'lookup',
        type: 'functionCall',
        input: { q: 2 },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { n: 2 },
      },
      {
        id: 'r1-server-call-2',
        name: 'lookup',
        type: 'functionCall',
        input: { q: 3 },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { n: 3 },
      },
    ]);
  });

  it('ends the reply at a trailing [DONE] after the first finish, as the finish of a call for the program', () => {
    const { completion, error } = readReply(`${events[0]!}\r\n\r\ndata: [DONE]\r\n\r\n`, 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ toolCalls: [{ name: 'weather_server_get_weather' }], finishReason: 'tool_calls' });
  });
});

describe('gemini keeps what a finish means (issue 30, F)', () => {
  // FinishReason (@google/genai 3.6, dist/genai.d.ts): each value's doc comment gives its class.
  it.each([
    // "Image generation stopped because the generated images have prohibited content."
    ['IMAGE_PROHIBITED_CONTENT', 'content_filter'],
    // "The generated image may be a recitation from a source."
    ['IMAGE_RECITATION', 'content_filter'],
    // "The model response was blocked by Model Armor."
    ['MODEL_ARMOR', 'content_filter'],
    // "Request was filtered by an escalation rule."
    ['ESCALATION', 'content_filter'],
    // "The tool call generated by the model is invalid."
    ['UNEXPECTED_TOOL_CALL', 'error'],
    // "Model called too many tools consecutively, thus the system exited execution."
    ['TOO_MANY_TOOL_CALLS', 'error'],
    // "Request has at least one thought signature missing."
    ['MISSING_THOUGHT_SIGNATURE', 'error'],
    // "Finishes due to malformed response."
    ['MALFORMED_RESPONSE', 'error'],
  ])('reads finishReason %s as %s, the raw value kept', (raw, normalized) => {
    const { completion, error } = readReply(sseOf([chunk([{ text: 'Partial' }]), chunk([], raw)]), 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ finishReason: normalized, rawFinishReason: raw });
  });

  it('reads Candidate.finishMessage as the finish details message', () => {
    // Candidate.finishMessage: "Describes the reason the model stopped generating tokens in more detail."
    const last = chunk([], 'MALFORMED_FUNCTION_CALL');
    (last['candidates'] as Record<string, unknown>[])[0]!['finishMessage'] = 'Malformed function call: print(default_api.f(x=))';
    const { completion, error } = readReply(sseOf([chunk([{ text: 'Let me call it.' }]), last]), 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ finishReason: 'error', rawFinishReason: 'MALFORMED_FUNCTION_CALL' });
    expect(completion!.finishDetails).toEqual({ message: 'Malformed function call: print(default_api.f(x=))' });
    expect(completion!.choices[0]!.finishDetails).toEqual({ message: 'Malformed function call: print(default_api.f(x=))' });
    // As it came, too: the raw field stays in the open reply.
    expect(completion!.choices[0]!.providerMetadata).toEqual({
      google: { finishMessage: 'Malformed function call: print(default_api.f(x=))' },
    });
  });
});

describe('gemini reads log probabilities (issue 30, F)', () => {
  it("reads each chunk's logprobsResult as the choice's logprobs, in OpenAI's shape; avgLogprobs stays in the open reply", () => {
    // Candidate.logprobsResult: LogprobsResult {chosenCandidates?: LogprobsResultCandidate[] ({logProbability?,
    // token?, tokenId?}), topCandidates?: LogprobsResultTopCandidates[] ({candidates?}), logProbabilitySum?};
    // Candidate.avgLogprobs: "Average log probability score of the candidate."
    const withLogprobs = (text: string, chosen: [string, number][], top: [string, number][][], finishReason?: string) => {
      const body = chunk([{ text }], finishReason);
      const candidate = (body['candidates'] as Record<string, unknown>[])[0]!;
      candidate['logprobsResult'] = {
        chosenCandidates: chosen.map(([token, logProbability], i) => ({ token, logProbability, tokenId: 100 + i })),
        topCandidates: top.map((list) => ({ candidates: list.map(([token, logProbability]) => ({ token, logProbability, tokenId: 7 })) })),
      };
      if (finishReason !== undefined) candidate['avgLogprobs'] = -0.2;
      return body;
    };
    const { completion, error } = readReply(
      sseOf([
        withLogprobs(
          'Hi',
          [['Hi', -0.1]],
          [
            [
              ['Hi', -0.1],
              ['Hey', -2.5],
            ],
          ],
        ),
        withLogprobs(' there', [[' there', -0.3]], [[[' there', -0.3]]], 'STOP'),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Hi there', finishReason: 'stop' });
    expect(completion!.logprobs).toEqual({
      content: [
        {
          token: 'Hi',
          logprob: -0.1,
          bytes: null,
          top_logprobs: [
            { token: 'Hi', logprob: -0.1, bytes: null },
            { token: 'Hey', logprob: -2.5, bytes: null },
          ],
        },
        { token: ' there', logprob: -0.3, bytes: null, top_logprobs: [{ token: ' there', logprob: -0.3, bytes: null }] },
      ],
      refusal: null,
    });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ google: { avgLogprobs: -0.2 } });
  });
});

describe('gemini reads the sources a reply quotes (issue 30, F)', () => {
  it('reads citationMetadata.citations as sources, each with the span it quotes; the metadata stays whole in the open reply', () => {
    // Candidate.citationMetadata: CitationMetadata {citations?: Citation[]}; Citation {startIndex?, endIndex?,
    // uri?, title?, license?, publicationDate?} (@google/genai 3.6, dist/genai.d.ts): "the model directly
    // quotes, at length, from another source". Its offsets count bytes of the reply's UTF-8 text, as a
    // grounding segment's do: "Né: " is 5 bytes and 4 UTF-16 units, so bytes 5..10 are units 4..9.
    const citationMetadata = {
      citations: [
        { startIndex: 5, endIndex: 10, uri: 'https://example.com/hamlet', title: 'Hamlet', license: 'public domain' },
        { title: 'A printed book' },
        { license: 'none' },
      ],
    };
    const last = chunk([{ text: 'to be' }], 'STOP');
    (last['candidates'] as Record<string, unknown>[])[0]!['citationMetadata'] = citationMetadata;
    const { completion, error } = readReply(sseOf([chunk([{ text: 'Né: ' }]), last]), 'gemini');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Né: to be', finishReason: 'stop' });
    expect(completion!.sources).toEqual([
      { kind: 'url', url: 'https://example.com/hamlet', title: 'Hamlet', span: { start: 4, end: 9 } },
      { kind: 'document', title: 'A printed book' },
    ]);
    expect(completion!.choices[0]!.sources).toEqual(completion!.sources);
    expect(completion!.choices[0]!.providerMetadata).toEqual({ google: { citationMetadata } });
  });

  it('reads a citation repeated on a later chunk once', () => {
    const citationMetadata = { citations: [{ uri: 'https://example.com/a', title: 'A' }] };
    const first = chunk([{ text: 'One. ' }]);
    const last = chunk([{ text: 'Two.' }], 'STOP');
    for (const body of [first, last]) (body['candidates'] as Record<string, unknown>[])[0]!['citationMetadata'] = citationMetadata;
    const { completion, error } = readReply(sseOf([first, last]), 'gemini');
    expect(error).toBeUndefined();
    expect(completion!.sources).toEqual([{ kind: 'url', url: 'https://example.com/a', title: 'A' }]);
  });
});

describe('gemini keeps what Google requires an app to show with Search grounding (issue 30, F)', () => {
  // GroundingMetadata {webSearchQueries?: string[], searchEntryPoint?: SearchEntryPoint {renderedContent?:
  // string, sdkBlob?: string}, groundingChunks?, groundingSupports?}; Google's terms for Grounding with
  // Google Search require an app to display the search suggestions (`renderedContent`, HTML and CSS) as
  // they come. An app finds them on the choice: providerMetadata.google.searchEntryPoint and
  // .webSearchQueries.
  const RENDERED =
    '<style>\n.container { align-items: center; border-radius: 999px; }\n.chip::after { content: "\\201C"; }\n</style>\n' +
    '<div class="container">\n  <a class="chip" href="https://www.google.com/search?q=euro+2024+winner&amp;client=app">euro 2024 winner — résultat 🏆</a>\n</div>\n';
  const grounded = (metadata: Record<string, unknown>, parts: readonly Part[], finishReason?: string) => {
    const base = chunk(parts, finishReason);
    const [candidate] = base['candidates'] as Array<Record<string, unknown>>;
    return { ...base, candidates: [{ ...candidate, groundingMetadata: metadata }] };
  };

  it('keeps renderedContent and webSearchQueries exactly, on the choice, at every chunking', () => {
    const { completion, error } = readReply(
      sseOf([
        chunk([{ text: 'Spain won ' }]),
        grounded(
          {
            webSearchQueries: ['euro 2024 winner'],
            searchEntryPoint: { renderedContent: RENDERED },
            groundingChunks: [{ web: { uri: 'https://vertexaisearch.example/1', title: 'uefa.com' } }],
            groundingSupports: [{ segment: { startIndex: 0, endIndex: 9, text: 'Spain won' }, groundingChunkIndices: [0] }],
          },
          [{ text: 'Euro 2024.' }],
          'STOP',
        ),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    expect(completion!.content).toBe('Spain won Euro 2024.');
    const google = completion!.choices[0]!.providerMetadata!['google']!;
    expect(google['searchEntryPoint']).toEqual({ renderedContent: RENDERED });
    expect(google['webSearchQueries']).toEqual(['euro 2024 winner']);
  });

  it('keeps the queries of every chunk when two chunks each carry groundingMetadata, each query once', () => {
    // Whether a later chunk's list repeats the earlier queries or holds only new ones, no query is lost.
    const { completion, error } = readReply(
      sseOf([
        grounded({ webSearchQueries: ['euro 2024 winner'] }, [{ text: 'Spain won Euro 2024' }]),
        grounded(
          { webSearchQueries: ['euro 2024 final score', 'euro 2024 winner'], searchEntryPoint: { renderedContent: RENDERED } },
          [{ text: ', 2-1.' }],
          'STOP',
        ),
      ]),
      'gemini',
    );
    expect(error).toBeUndefined();
    const google = completion!.choices[0]!.providerMetadata!['google']!;
    expect(google['webSearchQueries']).toEqual(['euro 2024 winner', 'euro 2024 final score']);
    expect(google['searchEntryPoint']).toEqual({ renderedContent: RENDERED });
  });
});
