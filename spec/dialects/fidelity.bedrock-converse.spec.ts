import { converseStream } from '../support/awsEventStream';
import { readReply } from '../support/pipeline';

// Bedrock ConverseStream replies with a tool Bedrock runs itself, written from the types of
// @aws-sdk/client-bedrock-runtime (aws/aws-sdk-js-v3, clients/client-bedrock-runtime/src/models:
// ContentBlockStart = {toolUse: ToolUseBlockStart {toolUseId, name, type?: ToolUseType
// ("server_tool_use")}} | {toolResult: ToolResultBlockStart {toolUseId, type?, status?}} | {image};
// ContentBlockDelta's `toolUse: ToolUseBlockDelta {input}` and `toolResult: ToolResultBlockDelta[]`
// ({text} | {json})), encoded with AWS's own event-stream codec and read through the README pipeline
// (awsEventStreamFrames, bedrock-converse) at 1, 7 and 64-byte chunks and whole. The expected values are
// written here from those types, not printed from the code.

const GROUNDING = [
  ['messageStart', { role: 'assistant' }],
  [
    'contentBlockStart',
    { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_g1', name: 'nova_grounding', type: 'server_tool_use' } } },
  ],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"query":' } } }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '"weather in Seattle"}' } } }],
  ['contentBlockStop', { contentBlockIndex: 0 }],
  [
    'contentBlockStart',
    { contentBlockIndex: 1, start: { toolResult: { toolUseId: 'tooluse_g1', type: 'nova_grounding_result', status: 'success' } } },
  ],
  [
    'contentBlockDelta',
    { contentBlockIndex: 1, delta: { toolResult: [{ json: { results: [{ url: 'https://weather.example', title: 'Seattle' }] } }] } },
  ],
  ['contentBlockStop', { contentBlockIndex: 1 }],
] as const;

const RESULT = [{ json: { results: [{ url: 'https://weather.example', title: 'Seattle' }] } }];
const GROUNDED = {
  id: 'tooluse_g1',
  name: 'nova_grounding',
  type: 'server_tool_use',
  input: { query: 'weather in Seattle' },
  // Before any text: the grounding comes first.
  at: { reasoning: 0, content: 0, items: 0, calls: 0 },
  result: RESULT,
};

describe('bedrock-converse keeps the tools Bedrock runs apart from the calls of the program (issue 30, C)', () => {
  it('reads a server_tool_use block and its result as a provider tool call; the finish stays end_turn, stop', () => {
    const { completion, error } = readReply(
      converseStream([
        ...GROUNDING,
        ['contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'It is sunny in Seattle.' } }],
        ['contentBlockStop', { contentBlockIndex: 2 }],
        ['messageStop', { stopReason: 'end_turn' }],
        ['metadata', { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, metrics: { latencyMs: 120 } }],
      ]),
      'bedrock-converse',
      'aws',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      content: 'It is sunny in Seattle.',
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'end_turn',
    });
    expect(completion!.providerToolCalls).toEqual([GROUNDED]);
    // The result block's own type and status stay on the choice.
    expect(completion!.choices[0]!.providerMetadata).toEqual({ bedrock: { type: 'nova_grounding_result', status: 'success' } });
  });

  it('never finishes tool_calls when the only tool used is one Bedrock ran', () => {
    const { completion, error } = readReply(
      converseStream([...GROUNDING, ['messageStop', { stopReason: 'tool_use' }]]),
      'bedrock-converse',
      'aws',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ toolCalls: [], finishReason: 'other', rawFinishReason: 'tool_use' });
    expect(completion!.providerToolCalls).toEqual([GROUNDED]);
  });

  it('still reads a client toolUse beside it as the program call, finish tool_calls', () => {
    const { completion, error } = readReply(
      converseStream([
        ...GROUNDING,
        ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_c1', name: 'book_table' } } }],
        ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"seats":2}' } } }],
        ['contentBlockStop', { contentBlockIndex: 2 }],
        ['messageStop', { stopReason: 'tool_use' }],
      ]),
      'bedrock-converse',
      'aws',
    );
    expect(error).toBeUndefined();
    expect(completion!.finishReason).toBe('tool_calls');
    expect(completion!.toolCalls).toEqual([
      { index: 0, id: 'tooluse_c1', name: 'book_table', arguments: '{"seats":2}', args: { seats: 2 } },
    ]);
    expect(completion!.providerToolCalls).toEqual([GROUNDED]);
  });
});

describe('bedrock-converse reads citations as sources (issue 30, F)', () => {
  it('reads each CitationsDelta as a source: a web location as url, a document or search-result location as document', () => {
    // ContentBlockDelta {citation: CitationsDelta {title?, source?, sourceContent?: CitationSourceContentDelta[]
    // ({text}), location?: CitationLocation}}; CitationLocation = {web: WebLocation {url, domain}} |
    // {documentChar: DocumentCharLocation {documentIndex, start, end}} | {documentPage} | {documentChunk} |
    // {searchResultLocation: SearchResultLocation {searchResultIndex, start, end}}.
    const { completion, error } = readReply(
      converseStream([
        ['messageStart', { role: 'assistant' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Seattle is rainy.' } }],
        [
          'contentBlockDelta',
          {
            contentBlockIndex: 0,
            delta: {
              citation: {
                title: 'Seattle weather',
                sourceContent: [{ text: 'Seattle sees rain ' }, { text: '150 days a year.' }],
                location: { web: { url: 'https://weather.example/seattle', domain: 'weather.example' } },
              },
            },
          },
        ],
        [
          'contentBlockDelta',
          {
            contentBlockIndex: 0,
            delta: { citation: { title: 'climate.pdf', location: { documentPage: { documentIndex: 1, start: 3, end: 4 } } } },
          },
        ],
        [
          'contentBlockDelta',
          {
            contentBlockIndex: 0,
            delta: {
              citation: {
                source: 'https://search.example/r/2',
                location: { searchResultLocation: { searchResultIndex: 2, start: 0, end: 1 } },
              },
            },
          },
        ],
        ['contentBlockStop', { contentBlockIndex: 0 }],
        ['messageStop', { stopReason: 'end_turn' }],
      ]),
      'bedrock-converse',
      'aws',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Seattle is rainy.', finishReason: 'stop' });
    expect(completion!.sources).toEqual([
      { kind: 'url', url: 'https://weather.example/seattle', title: 'Seattle weather', citedText: 'Seattle sees rain 150 days a year.' },
      { kind: 'document', documentId: '1', title: 'climate.pdf' },
      { kind: 'document', documentId: '2', url: 'https://search.example/r/2' },
    ]);
  });
});
