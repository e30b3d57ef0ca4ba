import { gemini } from '../../src/dialects/gemini/gemini';
import { ProtocolError } from '../../src/errors/errors';
import { ChatEvent, Source } from '../../src/types/events';
import { Assembled, assembleText } from '../support/dialect';

/** Frames as Gemini's SSE writes them: `data: <chunk>`, CRLF, a blank line. */
const sse = (...chunks: string[]): string => chunks.map((chunk) => `data: ${chunk}\r\n\r\n`).join('');

/** Assembles a stream whole and cut at several sizes: every cut must give what the whole gives. */
function assembleEverywhere(text: string, options: Parameters<typeof assembleText>[2] = {}): Assembled {
  const whole = assembleText(text, gemini, options);
  for (const chunkSize of [1, 2, 3, 5, 8, 13, 64]) {
    expect({ chunkSize, ...assembleText(text, gemini, { ...options, chunkSize }) }).toEqual({ chunkSize, ...whole });
  }
  return whole;
}

const TAIL = '"modelVersion":"gemini-2.5-flash","responseId":"g-1"}';
const START: ChatEvent = { type: 'start', id: 'g-1', model: 'gemini-2.5-flash' };
const sourcesOf = (events: readonly ChatEvent[]) => events.flatMap((event) => (event.type === 'source' ? [event.source] : []));

