import { ProtocolError } from '../../src/errors/errors';
import { ofType, readAnthropic } from './anthropicStreams';

/**
 * The tools Anthropic runs itself (server tools, the MCP connector's tools): `provider-tool-call` and
 * `provider-tool-result` events, never client tool calls.
 */

const messageStart = (id: string) => `event: message_start
data: {"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],\
"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2679,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,\
"output_tokens":3}}}

`;
const messageEnd = (stopReason: string) => `event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"${stopReason}","stop_sequence":null},"usage":{"output_tokens":510}}

event: message_stop
data: {"type":"message_stop"}

`;

const SEARCH_RESULT = {
  type: 'web_search_result',
  title: 'Weather in New York City in May 2025',
  url: 'https://world-weather.info/forecast/usa/new_york/may-2025/',
  encrypted_content: 'Ev0DCioIAxgCIiQ3NmU4ZmI4OC1k',
  page_age: null,
};

/** Where a tool stands that came before any text or opaque item of its reply. */
const FIRST = { reasoning: 0, content: 0, items: 0, calls: 0 };

// The web search stream of the streaming docs: text, a server_tool_use block whose input streams as
// input_json_delta, a web_search_tool_result block that arrives whole, then the cited answer
// (https://platform.claude.com/docs/en/build-with-claude/streaming, "Web search tool streaming
// example"; https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool).
const WEB_SEARCH = `${messageStart('msg_01G626Search')}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta",\
"text":"I'll check the current weather in New York City for you."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB",\
"name":"web_search","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"query"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\": \\"weather NY"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"C today\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result",\
"tool_use_id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB","content":[${JSON.stringify(SEARCH_RESULT)}]}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location",\
"cited_text":"Mostly sunny, high 68°F.","url":"https://world-weather.info/forecast/usa/new_york/may-2025/",\
"title":"Weather in New York City in May 2025","encrypted_index":"EpMBCioIAxgC"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"It is mostly sunny, with a high of 68°F."}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

${messageEnd('end_turn')}`;

// Code execution: a server_tool_use block whose start has no input field, its code streamed, then
// the code_execution_tool_result with stdout, stderr and return_code
// (https://platform.claude.com/docs/en/agents-and-tools/tool-use/code-execution-tool, "Streaming").
const CODE_EXECUTION = `${messageStart('msg_01CodeExec')}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_xyz789","name":"code_execution"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"code\\":\\"print(6 * 7)\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_xyz789",\
"content":{"type":"code_execution_result","stdout":"42\\n","stderr":"","return_code":0,"content":[]}}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"The answer is 42."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

${messageEnd('end_turn')}`;

// The MCP connector's blocks: mcp_tool_use (with server_name) and mcp_tool_result (with is_error)
// (https://platform.claude.com/docs/en/agents-and-tools/mcp-connector, "Response content types").
// The input is given whole in the block's start here, with no delta.
const MCP = `${messageStart('msg_01Mcp')}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_014Q35RayjACSWkSj4X2yov1",\
"name":"echo","server_name":"example-mcp","input":{"param1":"value1","param2":"value2"}}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"mcp_tool_result",\
"tool_use_id":"mcptoolu_014Q35RayjACSWkSj4X2yov1","is_error":false,"content":[{"type":"text","text":"Hello"}]}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"The tool said Hello."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

${messageEnd('end_turn')}`;

/** A stream of one server tool whose input streams as `pieces`, then another block when `next`, then the end. */
function cutSearch(pieces: readonly string[], stopReason: string, next = ''): string {
  const deltas = pieces
    .map(
      (piece) => `event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(piece)}}}

`,
    )
    .join('');
  return `${messageStart('msg_01Cut')}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_cut","name":"web_search","input":{}}}

${deltas}event: content_block_stop
data: {"type":"content_block_stop","index":0}

${next}${messageEnd(stopReason)}`;
}

