import { DialectOptions } from '../../src/dialects/Dialect';
import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { ProtocolError } from '../../src/errors/errors';
import { Assembled, eventsOfType, typedEvent, assembleAtEverySize as atEverySize } from '../support/dialect';

/**
 * The tool calls of the Responses stream beyond plain function calls: custom (free-form) calls,
 * calls the token limit cut, and the call items of llama.cpp, which have no id; and the fields
 * llama.cpp sends only at the end (the model, the timings). Every stream is SSE text as the wire has
 * it, run through the whole pipeline at several chunk sizes.
 */

const ev = typedEvent;

/** The stream read whole; every chunking must give the same events and the same completion or error. */
const assembleAtEverySize = (text: string, dialect: DialectOptions = {}): Assembled => atEverySize(text, openaiResponses, { dialect });

const only = eventsOfType;

const CREATED = ev(
  '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress",' +
    '"model":"gpt-5","output":[],"usage":null}}',
);
const usageOf = (input: number, output: number) =>
  `"usage":{"input_tokens":${input},"input_tokens_details":{"cached_tokens":0},"output_tokens":${output},` +
  `"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${input + output}}`;

describe('openai-responses dialect: tool calls beyond function calls', () => {
  describe('custom tool calls', () => {
    // The custom_tool_call item and its input events, as the streaming reference and the custom tools
    // guide give them: https://platform.openai.com/docs/api-reference/responses-streaming/response/custom_tool_call_input/delta
    // and https://platform.openai.com/docs/guides/function-calling#custom-tools
    const SQL = 'SELECT name FROM users WHERE id = 1';
    const CUSTOM =
      CREATED +
      ev(
        '{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call",' +
          '"status":"in_progress","call_id":"call_sql","name":"run_sql","input":""}}',
      ) +
      ev('{"type":"response.custom_tool_call_input.delta","sequence_number":2,"item_id":"ctc_1","output_index":0,"delta":"SELECT name "}') +
      ev('{"type":"response.custom_tool_call_input.delta","sequence_number":3,"item_id":"ctc_1","output_index":0,"delta":"FROM users "}') +
      ev('{"type":"response.custom_tool_call_input.delta","sequence_number":4,"item_id":"ctc_1","output_index":0,"delta":"WHERE id = 1"}') +
      ev(`{"type":"response.custom_tool_call_input.done","sequence_number":5,"item_id":"ctc_1","output_index":0,"input":"${SQL}"}`) +
      ev(
        '{"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call",' +
          `"status":"completed","call_id":"call_sql","name":"run_sql","input":"${SQL}"}}`,
      ) +
      ev(
        '{"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","object":"response","status":"completed",' +
          `"model":"gpt-5","output":[],${usageOf(40, 12)}}}`,
      );

    it('assembles to a custom call whose args are its raw input, every fragment marked custom', () => {
      const { events, completion, error } = assembleAtEverySize(CUSTOM, { strict: true });
      expect(error).toBeUndefined();
      expect(completion?.toolCalls).toEqual([{ kind: 'custom', index: 0, id: 'call_sql', name: 'run_sql', arguments: SQL, args: SQL }]);
      expect(completion).toMatchObject({ finishReason: 'tool_calls', rawFinishReason: 'completed' });
      expect(only(events, 'tool-call-delta')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_sql', name: 'run_sql', arguments: '', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'SELECT name ', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'FROM users ', kind: 'custom' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: 'WHERE id = 1', kind: 'custom' },
      ]);
    });

    it('never parses a custom input, even one that is JSON text', () => {
      // The same shapes; the input happens to be a JSON document (a free-form tool may take one).
      const stream =
        CREATED +
        ev(
          '{"type":"response.output_item.added","output_index":0,"item":{"id":"ctc_2","type":"custom_tool_call","call_id":"call_j",' +
            '"name":"patch","input":""}}',
        ) +
        ev('{"type":"response.custom_tool_call_input.delta","item_id":"ctc_2","output_index":0,"delta":"{\\"a\\": 1}"}') +
        ev(
          '{"type":"response.output_item.done","output_index":0,"item":{"id":"ctc_2","type":"custom_tool_call","status":"completed",' +
            '"call_id":"call_j","name":"patch","input":"{\\"a\\": 1}"}}',
        ) +
        ev('{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5","output":[],"usage":null}}');
      const { completion } = assembleAtEverySize(stream);
      expect(completion?.toolCalls).toEqual([
        { kind: 'custom', index: 0, id: 'call_j', name: 'patch', arguments: '{"a": 1}', args: '{"a": 1}' },
      ]);
    });
  });

  describe('calls cut by the token limit', () => {
    // A reply cut by max_output_tokens ends with response.incomplete and incomplete_details.reason
    // "max_output_tokens": https://platform.openai.com/docs/api-reference/responses/object (status,
    // incomplete_details) and https://platform.openai.com/docs/api-reference/responses-streaming/response/incomplete
    const WHOLE_CALL =
      ev(
        '{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_a","type":"function_call","status":"in_progress",' +
          '"arguments":"","call_id":"call_a","name":"get_weather"}}',
      ) +
      ev('{"type":"response.function_call_arguments.delta","item_id":"fc_a","output_index":0,"delta":"{\\"city\\":\\"Paris\\"}"}') +
      ev('{"type":"response.function_call_arguments.done","item_id":"fc_a","output_index":0,"arguments":"{\\"city\\":\\"Paris\\"}"}') +
      ev(
        '{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_a","type":"function_call","status":"completed",' +
          '"arguments":"{\\"city\\":\\"Paris\\"}","call_id":"call_a","name":"get_weather"}}',
      );
    const CUT_CALL =
      ev(
        '{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_b","type":"function_call","status":"in_progress",' +
          '"arguments":"","call_id":"call_b","name":"get_weather"}}',
      ) +
      ev('{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":1,"delta":"{\\"city\\":"}') +
      ev('{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":1,"delta":"\\"To"}');
    const CUT_CALL_DONE = ev(
      '{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_b","type":"function_call","status":"incomplete",' +
        '"arguments":"{\\"city\\":\\"To","call_id":"call_b","name":"get_weather"}}',
    );
    const INCOMPLETE = ev(
      '{"type":"response.incomplete","response":{"id":"resp_1","object":"response","status":"incomplete",' +
        `"incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5","output":[],${usageOf(30, 16)}}}`,
    );
    const PARIS = { index: 0, id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', args: { city: 'Paris' } };
    const CUT = { index: 1, id: 'call_b', name: 'get_weather', arguments: '{"city":"To' };

    it.each([
      ['before its item finished', CREATED + WHOLE_CALL + CUT_CALL + INCOMPLETE],
      ['after its item finished incomplete', CREATED + WHOLE_CALL + CUT_CALL + CUT_CALL_DONE + INCOMPLETE],
    ])('keeps the whole call and sets the cut one apart, cut %s', (_when, stream) => {
      const { completion, error } = assembleAtEverySize(stream);
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({
        finishReason: 'length',
        rawFinishReason: 'max_output_tokens',
        toolCalls: [PARIS],
        incompleteToolCalls: [CUT],
        usage: { promptTokens: 30, completionTokens: 16, totalTokens: 46 },
      });
    });

    it('reads a response.completed whose status is incomplete as the cut it reports', () => {
      const completedIncomplete = ev(
        '{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"incomplete",' +
          '"incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5","output":[],"usage":null}}',
      );
      const { completion, events, error } = assembleAtEverySize(CREATED + WHOLE_CALL + CUT_CALL + completedIncomplete);
      expect(error).toBeUndefined();
      expect(only(events, 'finish')).toEqual([{ type: 'finish', choice: 0, reason: 'length', raw: 'max_output_tokens' }]);
      expect(completion).toMatchObject({ toolCalls: [PARIS], incompleteToolCalls: [CUT] });
    });

    it('keeps a custom call apart when its item finished incomplete (its text is not whole)', () => {
      const stream =
        CREATED +
        ev(
          '{"type":"response.output_item.added","output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call","call_id":"call_c",' +
            '"name":"run_sql","input":""}}',
        ) +
        ev('{"type":"response.custom_tool_call_input.delta","item_id":"ctc_1","output_index":0,"delta":"SELECT * FR"}') +
        ev(
          '{"type":"response.output_item.done","output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call","status":"incomplete",' +
            '"call_id":"call_c","name":"run_sql","input":"SELECT * FR"}}',
        ) +
        INCOMPLETE;
      const { completion, events } = assembleAtEverySize(stream);
      expect(only(events, 'tool-call-end')).toEqual([]);
      expect(completion).toMatchObject({
        finishReason: 'length',
        toolCalls: [],
        incompleteToolCalls: [{ kind: 'custom', index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT * FR' }],
      });
    });

    it('still refuses a call whose arguments do not parse when the reply was not cut', () => {
      const completed = ev('{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":null}}');
      const { error } = assembleAtEverySize(CREATED + WHOLE_CALL + CUT_CALL + CUT_CALL_DONE + completed);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toMatch(/not valid JSON/);
    });
  });

  describe("llama.cpp's stream: call items without ids, and the model and timings at the end", () => {
    // As llama.cpp's server writes it (tools/server/server-task.cpp, to_json_oaicompat_resp and
    // to_json_oaicompat_resp_stream: https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-task.cpp):
    // no sequence_number or output_index; response.created names no model; a function_call item has
    // no id, its call_id is "fc_" + the call's id, and its argument deltas name that call_id as their
    // item_id; every .done event comes at the end; response.completed names the model and carries the
    // usage (with cached_tokens). The timings sit beside the response, where llama.cpp's other
    // streams put them on their last event.
    const LLAMA =
      ev('{"type":"response.created","response":{"id":"resp_ll1","object":"response","status":"in_progress"}}') +
      ev('{"type":"response.in_progress","response":{"id":"resp_ll1","object":"response","status":"in_progress"}}') +
      ev(
        '{"type":"response.output_item.added","item":{"id":"rs_ll1","summary":[],"type":"reasoning","content":[],' +
          '"encrypted_content":"","status":"in_progress"}}',
      ) +
      ev('{"type":"response.reasoning_text.delta","delta":"Need the weather.","item_id":"rs_ll1"}') +
      ev(
        '{"type":"response.output_item.added","item":{"content":[],"id":"msg_ll1","role":"assistant","status":"in_progress",' +
          '"type":"message"}}',
      ) +
      ev('{"type":"response.content_part.added","item_id":"msg_ll1","part":{"type":"output_text","text":""}}') +
      ev('{"type":"response.output_text.delta","item_id":"msg_ll1","delta":"Checking."}') +
      ev(
        '{"type":"response.output_item.added","item":{"arguments":"","call_id":"fc_Xy12","name":"get_weather","type":"function_call",' +
          '"status":"in_progress"}}',
      ) +
      ev('{"type":"response.function_call_arguments.delta","delta":"{\\"city\\":","item_id":"fc_Xy12"}') +
      ev('{"type":"response.function_call_arguments.delta","delta":"\\"Oslo\\"}","item_id":"fc_Xy12"}') +
      ev(
        '{"type":"response.output_item.done","item":{"id":"rs_ll1","summary":[],"type":"reasoning",' +
          '"content":[{"text":"Need the weather.",' +
          '"type":"reasoning_text"}],"encrypted_content":""}}',
      ) +
      ev('{"type":"response.output_text.done","item_id":"msg_ll1","text":"Checking."}') +
      ev(
        '{"type":"response.content_part.done","item_id":"msg_ll1","part":{"type":"output_text","annotations":[],"logprobs":[],' +
          '"text":"Checking."}}',
      ) +
      ev(
        '{"type":"response.output_item.done","item":{"type":"message","status":"completed","id":"msg_ll1",' +
          '"content":[{"type":"output_text",' +
          '"annotations":[],"logprobs":[],"text":"Checking."}],"role":"assistant"}}',
      ) +
      ev(
        '{"type":"response.output_item.done","item":{"type":"function_call","status":"completed","arguments":"{\\"city\\":\\"Oslo\\"}",' +
          '"call_id":"fc_Xy12","name":"get_weather"}}',
      ) +
      ev(
        '{"type":"response.completed","response":{"id":"resp_ll1","object":"response","created_at":1767225600,"status":"completed",' +
          '"model":"Qwen3-8B-Q4_K_M.gguf","output":[],"usage":{"input_tokens":41,"output_tokens":19,"total_tokens":60,' +
          '"input_tokens_details":{"cached_tokens":32}}},"timings":{"cache_n":32,"prompt_n":9,"prompt_ms":11.4,' +
          '"prompt_per_second":788.1,"predicted_n":19,"predicted_ms":380.2,"predicted_per_second":49.9}}',
      );
    const TIMINGS = {
      cache_n: 32,
      prompt_n: 9,
      prompt_ms: 11.4,
      prompt_per_second: 788.1,
      predicted_n: 19,
      predicted_ms: 380.2,
      predicted_per_second: 49.9,
    };

    it('assembles: the call matched by its call_id, the model from response.completed, the timings', () => {
      const { completion, error } = assembleAtEverySize(LLAMA);
      expect(error).toBeUndefined();
      expect(completion).toEqual({
        id: 'resp_ll1',
        model: 'Qwen3-8B-Q4_K_M.gguf',
        content: 'Checking.',
        reasoning: 'Need the weather.',
        refusal: null,
        toolCalls: [{ index: 0, id: 'fc_Xy12', name: 'get_weather', arguments: '{"city":"Oslo"}', args: { city: 'Oslo' } }],
        finishReason: 'tool_calls',
        rawFinishReason: 'completed',
        usage: { promptTokens: 41, completionTokens: 19, totalTokens: 60, cachedPromptTokens: 32 },
        timings: TIMINGS,
        reasoningTokens: 0,
        choices: [
          {
            index: 0,
            content: 'Checking.',
            reasoning: 'Need the weather.',
            refusal: null,
            toolCalls: [{ index: 0, id: 'fc_Xy12', name: 'get_weather', arguments: '{"city":"Oslo"}', args: { city: 'Oslo' } }],
            finishReason: 'tool_calls',
            rawFinishReason: 'completed',
          },
        ],
        // Only response.completed says when the response was made.
        providerMetadata: { openai: { created_at: 1767225600 } },
      });
    });

    it('sends a second start with the model, then the fields it keeps, finish, usage, timings and done, at response.completed', () => {
      const { events } = assembleAtEverySize(LLAMA);
      expect(events[0]).toEqual({ type: 'start', id: 'resp_ll1', model: null });
      expect(events.slice(-6)).toEqual([
        { type: 'start', id: 'resp_ll1', model: 'Qwen3-8B-Q4_K_M.gguf' },
        { type: 'provider-metadata', provider: 'openai', fields: { created_at: 1767225600 } },
        { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'completed' },
        { type: 'usage', usage: { promptTokens: 41, completionTokens: 19, totalTokens: 60, cachedPromptTokens: 32 } },
        { type: 'timings', timings: TIMINGS },
        { type: 'done' },
      ]);
    });

    it('reads timings inside the response as well', () => {
      const stream =
        ev('{"type":"response.created","response":{"id":"resp_ll2","object":"response","status":"in_progress"}}') +
        ev('{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hi"}') +
        ev(
          '{"type":"response.completed","response":{"id":"resp_ll2","status":"completed","model":"gemma","output":[],' +
            '"timings":{"prompt_n":3,"predicted_n":1}}}',
        );
      const { completion } = assembleAtEverySize(stream);
      expect(completion).toMatchObject({ model: 'gemma', timings: { prompt_n: 3, predicted_n: 1 } });
    });

    it('sends one start when the first response names the model (OpenAI)', () => {
      // OpenAI's response.created already names the model: https://platform.openai.com/docs/api-reference/responses-streaming/response/created
      const stream =
        CREATED +
        ev('{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}') +
        ev('{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5-2025-08-07","output":[]}}');
      const { events, completion } = assembleAtEverySize(stream);
      expect(only(events, 'start')).toEqual([{ type: 'start', id: 'resp_1', model: 'gpt-5' }]);
      expect(completion?.model).toBe('gpt-5');
    });
  });
});