describe('gemini dialect: grounding as sources', () => {
  // Grounding with Google Search: the candidate's `groundingMetadata` holds `webSearchQueries`,
  // `searchEntryPoint`, `groundingChunks: [{web: {uri, title}}]` and `groundingSupports: [{segment:
  // {startIndex, endIndex, text}, groundingChunkIndices}]`; the segment's indices are "measured in
  // bytes", "offset from the start of the Part" (startIndex inclusive, endIndex exclusive), and
  // protobuf JSON leaves a startIndex of 0 out.
  // https://ai.google.dev/gemini-api/docs/google-search
  // https://ai.google.dev/api/generate-content#GroundingMetadata
  // https://ai.google.dev/api/generate-content#Segment
  const UEFA = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1';
  const WIKI = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ2';
  const chunks = `"groundingChunks":[{"web":{"uri":"${UEFA}","title":"uefa.com"}},{"web":{"uri":"${WIKI}","title":"wikipedia.org"}}]`;
  const first = '{"segment":{"endIndex":20,"text":"Spain won Euro 2024,"},"groundingChunkIndices":[0,1]}';
  // "beating England 2–1 in Berlin." starts at byte 21 and, its dash three bytes long, ends at byte 53
  // (UTF-16 offsets 21 and 51); "¡Olé!" is bytes 54 to 61 (UTF-16 52 to 57).
  const second = '{"segment":{"startIndex":21,"endIndex":53,"text":"beating England 2–1 in Berlin."},"groundingChunkIndices":[0]}';
  const third = '{"segment":{"startIndex":54,"endIndex":61,"text":"¡Olé!"},"groundingChunkIndices":[1]}';
  // Offsets that do not enclose the text they claim: the source stays, without a span.
  const wrong = '{"segment":{"startIndex":21,"endIndex":40,"text":"Berlin"},"groundingChunkIndices":[1]}';
  const stream = sse(
    `{"candidates":[{"content":{"parts":[{"text":"Spain won Euro 2024, "}],"role":"model"},"index":0}],${TAIL}`,
    '{"candidates":[{"content":{"parts":[{"text":"beating England 2–1 in Berlin. ¡Olé!"}],"role":"model"},"index":0,' +
      `"groundingMetadata":{"webSearchQueries":["euro 2024 winner"],${chunks},"groundingSupports":[${first}]}}],${TAIL}`,
    '{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0,' +
      `"groundingMetadata":{"searchEntryPoint":{"renderedContent":"<div></div>"},"webSearchQueries":["euro 2024 winner"],${chunks},` +
      `"groundingSupports":[${first},${second},${third},${wrong}]}}],` +
      `"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":21,"totalTokenCount":30},${TAIL}`,
  );
  const uefa: Source = { kind: 'url', url: UEFA, title: 'uefa.com' };
  const wiki: Source = { kind: 'url', url: WIKI, title: 'wikipedia.org' };

  it('emits each grounding chunk, and each chunk again with every span of the reply it supports, once however often it repeats', () => {
    const { events, completion, error } = assembleEverywhere(stream);
    expect(error).toBeUndefined();
    expect(events).toEqual([
      START,
      { type: 'content', choice: 0, text: 'Spain won Euro 2024, ' },
      { type: 'content', choice: 0, text: 'beating England 2–1 in Berlin. ¡Olé!' },
      { type: 'source', choice: 0, source: uefa },
      { type: 'source', choice: 0, source: wiki },
      { type: 'source', choice: 0, source: { ...uefa, span: { start: 0, end: 20 } } },
      { type: 'source', choice: 0, source: { ...wiki, span: { start: 0, end: 20 } } },
      // What the grounding holds beside its chunks and supports is the choice's, each field once.
      { type: 'provider-metadata', provider: 'google', choice: 0, fields: { webSearchQueries: ['euro 2024 winner'] } },
      { type: 'source', choice: 0, source: { ...uefa, span: { start: 21, end: 51 } } },
      { type: 'source', choice: 0, source: { ...wiki, span: { start: 52, end: 57 } } },
      { type: 'provider-metadata', provider: 'google', choice: 0, fields: { searchEntryPoint: { renderedContent: '<div></div>' } } },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'STOP' },
      { type: 'usage', usage: { promptTokens: 9, completionTokens: 21, totalTokens: 30 } },
      { type: 'done' },
    ]);
    expect(completion?.sources).toEqual(sourcesOf(events));
    expect(completion?.choices[0]?.sources).toEqual(sourcesOf(events));
    expect(completion?.choices[0]?.providerMetadata).toEqual({
      google: { webSearchQueries: ['euro 2024 winner'], searchEntryPoint: { renderedContent: '<div></div>' } },
    });
  });

  it('gives spans that cut the reply where the segments say', () => {
    const { completion } = assembleText(stream, gemini);
    const cited = (completion?.sources ?? []).flatMap((source) =>
      source.span === undefined ? [] : [completion!.content!.slice(source.span.start, source.span.end)],
    );
    expect(cited).toEqual(['Spain won Euro 2024,', 'Spain won Euro 2024,', 'beating England 2–1 in Berlin.', '¡Olé!']);
  });

  it('reads retrieved contexts (a uri is a url, else a document) and the pages url context read', () => {
    // Grounding with Vertex AI Search or RAG: `groundingChunks: [{retrievedContext: {uri, title, text}}]`;
    // URL context: `urlContextMetadata: {urlMetadata: [{retrievedUrl, urlRetrievalStatus}]}`, only the
    // pages with `URL_RETRIEVAL_STATUS_SUCCESS` were read.
    // https://ai.google.dev/api/generate-content#GroundingChunk
    // https://cloud.google.com/vertex-ai/generative-ai/docs/grounding/grounding-with-vertex-ai-search
    // https://ai.google.dev/gemini-api/docs/url-context
    const { events, error } = assembleEverywhere(
      sse(
        '{"candidates":[{"content":{"parts":[{"text":"Revenue grew 12%."}],"role":"model"},"finishReason":"STOP","index":0,' +
          '"groundingMetadata":{"groundingChunks":[{"retrievedContext":{"uri":"gs://reports/2025.pdf","title":"2025.pdf",' +
          '"text":"Revenue grew 12% in 2025."}},{"retrievedContext":{"title":"Handbook","documentName":"ragFiles/7",' +
          '"text":"Growth is measured yearly."}},{"web":{}}]},"urlContextMetadata":{"urlMetadata":[{"retrievedUrl":' +
          '"https://example.com/a","urlRetrievalStatus":"URL_RETRIEVAL_STATUS_SUCCESS"},{"retrievedUrl":"https://example.com/b",' +
          `"urlRetrievalStatus":"URL_RETRIEVAL_STATUS_ERROR"},{"retrievedUrl":"https://example.com/c"}]}}],${TAIL}`,
      ),
    );
    expect(error).toBeUndefined();
    expect(sourcesOf(events)).toEqual([
      { kind: 'url', url: 'gs://reports/2025.pdf', title: '2025.pdf', citedText: 'Revenue grew 12% in 2025.' },
      { kind: 'document', title: 'Handbook', documentId: 'ragFiles/7', citedText: 'Growth is measured yearly.' },
      { kind: 'url', url: 'https://example.com/a' },
      { kind: 'url', url: 'https://example.com/c' },
    ]);
  });

  it('resolves a support against the chunks an earlier chunk listed, and gives a span only where it can place it', () => {
    const { events } = assembleEverywhere(
      sse(
        `{"candidates":[{"content":{"parts":[{"text":"Short."}]},"index":0,"groundingMetadata":{${chunks}}}],${TAIL}`,
        '{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP","index":0,"groundingMetadata":{"groundingSupports":' +
          '[{"segment":{"endIndex":6,"text":"Short."},"groundingChunkIndices":[1,7]},' +
          // Past the text received; in another part, with no text to check it by; no text, on characters: "Short".
          '{"segment":{"endIndex":99},"groundingChunkIndices":[0]},{"segment":{"partIndex":1,"endIndex":3},"groundingChunkIndices":[0]},' +
          '{"segment":{"endIndex":5},"groundingChunkIndices":[0]}]}}],' +
          TAIL,
      ),
    );
    expect(sourcesOf(events)).toEqual([uefa, wiki, { ...wiki, span: { start: 0, end: 6 } }, { ...uefa, span: { start: 0, end: 5 } }]);
  });

  it.each([
    ['groundingMetadata as a string', '"groundingMetadata":"x"', 'frame 1: candidates[0].groundingMetadata is not an object'],
    [
      'groundingChunks as an object',
      '"groundingMetadata":{"groundingChunks":{}}',
      'frame 1: candidates[0].groundingMetadata.groundingChunks is not an array',
    ],
    [
      'a support that is not an object',
      '"groundingMetadata":{"groundingSupports":[1]}',
      'frame 1: candidates[0].groundingMetadata.groundingSupports[0] is not an object',
    ],
    [
      'urlMetadata as an object',
      '"urlContextMetadata":{"urlMetadata":{}}',
      'frame 1: candidates[0].urlContextMetadata.urlMetadata is not an array',
    ],
  ])('is a ProtocolError for %s', (_name, metadata, message) => {
    const { error } = assembleText(sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]},${metadata}}],${TAIL}`), gemini);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe(message);
  });
});

describe('gemini dialect: code execution, a tool the provider runs', () => {
  // Code execution: the model's parts include `executableCode: {language, code}` and then
  // `codeExecutionResult: {outcome, output}` ("always follows a part containing the ExecutableCode";
  // on the Gemini API both may carry an `id` that pairs them).
  // https://ai.google.dev/gemini-api/docs/code-execution
  // https://ai.google.dev/api/caching#ExecutableCode
  // https://googleapis.github.io/js-genai/release_docs/interfaces/types.CodeExecutionResult.html
  it('emits the code as a provider-tool-call and its result with the same id; the reply stops, it made no calls', () => {
    const { events, completion, error } = assembleEverywhere(
      sse(
        `{"candidates":[{"content":{"parts":[{"text":"I'll compute it."}],"role":"model"},"index":0}],${TAIL}`,
        '{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(sum(range(101)))"}}],"role":"model"},' +
          `"index":0}],${TAIL}`,
        '{"candidates":[{"content":{"parts":[{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"5050\\n"}}],"role":"model"},' +
          `"index":0}],${TAIL}`,
        `{"candidates":[{"content":{"parts":[{"text":" The sum is 5050."}],"role":"model"},"finishReason":"STOP","index":0}],${TAIL}`,
      ),
    );
    expect(error).toBeUndefined();
    const input = { language: 'PYTHON', code: 'print(sum(range(101)))' };
    const result = { outcome: 'OUTCOME_OK', output: '5050\n' };
    expect(events).toEqual([
      START,
      { type: 'content', choice: 0, text: "I'll compute it." },
      { type: 'provider-tool-call', choice: 0, call: { id: 'code-execution-0', name: 'code_execution', type: 'executableCode', input } },
      { type: 'provider-tool-result', choice: 0, id: 'code-execution-0', result },
      { type: 'content', choice: 0, text: ' The sum is 5050.' },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'STOP' },
      { type: 'done' },
    ]);
    expect(completion).toMatchObject({
      content: "I'll compute it. The sum is 5050.",
      toolCalls: [],
      providerToolCalls: [{ id: 'code-execution-0', name: 'code_execution', type: 'executableCode', input, result }],
      finishReason: 'stop',
    });
  });

  it('pairs results with their code by id when the wire names them, and numbers the runs it does not', () => {
    const { completion } = assembleEverywhere(
      sse(
        '{"candidates":[{"content":{"parts":[{"executableCode":{"id":"ex-1","language":"PYTHON","code":"1/0"}},' +
          '{"executableCode":{"language":"PYTHON","code":"print(2)"}},{"codeExecutionResult":{"id":"ex-1","outcome":"OUTCOME_FAILED",' +
          '"output":"ZeroDivisionError"}}]},"index":0}],' +
          TAIL,
        '{"candidates":[{"content":{"parts":[{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"2"}}]},"finishReason":"STOP",' +
          `"index":0}],${TAIL}`,
      ),
    );
    expect(completion?.providerToolCalls).toEqual([
      {
        id: 'ex-1',
        name: 'code_execution',
        type: 'executableCode',
        input: { language: 'PYTHON', code: '1/0' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' },
      },
      {
        id: 'code-execution-1',
        name: 'code_execution',
        type: 'executableCode',
        input: { language: 'PYTHON', code: 'print(2)' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: { outcome: 'OUTCOME_OK', output: '2' },
      },
    ]);
    expect(completion?.toolCalls).toEqual([]);
  });

  it.each([
    [
      'executableCode as a string',
      '{"executableCode":"print(1)"}',
      'frame 1: candidates[0].content.parts[0].executableCode is not an object',
    ],
    ['code as a number', '{"executableCode":{"code":1}}', 'frame 1: candidates[0].content.parts[0].executableCode.code is 1, not text'],
    [
      'an outcome that is not text',
      '{"codeExecutionResult":{"outcome":0}}',
      'frame 1: candidates[0].content.parts[0].codeExecutionResult.outcome is 0, not text',
    ],
  ])('is a ProtocolError for %s', (_name, part, message) => {
    const { error } = assembleText(sse(`{"candidates":[{"content":{"parts":[${part}]}}],${TAIL}`), gemini);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe(message);
  });
});

describe('gemini dialect: payloads it does not read', () => {
  // Image output: a part `{inlineData: {mimeType, data}}` (base64), which this dialect does not read. Three
  // chunks of one shape: the third is read through a template that reuses the objects of the second.
  // https://ai.google.dev/gemini-api/docs/image-generation
  const image = (data: string) =>
    `{"candidates":[{"content":{"parts":[{"text":"Here:"},{"inlineData":{"mimeType":"image/png","data":"${data}"}}],"role":"model"},` +
    `"index":0}],${TAIL}`;
  const stream = sse(
    image('iVBORw0KGgo='),
    image('R0lGODlhAQ='),
    image('UklGRg=='),
    '{"novel":{"kind":"of chunk"}}',
    `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],${TAIL}`,
  );

  it('keeps each part of a kind it does not read, and with unknownEvents passes on its chunk and a chunk of unknown shape', () => {
    const { events, error } = assembleEverywhere(stream, { dialect: { unknownEvents: true } });
    expect(error).toBeUndefined();
    const payload = (data: string) => ({
      candidates: [{ content: { parts: [{ text: 'Here:' }, { inlineData: { mimeType: 'image/png', data } }], role: 'model' }, index: 0 }],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'g-1',
    });
    const part = (data: string) => ({
      type: 'provider-metadata',
      provider: 'google',
      choice: 0,
      items: [{ inlineData: { mimeType: 'image/png', data } }],
    });
    expect(events).toEqual([
      START,
      { type: 'content', choice: 0, text: 'Here:' },
      part('iVBORw0KGgo='),
      { type: 'unknown', payload: payload('iVBORw0KGgo=') },
      { type: 'content', choice: 0, text: 'Here:' },
      part('R0lGODlhAQ='),
      { type: 'unknown', payload: payload('R0lGODlhAQ=') },
      { type: 'content', choice: 0, text: 'Here:' },
      part('UklGRg=='),
      { type: 'unknown', payload: payload('UklGRg==') },
      { type: 'unknown', payload: { novel: { kind: 'of chunk' } } },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'STOP' },
      { type: 'done' },
    ]);
  });

  it('without unknownEvents, skips them and reads the rest', () => {
    const { events } = assembleEverywhere(stream);
    expect(events.some((event) => event.type === 'unknown')).toBe(false);
    expect(events.filter((event) => event.type === 'content')).toHaveLength(3);
  });
});
