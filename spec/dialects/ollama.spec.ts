import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectOptions } from '../../src/dialects/Dialect';
import { ollama } from '../../src/dialects/ollama/ollama';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion } from '../../src/types/events';
import { runSync } from '../support/collect';
import { assembleText, readBytes, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

// The example stream of this dialect, byte for byte (marbles/README.md says where it came from).
const EXAMPLE = marbleFile('dialects/ollama-native.ndjson');
const NDJSON = { framing: 'ndjson' } as const;

/** Runs frames through the ollama core; returns the events and the error, if any. */
const readOllama = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(ollama, frames, options);

/** An `/api/chat` line with this message (and no `done`). */
function line(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    model: 'qwen3:8b',
    created_at: '2026-01-01T00:00:00Z',
    message: { role: 'assistant', content: '', ...message },
    done: false,
    ...extra,
  };
}

/** The last `/api/chat` line. */
function last(extra: Record<string, unknown> = {}) {
  return line({}, { done: true, done_reason: 'stop', ...extra });
}

const DONE_LINE = frame(last());
/** The start event: the format has no id, so the stream names itself by its model. */
const start = (model: string): ChatEvent => ({ type: 'start', id: '', model });
/** The start of a stream of `line`s (model `qwen3:8b`). */
const started = start('qwen3:8b');
const stopped: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };
const done: ChatEvent = { type: 'done' };

const REASONING = "The user wants the current weather in Paris and Tokyo. I'll call get_weather once per city.";
const PARIS = {
  index: 0,
  id: 'call_k3j9x2ma',
  name: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
  args: { city: 'Paris', unit: 'celsius' },
};
const TOKYO = {
  index: 1,
  id: 'call_p7q1w8zn',
  name: 'get_weather',
  arguments: '{"city":"Tokyo","unit":"celsius"}',
  args: { city: 'Tokyo', unit: 'celsius' },
};

/** The done line's durations: fields the dialect does not map, kept on the reply. */
const DURATIONS = { total_duration: 2183477125, load_duration: 31250875, prompt_eval_duration: 142389000, eval_duration: 1952103000 };

/** The example stream's completion, read off the file by hand. */
const EXAMPLE_COMPLETION: Completion = {
  id: '',
  model: 'qwen3:8b',
  content: 'Let me check both cities.',
  reasoning: REASONING,
  refusal: null,
  toolCalls: [PARIS, TOKYO],
  finishReason: 'tool_calls',
  rawFinishReason: 'stop',
  usage: { promptTokens: 187, completionTokens: 96, totalTokens: 283 },
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'Let me check both cities.',
      reasoning: REASONING,
      refusal: null,
      toolCalls: [PARIS, TOKYO],
      finishReason: 'tool_calls',
      rawFinishReason: 'stop',
    },
  ],
  providerMetadata: { ollama: DURATIONS },
};

/** The example stream's events, read off the file by hand. */
const EXAMPLE_EVENTS: ChatEvent[] = [
  { type: 'start', id: '', model: 'qwen3:8b' },
  { type: 'reasoning', choice: 0, text: 'The user wants the current' },
  { type: 'reasoning', choice: 0, text: ' weather in Paris and Tokyo.' },
  { type: 'reasoning', choice: 0, text: " I'll call get_weather once per city." },
  { type: 'content', choice: 0, text: 'Let me' },
  { type: 'content', choice: 0, text: ' check both' },
  { type: 'content', choice: 0, text: ' cities.' },
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_k3j9x2ma', name: 'get_weather', arguments: PARIS.arguments },
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_p7q1w8zn', name: 'get_weather', arguments: TOKYO.arguments },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'provider-metadata', provider: 'ollama', fields: DURATIONS },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' },
  { type: 'usage', usage: { promptTokens: 187, completionTokens: 96, totalTokens: 283 } },
  { type: 'done' },
];