describe('anthropic server tools', () => {
  it('makes a web search one provider tool call with its parsed input and result, and no client call', () => {
    const { completion, events, error } = readAnthropic(WEB_SEARCH);
    expect(error).toBeUndefined();
    expect(events.some((event) => event.type === 'tool-call-delta' || event.type === 'tool-call-end')).toBe(false);
    expect(completion).toMatchObject({
      content: "I'll check the current weather in New York City for you.It is mostly sunny, with a high of 68°F.",
      toolCalls: [],
      // end_turn stays stop: a tool Anthropic ran is not a call the client must answer.
      finishReason: 'stop',
      providerToolCalls: [
        {
          id: 'srvtoolu_014hJH82Qum7Td6UV8gDXThB',
          name: 'web_search',
          type: 'server_tool_use',
          input: { query: 'weather NYC today' },
          result: [SEARCH_RESULT],
        },
      ],
      sources: [
        {
          kind: 'url',
          url: 'https://world-weather.info/forecast/usa/new_york/may-2025/',
          title: 'Weather in New York City in May 2025',
          citedText: 'Mostly sunny, high 68°F.',
          span: { start: 56, end: 96 },
        },
      ],
    });
  });

  it('emits the call at its block stop and the result at its block start', () => {
    const { events } = readAnthropic(WEB_SEARCH);
    expect(events.filter((event) => event.type.startsWith('provider-'))).toEqual([
      // The message's stop_sequence, at message_start.
      { type: 'provider-metadata', provider: 'anthropic', fields: { stop_sequence: null } },
      {
        type: 'provider-tool-call',
        choice: 0,
        call: {
          id: 'srvtoolu_014hJH82Qum7Td6UV8gDXThB',
          name: 'web_search',
          type: 'server_tool_use',
          input: { query: 'weather NYC today' },
        },
      },
      { type: 'provider-tool-result', choice: 0, id: 'srvtoolu_014hJH82Qum7Td6UV8gDXThB', result: [SEARCH_RESULT] },
    ]);
  });

  it('places the search where it came in the turn: after the text before it, so the next turn sends it back there', () => {
    const { completion } = readAnthropic(WEB_SEARCH);
    const before = "I'll check the current weather in New York City for you.";
    expect(completion?.content?.startsWith(before)).toBe(true);
    expect(completion?.providerToolCalls?.map((call) => call.at)).toEqual([{ reasoning: 0, content: before.length, items: 0, calls: 0 }]);
  });

  it('reads code execution: a block start without input, then the result object', () => {
    const { completion } = readAnthropic(CODE_EXECUTION);
    expect(completion?.providerToolCalls).toEqual([
      {
        id: 'srvtoolu_xyz789',
        name: 'code_execution',
        type: 'server_tool_use',
        input: { code: 'print(6 * 7)' },
        at: FIRST,
        result: { type: 'code_execution_result', stdout: '42\n', stderr: '', return_code: 0, content: [] },
      },
    ]);
    expect(completion?.content).toBe('The answer is 42.');
  });

  it("reads the MCP connector's blocks, an input given whole in the block start", () => {
    const { completion } = readAnthropic(MCP);
    expect(completion?.providerToolCalls).toEqual([
      {
        id: 'mcptoolu_014Q35RayjACSWkSj4X2yov1',
        name: 'echo',
        type: 'mcp_tool_use',
        input: { param1: 'value1', param2: 'value2' },
        at: FIRST,
        result: [{ type: 'text', text: 'Hello' }],
      },
    ]);
    expect(completion?.toolCalls).toEqual([]);
  });

  it.each([
    'web_fetch_tool_result',
    'bash_code_execution_tool_result',
    'text_editor_code_execution_tool_result',
    'tool_search_tool_result',
  ])('reads a %s block, as any *_tool_result block with a tool_use_id', (type) => {
    const text = CODE_EXECUTION.replace('"type":"code_execution_tool_result"', `"type":"${type}"`);
    expect(readAnthropic(text).completion?.providerToolCalls?.[0]?.result).toEqual({
      type: 'code_execution_result',
      stdout: '42\n',
      stderr: '',
      return_code: 0,
      content: [],
    });
  });

  it('keeps each result whole when later blocks of the same shape follow (the payloads are read through a template)', () => {
    const result = (n: number) => `event: content_block_start
data: {"type":"content_block_start","index":${n},"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_${n}",\
"content":[{"type":"web_search_result","title":"Page ${n}","url":"https://example.com/${n}","encrypted_content":"E${n}","page_age":null}]}}

event: content_block_stop
data: {"type":"content_block_stop","index":${n}}

`;
    const call = (n: number) => `event: content_block_start
data: {"type":"content_block_start","index":${n},"content_block":{"type":"server_tool_use","id":"srvtoolu_${n + 1}","name":"web_search",\
"input":{"query":"q${n + 1}"}}}

event: content_block_stop
data: {"type":"content_block_stop","index":${n}}

`;
    const text = `${messageStart('msg_01Many')}${call(0)}${result(1)}${call(2)}${result(3)}${call(4)}${result(5)}${messageEnd('end_turn')}`;
    const page = (n: number) => [
      { type: 'web_search_result', title: `Page ${n}`, url: `https://example.com/${n}`, encrypted_content: `E${n}`, page_age: null },
    ];
    expect(readAnthropic(text).completion?.providerToolCalls).toEqual([
      { id: 'srvtoolu_1', name: 'web_search', type: 'server_tool_use', input: { query: 'q1' }, at: FIRST, result: page(1) },
      { id: 'srvtoolu_3', name: 'web_search', type: 'server_tool_use', input: { query: 'q3' }, at: FIRST, result: page(3) },
      { id: 'srvtoolu_5', name: 'web_search', type: 'server_tool_use', input: { query: 'q5' }, at: FIRST, result: page(5) },
    ]);
  });

  it('is a ProtocolError for a server tool block without an id or a name', () => {
    const noId = WEB_SEARCH.replace('"id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB",', '');
    expect((readAnthropic(noId).error as Error).message).toBe('frame 5: content block 1 (server_tool_use) has no id');
    const noName = WEB_SEARCH.replace('"name":"web_search",', '');
    expect((readAnthropic(noName).error as Error).message).toBe('frame 5: content block 1 (server_tool_use) has no name');
  });

  describe('an input that does not parse', () => {
    // The token limit can stop generation inside a block's input
    // (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons, "max_tokens").
    const CUT = ['{"query": "weather', ' in Par'];

    it('is kept as the text that arrived when the finish says the token limit cut it (max_tokens), with no result', () => {
      const { completion, error } = readAnthropic(cutSearch(CUT, 'max_tokens'));
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({
        finishReason: 'length',
        rawFinishReason: 'max_tokens',
        providerToolCalls: [{ id: 'srvtoolu_cut', name: 'web_search', type: 'server_tool_use', input: '{"query": "weather in Par' }],
      });
    });

    it('is a ProtocolError at any other finish', () => {
      const { error, events } = readAnthropic(cutSearch(CUT, 'end_turn'));
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ reason: 'invalid-tool-call' });
      expect((error as Error).message).toBe(
        'frame 5: the input of server_tool_use "srvtoolu_cut" (web_search) is not valid JSON: "{\\"query\\": \\"weather in Par"',
      );
      expect(ofType(events, 'finish')).toEqual([]);
    });

    it('is a ProtocolError as soon as another block starts: only the end of a reply can be cut', () => {
      const next = `event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

`;
      const { error } = readAnthropic(cutSearch(CUT, 'max_tokens', next));
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toMatch(/^frame 5: the input of server_tool_use "srvtoolu_cut" \(web_search\) is not valid JSON/);
    });

    it('is the block start input for an input streamed as "" pieces only', () => {
      expect(readAnthropic(cutSearch(['', ''], 'end_turn')).completion?.providerToolCalls).toEqual([
        { id: 'srvtoolu_cut', name: 'web_search', type: 'server_tool_use', input: {}, at: FIRST },
      ]);
    });
  });
});
