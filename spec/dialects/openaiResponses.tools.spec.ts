import { readFileSync } from 'fs';
import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { COMPLETED, CREATED, assembleAtEverySize, ev, types } from './responsesStreams';
import { assembleBytes, eventsOfType, marbleFile, readBytes } from '../support/dialect';

/**
 * The tools OpenAI runs itself (web search, file search, code interpreter, image generation, remote
 * MCP), the built-in tools it asks the program to run, and the events the dialect does not read.
 * Every stream is SSE text as the wire has it, run through the whole pipeline at several chunk sizes.
 */

const only = eventsOfType;
const ANSWER = ev(
  '{"type":"response.output_text.delta","item_id":"msg_1","output_index":9,"content_index":0,"delta":"Done.","logprobs":[]}',
);

describe('openai-responses dialect: tools', () => {
  describe('that the provider runs', () => {
    // The web_search_call item, its progress events, and its action with the sources it searched
    // (include "web_search_call.action.sources"): https://platform.openai.com/docs/guides/tools-web-search
    const WEB_SEARCH =
      CREATED +
      ev('{"type":"response.output_item.added","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}') +
      ev('{"type":"response.web_search_call.in_progress","output_index":0,"item_id":"ws_1"}') +
      ev('{"type":"response.web_search_call.searching","output_index":0,"item_id":"ws_1"}') +
      ev('{"type":"response.web_search_call.completed","output_index":0,"item_id":"ws_1"}') +
      ev(
        '{"type":"response.output_item.done","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed",' +
          '"action":{"type":"search","query":"weather Paris","sources":[{"type":"url","url":"https://meteo.example/paris"}]}}}',
      ) +
      ANSWER +
      COMPLETED;

    it('reads a web search as a provider tool call with its result, never as a tool call', () => {
      const { events, completion, error } = assembleAtEverySize(WEB_SEARCH);
      expect(error).toBeUndefined();
      expect(types(events)).toEqual(['start', 'provider-tool-call', 'provider-tool-result', 'content', 'finish', 'done']);
      expect(completion).toMatchObject({
        content: 'Done.',
        toolCalls: [],
        finishReason: 'stop',
        providerToolCalls: [
          {
            id: 'ws_1',
            name: 'web_search',
            type: 'web_search_call',
            input: { type: 'search', query: 'weather Paris' },
            result: [{ type: 'url', url: 'https://meteo.example/paris' }],
          },
        ],
      });
    });

    it('keeps each call its own input when items of one shape follow each other', () => {
      // Payloads of one shape are read through a template that reuses their objects: each call must be a copy.
      const search = (n: number) =>
        ev(
          `{"type":"response.output_item.done","output_index":${n},"item":{"id":"ws_${n}","type":"web_search_call",` +
            `"status":"completed","action":{"type":"search","query":"q${n}","sources":[{"type":"url","url":"https://s${n}.example"}]}}}`,
        );
      const fileSearch = (n: number) =>
        ev(
          `{"type":"response.output_item.done","output_index":${n},"item":{"id":"fs_${n}","type":"file_search_call",` +
            `"status":"completed","queries":["f${n}"],"results":null}}`,
        );
      const files = assembleAtEverySize(CREATED + fileSearch(1) + fileSearch(2) + fileSearch(3) + fileSearch(4) + ANSWER + COMPLETED);
      expect(files.completion?.providerToolCalls?.map((call) => call.input)).toEqual([1, 2, 3, 4].map((n) => ({ queries: [`f${n}`] })));
      const { completion } = assembleAtEverySize(CREATED + search(1) + search(2) + search(3) + search(4) + ANSWER + COMPLETED);
      expect(completion?.providerToolCalls?.map((call) => [call.input, call.result])).toEqual(
        [1, 2, 3, 4].map((n) => [{ type: 'search', query: `q${n}` }, [{ type: 'url', url: `https://s${n}.example` }]]),
      );
    });

    it('reads file search, code interpreter, image generation and MCP calls, their streaming events skipped', () => {
      // file_search_call (https://platform.openai.com/docs/guides/tools-file-search), code_interpreter_call
      // with its code deltas (https://platform.openai.com/docs/guides/tools-code-interpreter), image_generation_call
      // with a partial image (https://platform.openai.com/docs/guides/tools-image-generation) and mcp_call with its
      // argument deltas (https://platform.openai.com/docs/guides/tools-remote-mcp), the shapes of the streaming reference.
      const stream =
        CREATED +
        ev(
          '{"type":"response.output_item.added","output_index":0,"item":{"id":"fs_1","type":"file_search_call","status":"in_progress",' +
            '"queries":[],"results":null}}',
        ) +
        ev('{"type":"response.file_search_call.searching","output_index":0,"item_id":"fs_1"}') +
        ev(
          '{"type":"response.output_item.done","output_index":0,"item":{"id":"fs_1","type":"file_search_call","status":"completed",' +
            '"queries":["what is an embedding"],"results":[{"file_id":"file-1","filename":"ai.pdf","score":0.9,' +
            '"text":"An embedding..."}]}}',
        ) +
        ev(
          '{"type":"response.output_item.added","output_index":1,"item":{"id":"ci_1","type":"code_interpreter_call",' +
            '"status":"in_progress",' +
            '"code":"","container_id":"cntr_1","outputs":[]}}',
        ) +
        ev('{"type":"response.code_interpreter_call.in_progress","output_index":1,"item_id":"ci_1"}') +
        ev('{"type":"response.code_interpreter_call_code.delta","output_index":1,"item_id":"ci_1","delta":"print(2 "}') +
        ev('{"type":"response.code_interpreter_call_code.delta","output_index":1,"item_id":"ci_1","delta":"+ 2)"}') +
        ev('{"type":"response.code_interpreter_call_code.done","output_index":1,"item_id":"ci_1","code":"print(2 + 2)"}') +
        ev('{"type":"response.code_interpreter_call.interpreting","output_index":1,"item_id":"ci_1"}') +
        ev('{"type":"response.code_interpreter_call.completed","output_index":1,"item_id":"ci_1"}') +
        ev(
          '{"type":"response.output_item.done","output_index":1,"item":{"id":"ci_1","type":"code_interpreter_call","status":"completed",' +
            '"code":"print(2 + 2)","container_id":"cntr_1","outputs":[{"type":"logs","logs":"4\\n"}]}}',
        ) +
        ev(
          '{"type":"response.output_item.added","output_index":2,"item":{"id":"ig_1","type":"image_generation_call",' +
            '"status":"in_progress"}}',
        ) +
        ev('{"type":"response.image_generation_call.generating","output_index":2,"item_id":"ig_1"}') +
        ev(
          '{"type":"response.image_generation_call.partial_image","output_index":2,"item_id":"ig_1","partial_image_index":0,' +
            '"partial_image_b64":"iVBORw0K"}',
        ) +
        ev(
          '{"type":"response.output_item.done","output_index":2,"item":{"id":"ig_1","type":"image_generation_call","status":"completed",' +
            '"background":"opaque","output_format":"png","quality":"low","result":"iVBORw0KGgo=","revised_prompt":"A red square",' +
            '"size":"1024x1024"}}',
        ) +
        ev(
          '{"type":"response.output_item.added","output_index":3,"item":{"id":"mcp_1","type":"mcp_call","status":"in_progress",' +
            '"approval_request_id":null,"arguments":"","error":null,"name":"roll","output":null,"server_label":"dice"}}',
        ) +
        ev('{"type":"response.mcp_call.in_progress","output_index":3,"item_id":"mcp_1"}') +
        ev('{"type":"response.mcp_call_arguments.delta","output_index":3,"item_id":"mcp_1","delta":"{\\"sides\\":6}"}') +
        ev('{"type":"response.mcp_call_arguments.done","output_index":3,"item_id":"mcp_1","arguments":"{\\"sides\\":6}"}') +
        ev('{"type":"response.mcp_call.completed","output_index":3,"item_id":"mcp_1"}') +
        ev(
          '{"type":"response.output_item.done","output_index":3,"item":{"id":"mcp_1","type":"mcp_call","status":"completed",' +
            '"approval_request_id":null,"arguments":"{\\"sides\\":6}","error":null,"name":"roll","output":"4","server_label":"dice"}}',
        ) +
        ev(
          '{"type":"response.output_item.done","output_index":4,"item":{"id":"mcp_2","type":"mcp_call","status":"failed",' +
            '"arguments":"{}","error":{"type":"mcp_tool_execution_error","content":[{"type":"text","text":"boom"}]},"name":"roll",' +
            '"output":null,"server_label":"dice"}}',
        ) +
        ANSWER +
        COMPLETED;
      const { events, completion, error } = assembleAtEverySize(stream);
      expect(error).toBeUndefined();
      expect(only(events, 'tool-call-delta')).toEqual([]);
      expect(completion).toMatchObject({ content: 'Done.', toolCalls: [], finishReason: 'stop' });
      expect(completion?.providerToolCalls).toEqual([
        {
          id: 'fs_1',
          name: 'file_search',
          type: 'file_search_call',
          input: { queries: ['what is an embedding'] },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
          result: [{ file_id: 'file-1', filename: 'ai.pdf', score: 0.9, text: 'An embedding...' }],
        },
        {
          id: 'ci_1',
          name: 'code_interpreter',
          type: 'code_interpreter_call',
          input: { code: 'print(2 + 2)', container_id: 'cntr_1' },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
          result: [{ type: 'logs', logs: '4\n' }],
        },
        {
          id: 'ig_1',
          name: 'image_generation',
          type: 'image_generation_call',
          input: { background: 'opaque', output_format: 'png', quality: 'low', revised_prompt: 'A red square', size: '1024x1024' },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
          result: 'iVBORw0KGgo=',
        },
        {
          id: 'mcp_1',
          name: 'roll',
          type: 'mcp_call',
          input: { server_label: 'dice', arguments: '{"sides":6}' },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
          result: '4',
        },
        {
          id: 'mcp_2',
          name: 'roll',
          type: 'mcp_call',
          input: { server_label: 'dice', arguments: '{}' },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
          result: { error: { type: 'mcp_tool_execution_error', content: [{ type: 'text', text: 'boom' }] } },
        },
      ]);
    });

    it('gives a call without a result when the item holds none', () => {
      // A file search whose results were not asked for (include "file_search_call.results"): results null.
      const stream =
        CREATED +
        ev(
          '{"type":"response.output_item.done","output_index":0,"item":{"id":"fs_1","type":"file_search_call","status":"completed",' +
            '"queries":["q"],"results":null}}',
        ) +
        ANSWER +
        COMPLETED;
      const { events, completion } = assembleAtEverySize(stream);
      expect(only(events, 'provider-tool-result')).toEqual([]);
      expect(completion?.providerToolCalls).toEqual([
        {
          id: 'fs_1',
          name: 'file_search',
          type: 'file_search_call',
          input: { queries: ['q'] },
          at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        },
      ]);
    });
  });

  describe('that the program runs', () => {
    // computer_call (https://platform.openai.com/docs/guides/tools-computer-use) and local_shell_call
    // (https://platform.openai.com/docs/guides/tools-local-shell) are actions for the program to carry out
    // and send back: neither a provider tool nor a function call.
    const COMPUTER_ADDED =
      '{"type":"response.output_item.added","output_index":0,"item":{"id":"cu_1","type":"computer_call","status":"in_progress",' +
      '"call_id":"call_cu","action":{"type":"click","button":"left","x":10,"y":20},"pending_safety_checks":[]}}';
    const COMPUTER_DONE =
      '{"type":"response.output_item.done","output_index":0,"item":{"id":"cu_1","type":"computer_call","status":"completed",' +
      '"call_id":"call_cu","action":{"type":"click","button":"left","x":10,"y":20},"pending_safety_checks":[]}}';
    const SHELL_DONE =
      '{"type":"response.output_item.done","output_index":1,"item":{"id":"lsh_1","type":"local_shell_call","status":"completed",' +
      '"call_id":"call_sh","action":{"type":"exec","command":["ls","-a"],"env":{}}}}';
    const STREAM = CREATED + ev(COMPUTER_ADDED) + ev(COMPUTER_DONE) + ev(SHELL_DONE) + COMPLETED;

    it('makes no provider tool call and no tool call of them: each finished item is a tool request', () => {
      const { events, completion } = assembleAtEverySize(STREAM);
      expect(types(events)).toEqual(['start', 'tool-request', 'tool-request', 'finish', 'done']);
      expect(completion).not.toHaveProperty('providerToolCalls');
      expect(completion!.toolCalls).toEqual([]);
      expect(completion!.finishReason).toBe('stop');
      expect(completion!.toolRequests).toEqual([
        {
          id: 'call_cu',
          type: 'computer_call',
          kind: 'client-tool',
          name: null,
          input: { action: { type: 'click', button: 'left', x: 10, y: 20 }, pending_safety_checks: [] },
        },
        {
          id: 'call_sh',
          type: 'local_shell_call',
          kind: 'client-tool',
          name: null,
          input: { action: { type: 'exec', command: ['ls', '-a'], env: {} } },
        },
      ]);
    });

    it('passes none of their items on as unknown with unknownEvents: they are read', () => {
      const { events } = assembleAtEverySize(STREAM, { unknownEvents: true });
      expect(only(events, 'unknown')).toEqual([]);
    });
  });

  describe('events the dialect does not read', () => {
    // An event type the streaming reference does not (yet) list.
    const NEW = '{"type":"response.hologram.delta","sequence_number":1,"item_id":"h_1","beam":{"colour":"green","levels":[1,2]}}';
    const STREAM = CREATED + ev(NEW) + ANSWER + COMPLETED;

    it('are skipped without unknownEvents', () => {
      expect(types(assembleAtEverySize(STREAM).events)).toEqual(['start', 'content', 'finish', 'done']);
    });

    it('are passed on as unknown with unknownEvents, with their event name and a copy of the payload', () => {
      const { events } = assembleAtEverySize(STREAM, { unknownEvents: true });
      expect(events.slice(0, 3)).toEqual([
        { type: 'start', id: 'resp_1', model: 'gpt-5' },
        { type: 'unknown', event: 'response.hologram.delta', payload: JSON.parse(NEW) },
        { type: 'content', choice: 0, text: 'Done.' },
      ]);
    });

    it('without an event: line, are passed on with no event name', () => {
      const { events } = assembleAtEverySize(`data: ${NEW}\n\n` + CREATED + ANSWER + COMPLETED, { unknownEvents: true });
      expect(only(events, 'unknown')).toEqual([{ type: 'unknown', payload: JSON.parse(NEW) }]);
    });

    it('include the progress events of the provider tools, but never the events that frame or repeat the text', () => {
      const stream =
        CREATED +
        ev('{"type":"response.in_progress","response":{"id":"resp_1","status":"in_progress"}}') +
        ev('{"type":"response.output_item.added","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}') +
        ev('{"type":"response.web_search_call.searching","output_index":0,"item_id":"ws_1"}') +
        ev(
          '{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress",' +
            '"content":[]}}',
        ) +
        ev(
          '{"type":"response.content_part.added","item_id":"msg_1","output_index":1,"content_index":0,' +
            '"part":{"type":"output_text","text":""}}',
        ) +
        ev('{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi","logprobs":[]}') +
        ev('{"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi","logprobs":[]}') +
        ev('{"type":"keepalive","sequence_number":9}') +
        COMPLETED;
      const { events } = assembleAtEverySize(stream, { unknownEvents: true });
      expect(only(events, 'unknown')).toEqual([
        {
          type: 'unknown',
          event: 'response.web_search_call.searching',
          payload: { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1' },
        },
      ]);
    });

    it('each keep their own payload when several of one shape follow each other', () => {
      const hologram = (n: number) => ev(`{"type":"response.hologram.delta","item_id":"h_${n}","beam":{"levels":[${n}]}}`);
      const { events } = assembleAtEverySize(CREATED + hologram(1) + hologram(2) + hologram(3) + hologram(4) + ANSWER + COMPLETED, {
        unknownEvents: true,
      });
      expect(only(events, 'unknown').map((e) => (e as { payload: unknown }).payload)).toEqual(
        [1, 2, 3, 4].map((n) => ({ type: 'response.hologram.delta', item_id: `h_${n}`, beam: { levels: [n] } })),
      );
    });
  });

  describe('in recordings of real streams (marbles/real/SOURCES.md)', () => {
    const recording = (name: string) => readBytes(marbleFile(`real/${name}.sse`));
    const expected = (name: string) =>
      (JSON.parse(readFileSync(marbleFile(`real/${name}.expected.json`), 'utf8')) as { completion: unknown }).completion;

    it('reads the web search recording under strict (its sequence numbers count up from 0)', () => {
      const { completion, error } = assembleBytes(recording('openai-web-search-tool.1'), openaiResponses, { dialect: { strict: true } });
      expect(error).toBeUndefined();
      expect(completion).toEqual(expected('openai-web-search-tool.1'));
    });

    it('passes the code interpreter progress on as unknown events with unknownEvents, the completion unchanged', () => {
      const { events, completion } = assembleBytes(recording('openai-code-interpreter-tool.1'), openaiResponses, {
        dialect: { unknownEvents: true },
      });
      const unknown = only(events, 'unknown') as { event?: string }[];
      expect(unknown.filter((e) => e.event === 'response.code_interpreter_call_code.delta')).toHaveLength(149);
      expect(new Set(unknown.map((e) => e.event))).toEqual(
        new Set([
          'response.code_interpreter_call.in_progress',
          'response.code_interpreter_call_code.delta',
          'response.code_interpreter_call_code.done',
          'response.code_interpreter_call.interpreting',
          'response.code_interpreter_call.completed',
        ]),
      );
      expect(completion).toEqual(expected('openai-code-interpreter-tool.1'));
    });
  });
});