describe('ollama dialect', () => {
  exampleStreamSuite({
    dialect: ollama,
    file: 'dialects/ollama-native.ndjson',
    framing: 'ndjson',
    completion: EXAMPLE_COMPLETION,
    events: EXAMPLE_EVENTS,
    auto: true,
    more: () => {
      it('assembles identically with CRLF line ends and blank lines between objects', () => {
        const text = new TextDecoder().decode(readBytes(EXAMPLE)).replace(/\n/g, '\r\n\r\n');
        for (const size of [1, 7, 64]) {
          expect(assembleText(text, ollama, { ...NDJSON, chunkSize: size })).toEqual({
            events: EXAMPLE_EVENTS,
            completion: EXAMPLE_COMPLETION,
          });
        }
      });
    },
  });

  describe('/api/generate', () => {
    const generate =
      [
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","response":"","thinking":"Blue light","done":false}',
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:01Z","response":"","thinking":" scatters.","done":false}',
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:02Z","response":"The sky","done":false}',
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:03Z","response":" is blue.","done":false}',
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:04Z","response":"","done":true,"done_reason":"stop",' +
          '"context":[1,2,3],"total_duration":10706818083,"load_duration":6338219291,"prompt_eval_count":26,' +
          '"prompt_eval_duration":130079000,"eval_count":259,"eval_duration":4232710000}',
      ].join('\n') + '\n';

    // The done line's fields the dialect does not map, `context` (the tokens of the next turn) among them.
    const GENERATE_KEPT = {
      context: [1, 2, 3],
      total_duration: 10706818083,
      load_duration: 6338219291,
      prompt_eval_duration: 130079000,
      eval_duration: 4232710000,
    };

    it('reads response as content and thinking as reasoning, and assembles', () => {
      expect(assembleText(generate, ollama, NDJSON)).toEqual({
        events: [
          { type: 'start', id: '', model: 'llama3.2' },
          { type: 'reasoning', choice: 0, text: 'Blue light' },
          { type: 'reasoning', choice: 0, text: ' scatters.' },
          { type: 'content', choice: 0, text: 'The sky' },
          { type: 'content', choice: 0, text: ' is blue.' },
          { type: 'provider-metadata', provider: 'ollama', fields: GENERATE_KEPT },
          stopped,
          { type: 'usage', usage: { promptTokens: 26, completionTokens: 259, totalTokens: 285 } },
          done,
        ],
        completion: {
          id: '',
          model: 'llama3.2',
          content: 'The sky is blue.',
          reasoning: 'Blue light scatters.',
          refusal: null,
          toolCalls: [],
          finishReason: 'stop',
          rawFinishReason: 'stop',
          usage: { promptTokens: 26, completionTokens: 259, totalTokens: 285 },
          timings: null,
          reasoningTokens: 0,
          choices: [
            {
              index: 0,
              content: 'The sky is blue.',
              reasoning: 'Blue light scatters.',
              refusal: null,
              toolCalls: [],
              finishReason: 'stop',
              rawFinishReason: 'stop',
            },
          ],
          providerMetadata: { ollama: GENERATE_KEPT },
        },
      });
    });

    it('is a ProtocolError for a response that is not text', () => {
      const { error } = readOllama([frame({ response: 7, done: false })]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 1: response is 7, not text');
    });
  });

  describe('order of events and text', () => {
    it(
      'is start (on the first line with a model), reasoning, content, then ' +
        'per call delta and end; on the done line then finish, usage, done',
      () => {
        const payload = line(
          { thinking: 'T', content: 'C', tool_calls: [{ id: 'a', function: { name: 'f', arguments: { x: 1 } } }] },
          { done: true, done_reason: 'stop', prompt_eval_count: 2, eval_count: 3 },
        );
        expect(readOllama([frame(payload)])).toEqual({
          events: [
            { type: 'start', id: '', model: 'qwen3:8b' },
            { type: 'reasoning', choice: 0, text: 'T' },
            { type: 'content', choice: 0, text: 'C' },
            { type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"x":1}' },
            { type: 'tool-call-end', choice: 0, index: 0 },
            { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' },
            { type: 'usage', usage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 } },
            done,
          ],
        });
      },
    );

    it(
      "emits start once, with id '' (the format has no id), before the other " +
        'events of the first line with a model, whatever else the lines carry',
      () => {
        const { events } = readOllama([
          frame(line({ content: 'x' }, { id: 'nope', model: 'm' })),
          frame(line({ content: 'y' }, { model: 'other' })),
          DONE_LINE,
        ]);
        expect(events).toEqual([
          { type: 'start', id: '', model: 'm' },
          { type: 'content', choice: 0, text: 'x' },
          // The id the format does not have is no id of the reply: a field it does not map, kept.
          { type: 'provider-metadata', provider: 'ollama', fields: { id: 'nope' } },
          { type: 'content', choice: 0, text: 'y' },
          stopped,
          done,
        ]);
      },
    );

    it('emits start at the first line that has a model, when the first lines have none', () => {
      const { events } = readOllama([
        frame({ created_at: 't', message: { role: 'assistant', content: 'a' }, done: false }),
        frame({ model: '', created_at: 't', message: { role: 'assistant', content: 'b' }, done: false }),
        frame({ model: null, created_at: 't', message: { role: 'assistant', content: 'c' }, done: false }),
        frame(line({ thinking: 'd', content: 'e' })),
        frame(line({ content: 'f' }, { model: 'later:1b' })),
        DONE_LINE,
      ]);
      expect(events).toEqual([
        { type: 'content', choice: 0, text: 'a' },
        { type: 'content', choice: 0, text: 'b' },
        { type: 'content', choice: 0, text: 'c' },
        { type: 'start', id: '', model: 'qwen3:8b' },
        { type: 'reasoning', choice: 0, text: 'd' },
        { type: 'content', choice: 0, text: 'e' },
        { type: 'content', choice: 0, text: 'f' },
        stopped,
        done,
      ]);
    });

    it('emits no start when no line names a model', () => {
      const { events, error } = readOllama([
        frame({ message: { role: 'assistant', content: 'x' }, done: false }),
        frame({ model: '', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }),
      ]);
      expect(error).toBeUndefined();
      expect(events).toEqual([{ type: 'content', choice: 0, text: 'x' }, stopped, done]);
    });

    it("assembles a stream that names no model to the id '' and no model", () => {
      const { completion } = assembleText('{"message":{"content":"x"},"done":false}\n{"done":true,"done_reason":"stop"}\n', ollama, NDJSON);
      expect(completion).toMatchObject({ id: '', model: null, content: 'x', finishReason: 'stop' });
    });

    it.each([
      ['empty content', { content: '' }],
      ['null content', { content: null }],
      ['empty thinking', { thinking: '' }],
      ['role only', { role: 'assistant' }],
      ['empty tool_calls', { tool_calls: [] }],
      ['tool_calls: null', { tool_calls: null }],
    ])('makes no event but the start for %s', (_name, message) => {
      expect(readOllama([frame(line(message)), DONE_LINE]).events).toEqual([started, stopped, done]);
    });

    it('makes no event but the start for a line without message (a keep-alive with only model and created_at)', () => {
      expect(readOllama([frame({ model: 'm', created_at: 't', done: false }), DONE_LINE]).events).toEqual([start('m'), stopped, done]);
    });

    it('reads text on the done line before finishing', () => {
      const { events } = readOllama([frame(line({ content: 'bye' }, { done: true, done_reason: 'stop' }))]);
      expect(events).toEqual([started, { type: 'content', choice: 0, text: 'bye' }, stopped, done]);
    });
  });

  describe('tool calls', () => {
    const calls = (frames: SseFrame[], options: DialectOptions = {}) =>
      readOllama([...frames, DONE_LINE], options).events.filter((e) => e.type === 'tool-call-delta' || e.type === 'tool-call-end');

    it('numbers calls densely in order of arrival, several in one line and across lines, each closed at once', () => {
      expect(
        calls([
          frame(
            line({
              tool_calls: [
                { id: 'call_a', function: { index: 0, name: 'f', arguments: { a: 1 } } },
                { id: 'call_b', function: { index: 1, name: 'g', arguments: { b: [1, 2] } } },
              ],
            }),
          ),
          frame(line({ tool_calls: [{ id: 'call_c', function: { index: 2, name: 'h', arguments: { c: { d: null } } } }] })),
        ]),
      ).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_a', name: 'f', arguments: '{"a":1}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_b', name: 'g', arguments: '{"b":[1,2]}' },
        { type: 'tool-call-end', choice: 0, index: 1 },
        { type: 'tool-call-delta', choice: 0, index: 2, id: 'call_c', name: 'h', arguments: '{"c":{"d":null}}' },
        { type: 'tool-call-end', choice: 0, index: 2 },
      ]);
    });

    it('synthesizes ollama-call-<index> for a call without an id (older servers), and for an empty id', () => {
      expect(
        calls([
          frame(line({ tool_calls: [{ function: { name: 'f', arguments: {} } }] })),
          frame(line({ tool_calls: [{ id: '', function: { name: 'g', arguments: {} } }] })),
        ]).filter((e) => e.type === 'tool-call-delta'),
      ).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'ollama-call-0', name: 'f', arguments: '{}' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'ollama-call-1', name: 'g', arguments: '{}' },
      ]);
    });

    it('numbers by arrival, not by function.index (which may be sparse or repeat)', () => {
      const indices = calls([
        frame(line({ tool_calls: [{ id: 'a', function: { index: 3, name: 'f', arguments: {} } }] })),
        frame(line({ tool_calls: [{ id: 'b', function: { index: 0, name: 'f', arguments: {} } }] })),
      ])
        .filter((e) => e.type === 'tool-call-delta')
        .map((e) => (e as { index: number }).index);
      expect(indices).toEqual([0, 1]);
    });

    it('serializes absent or null arguments as {}', () => {
      const { completion } = assembleText(
        `${JSON.stringify(
          line({
            tool_calls: [
              { id: 'a', function: { name: 'now' } },
              { id: 'b', function: { name: 'today', arguments: null } },
            ],
          }),
        )}\n${JSON.stringify(last())}\n`,
        ollama,
        NDJSON,
      );
      expect(completion?.toolCalls).toEqual([
        { index: 0, id: 'a', name: 'now', arguments: '{}', args: {} },
        { index: 1, id: 'b', name: 'today', arguments: '{}', args: {} },
      ]);
    });

    it('takes arguments sent as a JSON string as they are, unless strict', () => {
      const stringCall = frame(line({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":1}' } }] }));
      expect(calls([stringCall])[0]).toEqual({ type: 'tool-call-delta', choice: 0, index: 0, id: 'a', name: 'f', arguments: '{"x":1}' });
      const { error } = readOllama([stringCall, DONE_LINE], { strict: true });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 1: message.tool_calls[0].function.arguments is "{\\"x\\":1}", not an object');
    });
  });

  describe('finish reasons and the end of the stream', () => {
    it.each([
      ['stop', 'stop'],
      ['length', 'length'],
      ['load', 'other'],
      ['unload', 'other'],
      ['something_new', 'other'],
    ])('normalizes done_reason %s to %s, keeping the raw value', (raw, reason) => {
      expect(readOllama([frame(last({ done_reason: raw }))]).events).toEqual([started, { type: 'finish', choice: 0, reason, raw }, done]);
    });

    it('normalizes stop to tool_calls when calls came before the done line (Ollama has no tool-call reason)', () => {
      const { events } = readOllama([frame(line({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: {} } }] })), DONE_LINE]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' });
    });

    it('keeps length as length even with calls', () => {
      const { events } = readOllama([
        frame(line({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: {} } }] })),
        frame(last({ done_reason: 'length' })),
      ]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'length', raw: 'length' });
    });

    it('counts a done line without done_reason (old servers) as stop', () => {
      expect(readOllama([frame(line({}, { done: true }))]).events).toEqual([started, stopped, done]);
    });

    it('ignores lines after the done line', () => {
      const { events, error } = readOllama([DONE_LINE, frame(line({ content: 'late' })), frame('{"error":"late"}')]);
      expect(error).toBeUndefined();
      expect(events).toEqual([started, stopped, done]);
    });

    it('under strict, is a ProtocolError for a line after the done line', () => {
      const { error } = readOllama([DONE_LINE, frame(line({ content: 'late' }))], { strict: true });
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 2: a line arrived after the "done": true line');
    });
  });

  describe('usage', () => {
    it('reads prompt_eval_count and eval_count from the done line, the total being their sum', () => {
      expect(
        readOllama([frame(last({ prompt_eval_count: 10, eval_count: 32, total_duration: 5, eval_duration: 4 }))]).events,
      ).toContainEqual({
        type: 'usage',
        usage: { promptTokens: 10, completionTokens: 32, totalTokens: 42 },
      });
    });

    it('reports a lone eval_count without inventing a total (the prompt count is left out when cached)', () => {
      expect(readOllama([frame(last({ eval_count: 32 }))]).events).toContainEqual({
        type: 'usage',
        usage: { promptTokens: null, completionTokens: 32, totalTokens: null },
      });
    });

    it('makes no usage event when the done line has no counts', () => {
      expect(readOllama([DONE_LINE]).events).toEqual([started, stopped, done]);
    });

    it('ignores counts on lines that are not done', () => {
      expect(readOllama([frame(line({}, { eval_count: 5 })), DONE_LINE]).events).toEqual([started, stopped, done]);
    });
  });

  describe('log probabilities', () => {
    // With `logprobs: true` (and `top_logprobs: n`) in the request, each line carries the log
    // probabilities of its tokens at the top level: `logprobs: [{token, logprob, bytes, top_logprobs:
    // [{token, logprob, bytes}]}]`, on /api/chat as on /api/generate.
    // https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
    // https://github.com/ollama/ollama-python/pull/601 (the client's `logprobs` and `top_logprobs`)
    const chat =
      [
        '{"model":"gemma3","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi"},"done":false,' +
          '"logprobs":[{"token":"Hi","logprob":-0.01,"bytes":[72,105],"top_logprobs":[{"token":"Hi","logprob":-0.01,"bytes":[72,105]},' +
          '{"token":"Hello","logprob":-4.75,"bytes":[72,101,108,108,111]}]}]}',
        '{"model":"gemma3","created_at":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":" there"},"done":false,' +
          '"logprobs":[{"token":" the","logprob":-0.5,"top_logprobs":[]},{"token":"re","logprob":-0.25}]}',
        '{"model":"gemma3","created_at":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":""},"done":true,' +
          '"done_reason":"stop","prompt_eval_count":12,"eval_count":3}',
      ].join('\n') + '\n';
    const first = {
      token: 'Hi',
      logprob: -0.01,
      bytes: [72, 105],
      top_logprobs: [
        { token: 'Hi', logprob: -0.01, bytes: [72, 105] },
        { token: 'Hello', logprob: -4.75, bytes: [72, 101, 108, 108, 111] },
      ],
    };
    const second = { token: ' the', logprob: -0.5, bytes: null, top_logprobs: [] };
    const third = { token: 're', logprob: -0.25, bytes: null, top_logprobs: [] };

    it("emits each line's tokens as a logprobs event after its text, and the completion joins them", () => {
      const whole = assembleText(chat, ollama, NDJSON);
      for (const chunkSize of [1, 2, 7, 64]) expect(assembleText(chat, ollama, { ...NDJSON, chunkSize })).toEqual(whole);
      expect(whole.events).toEqual([
        start('gemma3'),
        { type: 'content', choice: 0, text: 'Hi' },
        { type: 'logprobs', choice: 0, content: [first] },
        { type: 'content', choice: 0, text: ' there' },
        { type: 'logprobs', choice: 0, content: [second, third] },
        stopped,
        { type: 'usage', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } },
        done,
      ]);
      expect(whole.completion?.logprobs).toEqual({ content: [first, second, third], refusal: null });
    });

    it("keeps every line's values when lines of one shape are read through a template that reuses their objects", () => {
      const shaped = (token: string, byte: number) =>
        `{"model":"m","created_at":"t","response":"${token}","done":false,"logprobs":[{"token":"${token}","logprob":-0.5,` +
        `"bytes":[${byte}],"top_logprobs":[{"token":"${token}","logprob":-0.5,"bytes":[${byte}]}]}]}\n`;
      const text = shaped('a', 97) + shaped('b', 98) + shaped('c', 99) + shaped('d', 100) + '{"model":"m","done":true}\n';
      const { completion } = assembleText(text, ollama, NDJSON);
      expect(completion?.logprobs?.content).toEqual(
        [
          ['a', 97],
          ['b', 98],
          ['c', 99],
          ['d', 100],
        ].map(([token, byte]) => ({ token, logprob: -0.5, bytes: [byte], top_logprobs: [{ token, logprob: -0.5, bytes: [byte] }] })),
      );
    });

    it('reads them on /api/generate lines too, and makes no event for an empty list', () => {
      const generate =
        '{"model":"llama3.2","created_at":"t","response":"Yes","done":false,' +
        '"logprobs":[{"token":"Yes","logprob":-0.1,"bytes":[89,101,115]}]}\n' +
        '{"model":"llama3.2","created_at":"t","response":"","done":true,"done_reason":"stop","logprobs":[]}\n';
      const { events } = assembleText(generate, ollama, NDJSON);
      expect(events.filter((e) => e.type === 'logprobs')).toEqual([
        { type: 'logprobs', choice: 0, content: [{ token: 'Yes', logprob: -0.1, bytes: [89, 101, 115], top_logprobs: [] }] },
      ]);
    });

    it.each([
      ['logprobs as an object', { logprobs: {} }, 'frame 1: logprobs is an object, not an array'],
      ['an entry without a token', { logprobs: [{ logprob: -1 }] }, 'frame 1: logprobs[0].token is missing, not text'],
      ['an entry without a logprob', { logprobs: [{ token: 'a' }] }, 'frame 1: logprobs[0].logprob is missing, not a number'],
      [
        'bytes that are not numbers',
        { logprobs: [{ token: 'a', logprob: -1, bytes: ['a'] }] },
        'frame 1: logprobs[0].bytes is not an array of numbers',
      ],
      [
        'an alternative that is not an object',
        { logprobs: [{ token: 'a', logprob: -1, top_logprobs: [1] }] },
        'frame 1: logprobs[0].top_logprobs[0] is 1, not an object',
      ],
    ])('is a ProtocolError for %s', (_name, extra, message) => {
      const { error } = readOllama([frame(line({ content: 'a' }, extra)), DONE_LINE]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(message);
    });
  });

  describe('lines it does not read', () => {
    // A line with neither `message`, `response` nor `done` is none of /api/chat's or /api/generate's
    // (the progress lines of /api/pull are `{"status": ...}`). https://github.com/ollama/ollama/blob/main/docs/api.md#pull-a-model
    const stream =
      '{"status":"pulling manifest"}\n' +
      '{"model":"qwen3:8b","created_at":"t","message":{"role":"assistant","content":"ok"},"done":false}\n' +
      '{"model":"qwen3:8b","created_at":"t","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n';

    it('with unknownEvents, passes such a line on as an unknown event (a copy, no event name)', () => {
      const { events } = assembleText(stream, ollama, { ...NDJSON, dialect: { unknownEvents: true } });
      expect(events).toEqual([
        { type: 'unknown', payload: { status: 'pulling manifest' } },
        started,
        { type: 'content', choice: 0, text: 'ok' },
        stopped,
        done,
      ]);
    });

    it('without unknownEvents, skips it', () => {
      expect(assembleText(stream, ollama, NDJSON).events).toEqual([started, { type: 'content', choice: 0, text: 'ok' }, stopped, done]);
    });
  });

  describe('unknown fields', () => {
    it('reads the same past unknown fields at every level, and keeps them where they arrived', () => {
      const noisy = [
        line({ content: 'hi', images: null, extra: 1 }, { remote_model: 'x', remote_host: 'y' }),
        line({
          tool_calls: [
            { id: 'a', type: 'function', extra: true, function: { index: 0, name: 'f', arguments: { a: 1 }, description: 'd' } },
          ],
        }),
        last({ prompt_eval_count: 1, eval_count: 2, load_duration: 3, context: [1] }),
      ];
      const plain = [
        line({ content: 'hi' }),
        line({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: { a: 1 } } }] }),
        last({ prompt_eval_count: 1, eval_count: 2 }),
      ];
      const noisyResult = readOllama(noisy.map((l) => frame(l)));
      expect(noisyResult.error).toBeUndefined();
      const kept = noisyResult.events.filter((event) => event.type === 'provider-metadata');
      expect({ events: noisyResult.events.filter((event) => event.type !== 'provider-metadata') }).toEqual(
        readOllama(plain.map((l) => frame(l))),
      );
      expect(kept).toEqual([
        { type: 'provider-metadata', provider: 'ollama', choice: 0, fields: { images: null, extra: 1 } },
        { type: 'provider-metadata', provider: 'ollama', fields: { remote_model: 'x', remote_host: 'y' } },
        { type: 'provider-metadata', provider: 'ollama', choice: 0, call: 0, fields: { extra: true } },
        { type: 'provider-metadata', provider: 'ollama', choice: 0, call: 0, fields: { description: 'd' } },
        { type: 'provider-metadata', provider: 'ollama', fields: { load_duration: 3, context: [1] } },
      ]);
    });
  });

  describe('errors', () => {
    it('is a ProviderError for an {"error": "..."} line, with its message', () => {
      const { error } = readOllama([frame(line({ content: 'x' })), frame({ error: "model 'llama9' not found" })]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: "the provider reported an error at frame 2: model 'llama9' not found",
        type: undefined,
        code: undefined,
        position: { event: 2 },
        body: { error: "model 'llama9' not found" },
      });
    });

    it('is a ProviderError for an error object, with its type and code', () => {
      const { error } = readOllama([frame({ error: { message: 'busy', type: 'server_error', code: 503 } })]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider reported an error at frame 1: busy (server_error, code 503)',
        type: 'server_error',
        code: 503,
      });
    });

    it('keeps what arrived before a mid-stream error as the partial', () => {
      const text =
        `${JSON.stringify(line({ thinking: 'hmm' }))}\n${JSON.stringify(line({ content: 'Half an ans' }))}\n{"error":"an ` +
        `error was encountered while running the model"}\n`;
      const { error } = assembleText(text, ollama, NDJSON);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider reported an error at frame 3: an error was encountered while running the model',
        partial: { id: '', model: 'qwen3:8b', content: 'Half an ans', reasoning: 'hmm', finishReason: null },
      });
    });

    it('is a ProtocolError for a line that is not JSON, or not an object', () => {
      expect((readOllama([frame('{"model":')]).error as Error).message).toBe('frame 1: line is not JSON: "{\\"model\\":"');
      expect((readOllama([frame('[1]')]).error as Error).message).toBe('frame 1: expected a JSON object, got "[1]"');
      expect(readOllama([frame('"text"')]).error).toBeInstanceOf(ProtocolError);
    });

    it.each([
      ['message as a string', { message: 'hi' }, 'frame 1: message is not an object'],
      ['content as a number', { message: { content: 5 } }, 'frame 1: message.content is 5, not text'],
      ['thinking as an object', { message: { thinking: {} } }, 'frame 1: message.thinking is an object, not text'],
      ['tool_calls as an object', { message: { tool_calls: {} } }, 'frame 1: message.tool_calls is not an array'],
      ['a call that is not an object', { message: { tool_calls: ['f'] } }, 'frame 1: message.tool_calls[0] is not an object'],
      [
        'a call without function',
        { message: { tool_calls: [{ id: 'a' }] } },
        'frame 1: message.tool_calls[0].function is missing, not an object',
      ],
      [
        'a call without a name',
        { message: { tool_calls: [{ function: { arguments: {} } }] } },
        'frame 1: message.tool_calls[0].function.name is missing, not a function name',
      ],
      [
        'arguments as a number',
        { message: { tool_calls: [{ function: { name: 'f', arguments: 1 } }] } },
        'frame 1: message.tool_calls[0].function.arguments is 1, not an object',
      ],
      [
        'arguments as an array',
        { message: { tool_calls: [{ function: { name: 'f', arguments: [1] } }] } },
        'frame 1: message.tool_calls[0].function.arguments is an array, not an object',
      ],
      ['done as a string', { done: 'true' }, 'frame 1: done is "true", not a boolean'],
      ['done_reason as a number', { done: true, done_reason: 1 }, 'frame 1: done_reason is 1'],
    ])('is a ProtocolError for %s', (_name, payload, message) => {
      const { error } = readOllama([frame(payload)]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ message, position: { event: 1 } });
    });
  });

  describe('truncation', () => {
    const example = new TextDecoder().decode(readBytes(EXAMPLE));
    const lines = example.split('\n').filter((l) => l !== '');
    const reasoning = "The user wants the current weather in Paris and Tokyo. I'll call get_weather once per city.";
    const paris = {
      index: 0,
      id: 'call_k3j9x2ma',
      name: 'get_weather',
      arguments: '{"city":"Paris","unit":"celsius"}',
      args: { city: 'Paris', unit: 'celsius' },
      complete: true,
    };

    it('has nine lines to cut', () => {
      expect(lines).toHaveLength(9);
    });

    it('is a StreamClosedEarlyError when the stream ends before the done line, with the calls that came', () => {
      const { error } = assembleText(
        lines
          .slice(0, 8)
          .map((l) => `${l}\n`)
          .join(''),
        ollama,
        NDJSON,
      );
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({
        message: 'the stream ended without a "done": true line after 8 lines',
        position: { event: 8 },
        partial: {
          id: '',
          model: 'qwen3:8b',
          content: 'Let me check both cities.',
          reasoning,
          toolCalls: [paris, { index: 1, id: 'call_p7q1w8zn', complete: true }],
          finishReason: null,
          usage: null,
        },
      });
    });

    it('is a StreamClosedEarlyError when the done line has no line end (mid-line)', () => {
      const { error } = assembleText(example.slice(0, example.length - 1), ollama, NDJSON);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended mid-line: line 9 has no line end');
      expect(error).toMatchObject({ position: { line: 9 }, partial: { content: 'Let me check both cities.', finishReason: null } });
    });

    it("is a StreamClosedEarlyError when the stream ends inside a call's arguments, without the call", () => {
      const { error, events } = assembleText(example.slice(0, example.indexOf('"Tokyo"') + 3), ollama, NDJSON);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended mid-line: line 8 has no line end');
      expect(error).toMatchObject({ partial: { reasoning, toolCalls: [paris], finishReason: null } });
      expect(events.filter((e) => e.type === 'tool-call-delta')).toHaveLength(1);
    });

    it('is a StreamClosedEarlyError for an empty stream', () => {
      const { error } = assembleText('', ollama, NDJSON);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without a "done": true line after 0 lines');
    });
  });

  describe('as an operator (marbles)', () => {
    let testScheduler: TestScheduler;
    beforeEach(() => {
      testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    });

    it('maps lines to events and completes at the end of the source after the done line', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a---b---c------d-------|', {
          a: frame(line({ thinking: 'Hm' })),
          b: frame(line({ content: 'Hi' })),
          c: frame(line({ tool_calls: [{ id: 'x', function: { name: 'f', arguments: { q: 1 } } }] })),
          d: frame(last({ prompt_eval_count: 1, eval_count: 2 })),
        });
        const expected = '             -(gr)s---(te)---(fuz)---|';
        expectObservable(source.pipe(assembleChunks({ dialect: ollama }))).toBe(expected, {
          g: started,
          r: { type: 'reasoning', choice: 0, text: 'Hm' },
          s: { type: 'content', choice: 0, text: 'Hi' },
          t: { type: 'tool-call-delta', choice: 0, index: 0, id: 'x', name: 'f', arguments: '{"q":1}' },
          e: { type: 'tool-call-end', choice: 0, index: 0 },
          f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' },
          u: { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
          z: done,
        });
        expectSubscriptions(source.subscriptions).toBe('^-----------------------!');
      });
    });

    it('keeps whole calls apart when one line carries two of them', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold<SseFrame>('-a--------d----|', {
          a: frame(
            line({ tool_calls: [{ function: { name: 'f', arguments: { n: 1 } } }, { function: { name: 'g', arguments: { n: 2 } } }] }),
          ),
          d: DONE_LINE,
        });
        const expected = '             -(gpqrs)--(fz)-|';
        expectObservable(source.pipe(assembleChunks({ dialect: ollama }))).toBe(expected, {
          g: started,
          p: { type: 'tool-call-delta', choice: 0, index: 0, id: 'ollama-call-0', name: 'f', arguments: '{"n":1}' },
          q: { type: 'tool-call-end', choice: 0, index: 0 },
          r: { type: 'tool-call-delta', choice: 0, index: 1, id: 'ollama-call-1', name: 'g', arguments: '{"n":2}' },
          s: { type: 'tool-call-end', choice: 0, index: 1 },
          f: { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'stop' },
          z: done,
        });
      });
    });

    it('errors with ProviderError at an error line and unsubscribes from the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a----e--b--|', {
          a: frame(line({ content: 'x' })),
          e: frame({ error: 'out of memory' }),
          b: frame(line({ content: 'never' })),
        });
        const error = new ProviderError('the provider reported an error at frame 2: out of memory');
        expectObservable(source.pipe(assembleChunks({ dialect: ollama }))).toBe(
          '-(gx)-#',
          { g: started, x: { type: 'content', choice: 0, text: 'x' } },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^-----!');
      });
    });

    it('errors with StreamClosedEarlyError when the source completes before the done line', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<SseFrame>('-a---|', { a: frame(line({ content: 'x' })) });
        const error = new StreamClosedEarlyError('the stream ended without a "done": true line after 1 line');
        expectObservable(source.pipe(assembleChunks({ dialect: ollama }))).toBe(
          '-(gx)#',
          { g: started, x: { type: 'content', choice: 0, text: 'x' } },
          error,
        );
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('lets an early unsubscribe reach the source', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const live = hot<SseFrame>('-a--a--|', { a: frame(line({ content: 'x' })) });
        expectObservable(live.pipe(assembleChunks({ dialect: ollama })), '---!').toBe('-(gx)', {
          g: started,
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
          subscriber.next(frame(line({ content: String(i) })));
        }
      });
      // The first line gives start and its content, so the third value is the second line's content.
      const outcome = runSync([0], () => synchronous.pipe(assembleChunks({ dialect: ollama }), take(3)));
      expect(outcome.values).toEqual([started, { type: 'content', choice: 0, text: '0' }, { type: 'content', choice: 0, text: '1' }]);
      expect(produced).toEqual([0, 1]);
    });
  });
});
