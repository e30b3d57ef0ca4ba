import { readFileSync } from 'fs';
import { SseFrame } from '../../src/frames/SseParser';
import { COHERE_FINISH_REASONS, cohere } from '../../src/dialects/cohere/cohere';
import { DialectOptions } from '../../src/dialects/Dialect';
import { autoDialect, detectDialect } from '../../src/dialects/auto';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Completion, Source } from '../../src/types/events';
import { assembleText, marbleFile } from '../support/dialect';
import { exampleStreamSuite } from '../support/dialectSuite';
import { frame, readDialect } from '../support/frames';

// Cohere's v2 chat stream. The example streams (marbles/dialects/cohere/, whose origins
// marbles/README.md gives) are the two steps of Cohere's tool-use streaming guide and a reasoning
// model's reply recorded by the AI SDK's Cohere provider. What each should give is written out
// below by hand, from the bytes.

/** Runs frames through the cohere core; returns the events and the error, if any. */
const read = (frames: readonly SseFrame[], options?: DialectOptions) => readDialect(cohere, frames, options);

/** A frame as Cohere sends it: the event name repeats `data.type`. */
const named = (payload: { type: string } & Record<string, unknown>) => frame(payload, payload.type);
const messageStart = (id = 'gen-1') =>
  named({
    type: 'message-start',
    id,
    delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
  });
const contentStart = (index: number, type: string, field = type) =>
  named({ type: 'content-start', index, delta: { message: { content: { type, [field]: '' } } } });
const contentDelta = (index: number, content: Record<string, unknown>) =>
  named({ type: 'content-delta', index, delta: { message: { content } } });
const contentEnd = (index: number) => named({ type: 'content-end', index });
const toolPlan = (text: string) => named({ type: 'tool-plan-delta', delta: { message: { tool_plan: text } } });
const callStart = (index: number, id: unknown, name: unknown, extra: Record<string, unknown> = {}) =>
  named({
    type: 'tool-call-start',
    index,
    delta: { message: { tool_calls: { id, type: 'function', function: { name, arguments: '' }, ...extra } } },
  });
const callDelta = (index: number, args: unknown) =>
  named({ type: 'tool-call-delta', index, delta: { message: { tool_calls: { function: { arguments: args } } } } });
const callEnd = (index: number) => named({ type: 'tool-call-end', index });
const citation = (index: number, citations: Record<string, unknown>) =>
  named({ type: 'citation-start', index, delta: { message: { citations } } });
const messageEnd = (finishReason: unknown, usage?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  named({ type: 'message-end', delta: { finish_reason: finishReason, ...(usage === undefined ? {} : { usage }), ...extra } });

const START: ChatEvent = { type: 'start', id: 'gen-1', model: null };
const DONE: ChatEvent = { type: 'done' };

// --- marbles/dialects/cohere/cohere-v2.sse: the answer of the tool-use guide's second step ---

const WEATHER_TEXT = 'It is currently 24°C in Madrid and 28°C in Brasilia.';
const WEATHER_PIECES = ['It', ' is', ' currently', ' 2', '4', '°', 'C in', ' Madrid', ' and', ' 2', '8', '°', 'C in', ' Brasilia', '.'];
// "It is currently " is 16 characters: "24°C" is 16 to 20, and "28°C" 35 to 39 (° is one UTF-16 unit).
const MADRID_SOURCE: Source = { kind: 'document', documentId: 'get_weather_m3kdvxncg1p8:0', span: { start: 16, end: 20 } };
const BRASILIA_SOURCE: Source = { kind: 'document', documentId: 'get_weather_cfwfh3wzkbrs:0', span: { start: 35, end: 39 } };
const WEATHER_USAGE = { promptTokens: 1061, completionTokens: 85, totalTokens: 1146 };

const ANSWER_EVENTS: ChatEvent[] = [
  { type: 'start', id: 'e8f9afc1-0888-46f0-a9ed-eb0e5a51e17f', model: null },
  ...WEATHER_PIECES.map((text): ChatEvent => ({ type: 'content', choice: 0, text })),
  { type: 'source', choice: 0, source: MADRID_SOURCE },
  { type: 'source', choice: 0, source: BRASILIA_SOURCE },
  { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' },
  { type: 'usage', usage: WEATHER_USAGE },
  DONE,
];

const ANSWER_COMPLETION: Completion = {
  id: 'e8f9afc1-0888-46f0-a9ed-eb0e5a51e17f',
  model: null,
  content: WEATHER_TEXT,
  reasoning: null,
  refusal: null,
  toolCalls: [],
  finishReason: 'stop',
  rawFinishReason: 'COMPLETE',
  usage: WEATHER_USAGE,
  timings: null,
  reasoningTokens: 0,
  sources: [MADRID_SOURCE, BRASILIA_SOURCE],
  choices: [
    {
      index: 0,
      content: WEATHER_TEXT,
      reasoning: null,
      refusal: null,
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'COMPLETE',
      sources: [MADRID_SOURCE, BRASILIA_SOURCE],
    },
  ],
};

// --- marbles/dialects/cohere/cohere-v2-tools.sse: the tool-use guide's first step ---

const PLAN = 'I will search for the weather in Madrid and Brasilia.';
const PLAN_PIECES = ['I', ' will', ' search', ' for', ' the', ' weather', ' in', ' Madrid', ' and', ' Brasilia', '.'];
const MADRID_CALL = {
  index: 0,
  id: 'get_weather_p1t92w7gfgq7',
  name: 'get_weather',
  arguments: '{\n    "location": "Madrid"\n}',
  args: { location: 'Madrid' },
};
const BRASILIA_CALL = {
  index: 1,
  id: 'get_weather_ay6nmvjgp9vn',
  name: 'get_weather',
  arguments: '{\n    "location": "Brasilia"\n}',
  args: { location: 'Brasilia' },
};
const TOOLS_USAGE = { promptTokens: 913, completionTokens: 83, totalTokens: 996 };
const argumentEvents = (index: number, pieces: readonly string[]): ChatEvent[] =>
  pieces.map((text): ChatEvent => ({ type: 'tool-call-delta', choice: 0, index, arguments: text }));

const TOOLS_EVENTS: ChatEvent[] = [
  { type: 'start', id: 'fba98ad3-e5a1-413c-a8de-84fbf9baabf7', model: null },
  ...PLAN_PIECES.map((text): ChatEvent => ({ type: 'reasoning', choice: 0, text })),
  { type: 'tool-call-delta', choice: 0, index: 0, id: 'get_weather_p1t92w7gfgq7', name: 'get_weather', arguments: '' },
  ...argumentEvents(0, ['{\n    "', 'location', '":', ' "', 'Madrid', '"', '\n', '}']),
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'tool-call-delta', choice: 0, index: 1, id: 'get_weather_ay6nmvjgp9vn', name: 'get_weather', arguments: '' },
  ...argumentEvents(1, ['{\n    "', 'location', '":', ' "', 'Bras', 'ilia', '"', '\n', '}']),
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'TOOL_CALL' },
  { type: 'usage', usage: TOOLS_USAGE },
  DONE,
];

const TOOLS_COMPLETION: Completion = {
  id: 'fba98ad3-e5a1-413c-a8de-84fbf9baabf7',
  model: null,
  content: null,
  reasoning: PLAN,
  refusal: null,
  toolCalls: [MADRID_CALL, BRASILIA_CALL],
  finishReason: 'tool_calls',
  rawFinishReason: 'TOOL_CALL',
  usage: TOOLS_USAGE,
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: null,
      reasoning: PLAN,
      refusal: null,
      toolCalls: [MADRID_CALL, BRASILIA_CALL],
      finishReason: 'tool_calls',
      rawFinishReason: 'TOOL_CALL',
    },
  ],
};

// --- marbles/dialects/cohere/cohere-v2-reasoning.sse: a reasoning model's thinking, then its answer ---

const THINKING_PIECES = [
  'The',
  ' user',
  ' is',
  ' asking',
  ' for',
  ' the',
  ' sum',
  ' of',
  ' 2',
  ' and',
  ' 2',
  '.',
  ' Since',
  ' this',
  ' is',
  ' a',
  ' straightforward',
  ' arithmetic',
  ' problem',
  ',',
  ' I',
  ' don',
  "'t",
  ' need',
  ' to',
  ' use',
  ' any',
  ' tools',
  '.',
  ' I',
  ' can',
  ' calculate',
  ' the',
  ' answer',
  ' directly',
  '.',
];
const THINKING =
  "The user is asking for the sum of 2 and 2. Since this is a straightforward arithmetic problem, I don't need to use any tools. " +
  'I can calculate the answer directly.';
const ANSWER_PIECES = ['The', ' answer', ' to', ' 2', ' +', ' 2', ' is', ' 4', '.'];
const REASONING_USAGE = { promptTokens: 1394, completionTokens: 54, totalTokens: 1448, cachedPromptTokens: 1360 };

const REASONING_EVENTS: ChatEvent[] = [
  { type: 'start', id: 'c9117d7f-a7e4-499f-b643-a2a1e139687b', model: null },
  ...THINKING_PIECES.map((text): ChatEvent => ({ type: 'reasoning', choice: 0, text })),
  ...ANSWER_PIECES.map((text): ChatEvent => ({ type: 'content', choice: 0, text })),
  { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' },
  { type: 'usage', usage: REASONING_USAGE },
  DONE,
];

const REASONING_COMPLETION: Completion = {
  id: 'c9117d7f-a7e4-499f-b643-a2a1e139687b',
  model: null,
  content: 'The answer to 2 + 2 is 4.',
  reasoning: THINKING,
  refusal: null,
  toolCalls: [],
  finishReason: 'stop',
  rawFinishReason: 'COMPLETE',
  usage: REASONING_USAGE,
  timings: null,
  reasoningTokens: 0,
  choices: [
    {
      index: 0,
      content: 'The answer to 2 + 2 is 4.',
      reasoning: THINKING,
      refusal: null,
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'COMPLETE',
    },
  ],
};

describe('cohere', () => {
  exampleStreamSuite({
    dialect: cohere,
    file: 'dialects/cohere/cohere-v2.sse',
    framing: 'sse',
    completion: ANSWER_COMPLETION,
    events: ANSWER_EVENTS,
    auto: true,
    more: () => {
      const text = readFileSync(marbleFile('dialects/cohere/cohere-v2.sse'), 'utf8');

      it('assembles the same with every event: line dropped, as a proxy does', () => {
        const { completion, error } = assembleText(text.replace(/^event: .*\n/gm, ''), cohere);
        expect(error).toBeUndefined();
        expect(completion).toEqual(ANSWER_COMPLETION);
      });

      it('cut before message-end, fails with StreamClosedEarlyError holding the whole answer and no finish', () => {
        const { error } = assembleText(text.slice(0, text.indexOf('event: message-end')), cohere);
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect((error as Error).message).toBe('the stream ended without message-end after 22 frames');
        expect(error).toMatchObject({
          reason: 'no-end-signal',
          partial: { id: 'e8f9afc1-0888-46f0-a9ed-eb0e5a51e17f', content: WEATHER_TEXT, finishReason: null },
        });
      });
    },
  });

  exampleStreamSuite({
    dialect: cohere,
    file: 'dialects/cohere/cohere-v2-tools.sse',
    framing: 'sse',
    completion: TOOLS_COMPLETION,
    events: TOOLS_EVENTS,
    auto: true,
    more: () => {
      const text = readFileSync(marbleFile('dialects/cohere/cohere-v2-tools.sse'), 'utf8');

      it('cut before message-end, fails with StreamClosedEarlyError holding the plan and both whole calls', () => {
        for (const chunkSize of [1, 7, 100_000]) {
          const { error } = assembleText(text.slice(0, text.indexOf('event: message-end')), cohere, { chunkSize });
          expect(error).toBeInstanceOf(StreamClosedEarlyError);
          expect(error).toMatchObject({
            partial: {
              reasoning: PLAN,
              content: null,
              finishReason: null,
              toolCalls: [
                { ...MADRID_CALL, complete: true },
                { ...BRASILIA_CALL, complete: true },
              ],
            },
          });
        }
      });

      it('cut inside the second call, fails with StreamClosedEarlyError naming the open call, its arguments so far in the partial', () => {
        const ilia = '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"ilia"';
        const cut = text.slice(0, text.indexOf(`event: tool-call-delta\ndata: ${ilia}`));
        for (const chunkSize of [1, 7, 100_000]) {
          const { error } = assembleText(cut, cohere, { chunkSize });
          expect(error).toBeInstanceOf(StreamClosedEarlyError);
          expect((error as Error).message).toBe('the stream ended without message-end after 28 frames (1 tool call still open)');
          expect(error).toMatchObject({
            partial: {
              reasoning: PLAN,
              finishReason: null,
              toolCalls: [
                { ...MADRID_CALL, complete: true },
                { index: 1, id: 'get_weather_ay6nmvjgp9vn', name: 'get_weather', arguments: '{\n    "location": "Bras', complete: false },
              ],
            },
          });
        }
      });

      it('cut mid-line inside the arguments, fails with StreamClosedEarlyError', () => {
        const at = text.indexOf('"arguments":"Bras"');
        const { error } = assembleText(text.slice(0, at + '"arguments":"Br'.length), cohere);
        expect(error).toBeInstanceOf(StreamClosedEarlyError);
        expect(error).toMatchObject({
          reason: 'mid-line',
          partial: { toolCalls: [{ complete: true }, { arguments: '{\n    "location": "' }] },
        });
      });
    },
  });

  exampleStreamSuite({
    dialect: cohere,
    file: 'dialects/cohere/cohere-v2-reasoning.sse',
    framing: 'sse',
    completion: REASONING_COMPLETION,
    events: REASONING_EVENTS,
    auto: true,
  });

  describe('the record', () => {
    it('is named cohere, with the finish reasons of the SDK’s ChatFinishReason', () => {
      expect(cohere.name).toBe('cohere');
      expect(cohere.finishReasons).toBe(COHERE_FINISH_REASONS);
      expect(Object.keys(cohere.finishReasons).sort()).toEqual([
        'COMPLETE',
        'ERROR',
        'MAX_TOKENS',
        'STOP_SEQUENCE',
        'TIMEOUT',
        'TOOL_CALL',
      ]);
    });

    it('is final at message-end, by its type or its event name, and at an error frame; not before', () => {
      expect(cohere.isFinal(messageEnd('COMPLETE'))).toBe(true);
      expect(cohere.isFinal(frame({ type: 'message-end', delta: { finish_reason: 'COMPLETE' } }))).toBe(true);
      expect(cohere.isFinal(frame('{}', 'message-end'))).toBe(true);
      expect(cohere.isFinal(frame({ type: 'error', error: { message: 'x' } }, 'error'))).toBe(true);
      expect(cohere.isFinal(frame({ error: { message: 'x' } }))).toBe(true);
      expect(cohere.isFinal(messageStart())).toBe(false);
      expect(cohere.isFinal(contentDelta(0, { text: 'the message-end' }))).toBe(false);
      expect(cohere.isFinal(callEnd(0))).toBe(false);
    });
  });

  describe('content blocks', () => {
    it('maps text to content and thinking to reasoning, text already in a content-start included', () => {
      const { events, error } = read([
        messageStart(),
        named({ type: 'content-start', index: 0, delta: { message: { content: { type: 'thinking', thinking: 'Hmm' } } } }),
        contentDelta(0, { thinking: ', 2+2' }),
        contentEnd(0),
        named({ type: 'content-start', index: 1, delta: { message: { content: { type: 'text', text: 'Fo' } } } }),
        contentDelta(1, { text: 'ur' }),
        contentEnd(1),
        messageEnd('COMPLETE'),
      ]);
      expect(error).toBeUndefined();
      expect(events).toEqual([
        START,
        { type: 'reasoning', choice: 0, text: 'Hmm' },
        { type: 'reasoning', choice: 0, text: ', 2+2' },
        { type: 'content', choice: 0, text: 'Fo' },
        { type: 'content', choice: 0, text: 'ur' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' },
        DONE,
      ]);
    });

    it('makes no event for empty text, empty thinking, or an empty tool plan', () => {
      const { events } = read([
        messageStart(),
        toolPlan(''),
        contentStart(0, 'text'),
        contentDelta(0, { text: '' }),
        contentEnd(0),
        contentStart(1, 'thinking'),
        contentDelta(1, { thinking: '' }),
        contentEnd(1),
        messageEnd('COMPLETE'),
      ]);
      expect(events).toEqual([START, { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' }, DONE]);
    });

    it('reads a delta by the text it carries, thinking in a text block included, unless strict', () => {
      const frames = [messageStart(), contentStart(0, 'text'), contentDelta(0, { thinking: 'x' }), contentEnd(0), messageEnd('COMPLETE')];
      expect(read(frames).events).toContainEqual({ type: 'reasoning', choice: 0, text: 'x' });
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 3: content block 0, a text block, carries thinking');
    });

    it('reads a block whose content-start says no type by its text, unless strict', () => {
      const untyped = named({ type: 'content-start', index: 0, delta: { message: { content: { thinking: '' } } } });
      const frames = [messageStart(), untyped, contentDelta(0, { thinking: 'x' }), contentEnd(0), messageEnd('COMPLETE')];
      expect(read(frames).events).toContainEqual({ type: 'reasoning', choice: 0, text: 'x' });
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 2: content block 0 has type missing');
    });

    it('keeps a block of an unknown type with its deltas on the choice, and passes them on as unknown events when asked', () => {
      const frames = [
        messageStart(),
        contentStart(0, 'image', 'url'),
        contentDelta(0, { url: 'https://x' }),
        contentEnd(0),
        messageEnd('COMPLETE'),
      ];
      expect(read(frames).events).toEqual([
        START,
        { type: 'provider-metadata', provider: 'cohere', choice: 0, items: [{ type: 'image', url: '' }] },
        { type: 'provider-metadata', provider: 'cohere', choice: 0, items: [{ url: 'https://x' }] },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' },
        DONE,
      ]);
      const unknown = read(frames, { unknownEvents: true }).events.filter((e) => e.type === 'unknown');
      expect(unknown.map((e) => (e.type === 'unknown' ? e.event : undefined))).toEqual(['content-start', 'content-delta', 'content-end']);
    });

    it('skips debug events always, and unknown event types unless unknownEvents', () => {
      const frames = [
        messageStart(),
        named({ type: 'debug', prompt: 'the whole prompt' }),
        named({ type: 'search-results', results: [] }),
        messageEnd('COMPLETE'),
      ];
      expect(read(frames).events).toEqual([START, { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' }, DONE]);
      expect(read(frames, { unknownEvents: true }).events).toEqual([
        START,
        { type: 'unknown', event: 'search-results', payload: { type: 'search-results', results: [] } },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' },
        DONE,
      ]);
    });

    it('ignores logprobs beside a content delta', () => {
      const delta = named({
        type: 'content-delta',
        index: 0,
        delta: { message: { content: { text: 'Hi' } } },
        logprobs: { text: 'Hi', token_ids: [1], logprobs: [-0.1] },
      });
      expect(read([messageStart(), contentStart(0, 'text'), delta, contentEnd(0), messageEnd('COMPLETE')]).events).toContainEqual({
        type: 'content',
        choice: 0,
        text: 'Hi',
      });
    });
  });

  describe('the tool plan', () => {
    it('is reasoning, never dropped and never the answer: it streams before the calls', () => {
      const { completion, error } = assembleText(
        [messageStart(), toolPlan('I will call f.'), callStart(0, 'f_1', 'f'), callDelta(0, '{}'), callEnd(0), messageEnd('TOOL_CALL')]
          .map((f) => `event: ${f.event}\ndata: ${f.data}\n\n`)
          .join(''),
        cohere,
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'I will call f.', content: null, toolCalls: [{ id: 'f_1', name: 'f', args: {} }] });
    });
  });

  describe('tool calls', () => {
    it('numbers calls densely in the order they start, whatever their indices, keeping interleaved fragments apart', () => {
      const { events } = read([
        messageStart(),
        callStart(7, 'a_1', 'a'),
        callStart(3, 'b_1', 'b'),
        callDelta(3, '{"x"'),
        callDelta(7, '{}'),
        callDelta(3, ':1}'),
        callEnd(7),
        callEnd(3),
        messageEnd('TOOL_CALL'),
      ]);
      expect(events.filter((e) => e.type === 'tool-call-delta' || e.type === 'tool-call-end')).toEqual([
        { type: 'tool-call-delta', choice: 0, index: 0, id: 'a_1', name: 'a', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 1, id: 'b_1', name: 'b', arguments: '' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: '{"x"' },
        { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}' },
        { type: 'tool-call-delta', choice: 0, index: 1, arguments: ':1}' },
        { type: 'tool-call-end', choice: 0, index: 0 },
        { type: 'tool-call-end', choice: 0, index: 1 },
      ]);
    });

    it('keeps arguments already in a tool-call-start, and reads a call with no fragment as {}', () => {
      const started = named({
        type: 'tool-call-start',
        index: 0,
        delta: { message: { tool_calls: { id: 'w_1', type: 'function', function: { name: 'w', arguments: '{"a":' } } } },
      });
      const frames = [
        messageStart(),
        started,
        callDelta(0, '1}'),
        callEnd(0),
        callStart(1, 'now_1', 'now'),
        callEnd(1),
        messageEnd('TOOL_CALL'),
      ];
      const { completion, error } = assembleText(frames.map((f) => `data: ${f.data}\n\n`).join(''), cohere);
      expect(error).toBeUndefined();
      expect(completion?.toolCalls).toEqual([
        { index: 0, id: 'w_1', name: 'w', arguments: '{"a":1}', args: { a: 1 } },
        { index: 1, id: 'now_1', name: 'now', arguments: '', args: {} },
      ]);
    });

    it('accepts a call whose type is not function, unless strict', () => {
      const frames = [messageStart(), callStart(0, 'a_1', 'a', { type: 'custom' }), callEnd(0), messageEnd('TOOL_CALL')];
      expect(read(frames).error).toBeUndefined();
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 2: tool call 0 has type "custom"');
    });
  });

  describe('citations', () => {
    // A recorded stream of the AI SDK's Cohere provider (packages/cohere/src/__fixtures__/cohere-citations.chunks.txt):
    // one document of the request cited, "automation of tasks" at 21 to 40 of the answer.
    const DOCUMENT_STREAM = `data: {"id":"68475c80-574b-4c65-98a4-e81cebab5dce","type":"message-start","delta":{"message":\
{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}

data: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}

data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"The key benefits are "}}}}

data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"automation of tasks."}}}}

data: {"type":"content-end","index":0}

data: {"type":"citation-start","index":0,"delta":{"message":{"citations":{"start":21,"end":40,"text":"automation of tasks","sources":\
[{"type":"document","id":"doc:0","document":{"id":"doc:0","text":"AI provides: 1. Automation of tasks 2. Better decision-making 3. \
Cost reduction","title":"benefits.txt"}}],"type":"TEXT_CONTENT"}}}}

data: {"type":"citation-end","index":0}

data: {"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":39,"output_tokens":27},\
"tokens":{"input_tokens":1683,"output_tokens":62}}}}

`;

    /** The sources a stream of these frames gives, between message-start and message-end. */
    const sourcesOf = (frames: readonly SseFrame[], options?: DialectOptions): Source[] => {
      const { events, error } = read([messageStart(), ...frames, messageEnd('COMPLETE')], options);
      if (error !== undefined) throw error;
      return events.flatMap((e) => (e.type === 'source' ? [e.source] : []));
    };
    const tool = (id: string) => ({ type: 'tool', id, tool_output: { temperature: '20' } });

    it('reads a document source with its id and title, spanning the cited words (a recorded stream)', () => {
      const { completion, error } = assembleText(DOCUMENT_STREAM, cohere);
      expect(error).toBeUndefined();
      expect(completion?.content).toBe('The key benefits are automation of tasks.');
      expect(completion?.sources).toEqual([{ kind: 'document', documentId: 'doc:0', title: 'benefits.txt', span: { start: 21, end: 40 } }]);
    });

    it('gives a document its url when it has one, and the document’s own id when the source has none', () => {
      const sources = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text: 'Hi.' }),
        citation(0, {
          start: 0,
          end: 2,
          text: 'Hi',
          sources: [{ type: 'document', document: { id: 'web:3', url: 'https://example.com/hi' } }],
        }),
      ]);
      expect(sources).toEqual([{ kind: 'document', documentId: 'web:3', url: 'https://example.com/hi', span: { start: 0, end: 2 } }]);
    });

    it('makes one source per source of a citation, each with the citation’s span', () => {
      const sources = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text: 'Both say 20.' }),
        citation(0, { start: 9, end: 11, text: '20', sources: [tool('a:0'), tool('b:0')] }),
      ]);
      expect(sources).toEqual([
        { kind: 'document', documentId: 'a:0', span: { start: 9, end: 11 } },
        { kind: 'document', documentId: 'b:0', span: { start: 9, end: 11 } },
      ]);
    });

    it('shifts a span by the text of the blocks before the cited one (content_index)', () => {
      const sources = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text: 'First. ' }),
        contentEnd(0),
        contentStart(1, 'thinking'),
        contentDelta(1, { thinking: 'not content' }),
        contentEnd(1),
        contentStart(2, 'text'),
        contentDelta(2, { text: 'It is 20.' }),
        citation(0, { start: 6, end: 8, text: '20', sources: [tool('t:0')], content_index: 2 }),
        citation(1, { start: 0, end: 5, text: 'First', sources: [tool('t:1')], content_index: 0 }),
      ]);
      expect(sources).toEqual([
        { kind: 'document', documentId: 't:0', span: { start: 13, end: 15 } },
        { kind: 'document', documentId: 't:1', span: { start: 0, end: 5 } },
      ]);
    });

    it('reads offsets past characters outside the BMP as code points, and as UTF-16 units when only those enclose the text', () => {
      const text = '🌧️ Rain: 12 mm. ☀️ Sun.';
      // "🌧" is one code point and two UTF-16 units: "12" is at code points 9 to 11, units 10 to 12.
      const asPoints = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text }),
        citation(0, { start: 9, end: 11, text: '12', sources: [tool('r:0')] }),
      ]);
      expect(asPoints).toEqual([{ kind: 'document', documentId: 'r:0', span: { start: 10, end: 12 } }]);
      const asUnits = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text }),
        citation(0, { start: 10, end: 12, text: '12', sources: [tool('r:0')] }),
      ]);
      expect(asUnits).toEqual([{ kind: 'document', documentId: 'r:0', span: { start: 10, end: 12 } }]);
    });

    it.each([
      ['offsets that do not enclose the cited text', { start: 0, end: 2, text: '20' }],
      ['offsets past the text received', { start: 9, end: 40, text: '20' }],
      ['a citation of the tool plan', { start: 0, end: 2, text: 'It', type: 'PLAN' }],
      ['a citation of the thinking', { start: 0, end: 2, text: 'It', type: 'THINKING_CONTENT' }],
      ['a citation of a block that had no text', { start: 0, end: 2, text: 'It', content_index: 5 }],
      ['offsets that are not indices', { start: -1, end: '2', text: 'It' }],
    ])('keeps the source without a span for %s', (_name, fields) => {
      const sources = sourcesOf([
        contentStart(0, 'text'),
        contentDelta(0, { text: 'It is 20.' }),
        citation(0, { ...fields, sources: [tool('t:0')] }),
      ]);
      expect(sources).toEqual([{ kind: 'document', documentId: 't:0' }]);
    });

    it('skips a source of an unknown type, or passes its citation on as an unknown event', () => {
      const frames = [
        contentStart(0, 'text'),
        contentDelta(0, { text: 'It is 20.' }),
        citation(0, { start: 6, end: 8, text: '20', sources: [{ type: 'web', url: 'https://x' }, tool('t:0')] }),
      ];
      expect(sourcesOf(frames)).toEqual([{ kind: 'document', documentId: 't:0', span: { start: 6, end: 8 } }]);
      const { events } = read([messageStart(), ...frames, messageEnd('COMPLETE')], { unknownEvents: true });
      expect(events.filter((e) => e.type === 'unknown').map((e) => (e.type === 'unknown' ? e.event : undefined))).toEqual([
        'citation-start',
      ]);
    });

    it('makes no source for a citation without sources', () => {
      expect(sourcesOf([contentStart(0, 'text'), contentDelta(0, { text: 'x' }), citation(0, { start: 0, end: 1, text: 'x' })])).toEqual(
        [],
      );
    });
  });

  describe('finish reasons', () => {
    it.each([
      ['COMPLETE', 'stop'],
      ['STOP_SEQUENCE', 'stop'],
      ['MAX_TOKENS', 'length'],
      ['TOOL_CALL', 'tool_calls'],
      ['ERROR', 'error'],
      ['TIMEOUT', 'error'],
      ['SOMETHING_NEW', 'other'],
    ])('normalizes %s to %s, keeping the raw value', (raw, reason) => {
      const { events, error } = read([
        messageStart(),
        contentStart(0, 'text'),
        contentDelta(0, { text: 'a' }),
        contentEnd(0),
        messageEnd(raw),
      ]);
      expect(error).toBeUndefined();
      expect(events.filter((e) => e.type === 'finish')).toEqual([{ type: 'finish', choice: 0, reason, raw }]);
    });

    it('normalizes COMPLETE after calls to tool_calls', () => {
      const { events } = read([messageStart(), callStart(0, 'a_1', 'a'), callEnd(0), messageEnd('COMPLETE')]);
      expect(events).toContainEqual({ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'COMPLETE' });
    });

    it('keeps a call cut by MAX_TOKENS apart from the calls a program may run', () => {
      const stream = [messageStart(), callStart(0, 'a_1', 'a'), callDelta(0, '{"q": "unfini'), messageEnd('MAX_TOKENS')]
        .map((f) => `data: ${f.data}\n\n`)
        .join('');
      const { completion, error } = assembleText(stream, cohere);
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({
        finishReason: 'length',
        toolCalls: [],
        incompleteToolCalls: [{ id: 'a_1', arguments: '{"q": "unfini' }],
      });
    });
  });

  describe('usage', () => {
    it('reads tokens (not billed_units) with cached_tokens, and sums the total Cohere does not send', () => {
      const usage = {
        billed_units: { input_tokens: 119, output_tokens: 44 },
        tokens: { input_tokens: 1549, output_tokens: 95 },
        cached_tokens: 1504,
      };
      expect(read([messageStart(), messageEnd('TOOL_CALL', usage)]).events).toContainEqual({
        type: 'usage',
        usage: { promptTokens: 1549, completionTokens: 95, totalTokens: 1644, cachedPromptTokens: 1504 },
      });
    });

    it('makes no usage event for billed_units alone, nor for usage: null', () => {
      const billedOnly = read([messageStart(), messageEnd('COMPLETE', { billed_units: { input_tokens: 1, output_tokens: 2 } })]).events;
      expect(billedOnly.some((e) => e.type === 'usage')).toBe(false);
      const none = read([messageStart(), named({ type: 'message-end', delta: { finish_reason: 'COMPLETE', usage: null } })]).events;
      expect(none.some((e) => e.type === 'usage')).toBe(false);
    });

    it('gives no total when one side is missing', () => {
      expect(read([messageStart(), messageEnd('COMPLETE', { tokens: { input_tokens: 5 } })]).events).toContainEqual({
        type: 'usage',
        usage: { promptTokens: 5, completionTokens: null, totalTokens: null },
      });
    });
  });

  describe('message-start', () => {
    it('emits start once, and ignores a second message-start with the same id, unless strict', () => {
      const frames = [messageStart(), messageStart(), messageEnd('COMPLETE')];
      expect(read(frames).events.filter((e) => e.type === 'start')).toEqual([START]);
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 2: message-start arrived twice');
    });

    it('is a ProtocolError for a second message-start with another id (two generations spliced together)', () => {
      const { error } = read([messageStart('gen-1'), messageStart('gen-2'), messageEnd('COMPLETE')]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe('frame 2: a second message-start with another id ("gen-2", was "gen-1")');
    });

    it('emits no start for a message-start without an id', () => {
      const { events } = read([named({ type: 'message-start', delta: { message: { role: 'assistant' } } }), messageEnd('COMPLETE')]);
      expect(events.some((e) => e.type === 'start')).toBe(false);
    });

    it('tolerates events before message-start (no start event), unless strict', () => {
      const frames = [contentStart(0, 'text'), contentDelta(0, { text: 'a' }), contentEnd(0), messageEnd('COMPLETE')];
      expect(read(frames).error).toBeUndefined();
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 1: content-start arrived before message-start');
    });
  });

  describe('the end of the stream', () => {
    it('ignores frames after message-end, unless strict', () => {
      const frames = [messageStart(), messageEnd('COMPLETE'), contentDelta(0, { text: 'late' })];
      expect(read(frames).events).toEqual([START, { type: 'finish', choice: 0, reason: 'stop', raw: 'COMPLETE' }, DONE]);
      expect((read(frames, { strict: true }).error as Error).message).toBe('frame 3: a frame arrived after message-end');
    });

    it('skips a [DONE] before message-end, so the missing message-end is what fails; strict refuses the [DONE]', () => {
      const { error } = read([messageStart(), frame('[DONE]')]);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended without message-end after 2 frames');
      expect((read([messageStart(), frame('[DONE]'), messageEnd('COMPLETE')], { strict: true }).error as Error).message).toBe(
        'frame 2: [DONE] is not part of the Cohere stream',
      );
    });

    it('closes a block or a call left open at message-end (the call closes at the finish), unless strict', () => {
      const openCall = [messageStart(), callStart(0, 'a_1', 'a'), callDelta(0, '{}'), messageEnd('TOOL_CALL')];
      expect(read(openCall).error).toBeUndefined();
      expect((read(openCall, { strict: true }).error as Error).message).toBe('frame 4: message-end arrived while a tool call was open');
      const openBlock = [messageStart(), contentStart(0, 'text'), messageEnd('COMPLETE')];
      expect(read(openBlock).error).toBeUndefined();
      expect((read(openBlock, { strict: true }).error as Error).message).toBe(
        'frame 3: message-end arrived while a content block was open',
      );
    });

    it('is a StreamClosedEarlyError for a stream that stops after message-start', () => {
      const { error } = assembleText(`event: message-start\ndata: ${messageStart().data}\n\n`, cohere);
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect(error).toMatchObject({ reason: 'no-end-signal', message: 'the stream ended without message-end after 1 frame' });
    });
  });

  describe('errors', () => {
    it.each([
      ['event: error', frame({ message: 'overloaded' }, 'error'), 'overloaded'],
      [
        'a {"type":"error"} payload',
        frame({ type: 'error', error: { type: 'server_error', message: 'Internal' } }),
        'Internal (server_error)',
      ],
      ['a top-level error', frame({ error: { message: 'rate limited', code: 429 } }), 'rate limited (code 429)'],
    ])('is a ProviderError for %s', (_name, errorFrame, said) => {
      const { error, events } = read([messageStart(), errorFrame, messageEnd('COMPLETE')]);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toBe(`the provider reported an error at frame 2: ${said}`);
      expect(events).toEqual([START]);
    });

    it('is a ProviderError for a message-end whose delta.error says why the generation failed, its finish reason as the type', () => {
      const { error } = read([
        messageStart(),
        contentStart(0, 'text'),
        contentDelta(0, { text: 'Half' }),
        messageEnd('ERROR', undefined, { error: 'internal server error' }),
      ]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        message: 'the provider reported an error at frame 4: internal server error (ERROR)',
        type: 'ERROR',
        reason: 'in-stream',
        position: { event: 4 },
        body: { type: 'message-end', delta: { finish_reason: 'ERROR', error: 'internal server error' } },
      });
    });

    it('finishes with error at a message-end that says ERROR without a message', () => {
      expect(read([messageStart(), messageEnd('ERROR')]).events).toEqual([
        START,
        { type: 'finish', choice: 0, reason: 'error', raw: 'ERROR' },
        DONE,
      ]);
    });

    it('keeps what arrived before the error as the partial', () => {
      const text = readFileSync(marbleFile('dialects/cohere/cohere-v2-tools.sse'), 'utf8');
      const failed = `${text.slice(0, text.indexOf('event: tool-call-start\ndata: {"type":"tool-call-start","index":1'))}event: message-end
data: {"type":"message-end","delta":{"error":"generation timed out","finish_reason":"TIMEOUT"}}

`;
      const { error } = assembleText(failed, cohere);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        type: 'TIMEOUT',
        partial: { reasoning: PLAN, finishReason: null, toolCalls: [{ ...MADRID_CALL, complete: true }] },
      });
    });

    it('is a ProviderError for an error as the first frame, through auto as well', () => {
      for (const dialect of [cohere, autoDialect]) {
        const { error } = assembleText('event: error\ndata: {"message":"invalid api token"}\n\n', dialect);
        expect(error).toBeInstanceOf(ProviderError);
      }
    });

    it.each([
      ['data that is not JSON', [frame('{"type":')], 'frame 2: data is not JSON: "{\\"type\\":"'],
      ['a type that is a number', [frame({ type: 5 })], 'frame 2: type is 5'],
      ['a payload without a type on a data-only frame', [frame({ index: 0 })], 'frame 2: the payload has no type'],
      [
        'a delta for a block that never started',
        [contentDelta(4, { text: 'x' })],
        'frame 2: content-delta for content block 4, which never started',
      ],
      [
        'a delta after its block ended',
        [contentStart(0, 'text'), contentEnd(0), contentDelta(0, { text: 'x' })],
        'frame 4: content-delta for content block 0, which had ended',
      ],
      ['an end for a block that never started', [contentEnd(1)], 'frame 2: content-end for content block 1, which never started'],
      ['a block started twice', [contentStart(0, 'text'), contentStart(0, 'text')], 'frame 3: content block 0 started twice'],
      [
        'a block index that is a string',
        [contentStart('0' as unknown as number, 'text')],
        'frame 2: content-start.index is "0", not a block index',
      ],
      ['text that is a number', [contentStart(0, 'text'), contentDelta(0, { text: 1 })], 'frame 3: content block 0.text is 1, not text'],
      [
        'a tool plan that is an object',
        [named({ type: 'tool-plan-delta', delta: { message: { tool_plan: {} } } })],
        'frame 2: tool-plan-delta.delta.message.tool_plan is an object, not text',
      ],
      [
        'a delta that is not an object',
        [named({ type: 'tool-plan-delta', delta: 'x' })],
        'frame 2: tool-plan-delta.delta is "x", not an object',
      ],
      ['a call without an id', [callStart(0, '', 'f')], 'frame 2: tool call 0 has id ""'],
      ['a call without a name', [callStart(0, 'f_1', null)], 'frame 2: tool call 0 has name null'],
      [
        'a call without tool_calls',
        [named({ type: 'tool-call-start', index: 0, delta: { message: {} } })],
        'frame 2: tool-call-start 0 has no tool_calls',
      ],
      ['a call started twice', [callStart(0, 'a_1', 'a'), callStart(0, 'b_1', 'b')], 'frame 3: tool call 0 started twice'],
      ['a fragment for a call that never started', [callDelta(2, '{}')], 'frame 2: tool-call-delta for tool call 2, which never started'],
      [
        'a fragment after its call ended',
        [callStart(0, 'a_1', 'a'), callEnd(0), callDelta(0, '{}')],
        'frame 4: tool-call-delta for tool call 0, which had ended',
      ],
      ['an end for a call that never started', [callEnd(0)], 'frame 2: tool-call-end for tool call 0, which never started'],
      [
        'arguments that are an object',
        [callStart(0, 'a_1', 'a'), callDelta(0, { q: 1 })],
        'frame 3: tool call 0.function.arguments is an object, not text',
      ],
      [
        'citations that are a list',
        [citation(0, [] as unknown as Record<string, unknown>)],
        'frame 2: citation-start.delta.message.citations is an array, not an object',
      ],
      [
        'sources that are not a list',
        [citation(0, { sources: 'doc:0' })],
        'frame 2: citation-start.delta.message.citations.sources is "doc:0", not an array',
      ],
      [
        'a message-end without a finish reason',
        [named({ type: 'message-end', delta: {} })],
        'frame 2: message-end.delta.finish_reason is missing',
      ],
      [
        'input_tokens that is a string',
        [messageEnd('COMPLETE', { tokens: { input_tokens: '5' } })],
        'frame 2: message-end.delta.usage.tokens.input_tokens is "5", not a count',
      ],
    ])('is a ProtocolError for %s', (_name, frames, message) => {
      const { error } = read([messageStart(), ...frames, messageEnd('COMPLETE')]);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toBe(message);
    });
  });

  describe('detection by auto', () => {
    it.each([
      [{ id: 'x', type: 'message-start', delta: { message: { role: 'assistant' } } }],
      [{ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } }],
      [{ type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hi' } } } }],
      [{ type: 'content-end', index: 0 }],
      [{ type: 'tool-plan-delta', delta: { message: { tool_plan: 'I' } } }],
      [{ type: 'tool-call-start', index: 0, delta: { message: { tool_calls: { id: 'a', type: 'function' } } } }],
      [{ type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: '{' } } } } }],
      [{ type: 'tool-call-end', index: 0 }],
      [{ type: 'citation-start', index: 0, delta: { message: { citations: {} } } }],
      [{ type: 'citation-end', index: 0 }],
      [{ type: 'message-end', delta: { finish_reason: 'COMPLETE' } }],
      [{ type: 'debug', prompt: 'p' }],
    ])('reads %j as cohere', (payload) => {
      expect(detectDialect(payload)).toBe('cohere');
    });

    it.each([
      [{ type: 'message_start', message: {} }, 'anthropic'],
      [{ type: 'message_delta', delta: {} }, 'anthropic'],
      [{ type: 'content_block_delta' }, 'anthropic'],
      [{ type: 'ping' }, 'anthropic'],
      [{ type: 'response.created', response: {} }, 'openai-responses'],
      [{ type: 'text', delta: 'x' }, 'typed-events'],
      [{ type: 'tool_call_start', index: 0 }, 'typed-events'],
      [{ type: 'tool_call_delta', index: 0, args: '{' }, 'typed-events'],
      [{ candidates: [] }, 'gemini'],
      [{ object: 'chat.completion.chunk', choices: [] }, 'openai-chat'],
      [{ model: 'm', message: { content: '' }, done: false }, 'ollama'],
      [{ content: 'x', stop: false }, 'llamacpp-completion'],
    ])('still reads %j as %s', (payload, dialect) => {
      expect(detectDialect(payload)).toBe(dialect);
    });

    it("does not take this library's own chat-events (tool-call-delta with a choice) for Cohere's", () => {
      expect(detectDialect({ type: 'tool-call-delta', choice: 0, index: 0, arguments: '{' })).toBeUndefined();
      expect(detectDialect({ type: 'tool-call-end', choice: 0, index: 0 })).toBeUndefined();
    });

    it('picks cohere from a data-only first frame (the event: line dropped)', () => {
      const { completion, error } = assembleText(
        [messageStart(), contentStart(0, 'text'), contentDelta(0, { text: 'Hi' }), contentEnd(0), messageEnd('COMPLETE')]
          .map((f) => `data: ${f.data}\n\n`)
          .join(''),
        autoDialect,
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ id: 'gen-1', content: 'Hi', finishReason: 'stop', rawFinishReason: 'COMPLETE' });
    });
  });
});
