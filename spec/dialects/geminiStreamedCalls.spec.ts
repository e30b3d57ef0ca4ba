import { gemini } from '../../src/dialects/gemini/gemini';
import { ProtocolError, StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent } from '../../src/types/events';
import { Assembled, assembleText } from '../support/dialect';

// Vertex AI streams the arguments of a function call when the request sets
// `toolConfig.functionCallingConfig.streamFunctionCallArguments: true` (not the Gemini API). The
// shapes below follow Google's reference: `FunctionCall {id?, name?, args?, partialArgs?: PartialArg[],
// willContinue?}` ("willContinue: whether this is the last part of the FunctionCall. If true, another
// partial message for the current FunctionCall is expected to follow") and `PartialArg {jsonPath,
// stringValue | numberValue | boolValue | nullValue, willContinue}`; the call opens with its name and
// `willContinue: true` and ends with a part that does not continue, often an empty `functionCall: {}`.
// https://googleapis.github.io/js-genai/release_docs/interfaces/types.FunctionCall.html
// https://googleapis.github.io/js-genai/release_docs/interfaces/types.PartialArg.html
// https://googleapis.github.io/java-genai/javadoc/google-genai/com.google.genai.types/-function-calling-config/stream-function-call-arguments.html
// https://github.com/googleapis/googleapis/commit/286c66a (google/cloud/aiplatform FunctionCall, PartialArg)

/** Frames as Gemini's SSE writes them: `data: <chunk>`, CRLF, a blank line. */
const sse = (...chunks: string[]): string => chunks.map((chunk) => `data: ${chunk}\r\n\r\n`).join('');

/** Assembles a stream whole and cut at several sizes: every cut must give what the whole gives. */
function assembleEverywhere(text: string): Assembled {
  const whole = assembleText(text, gemini);
  for (const chunkSize of [1, 2, 3, 5, 8, 13, 64]) {
    expect({ chunkSize, ...assembleText(text, gemini, { chunkSize }) }).toEqual({ chunkSize, ...whole });
  }
  return whole;
}

/** The envelope every chunk of these streams repeats after its candidates. */
const TAIL = '"modelVersion":"gemini-3-pro-preview","createTime":"2026-03-02T10:00:00.000000Z","responseId":"vx-1"}';
/** A chunk of one candidate holding these parts (written as JSON text). */
const parts = (json: string, candidate = ''): string =>
  `{"candidates":[{"content":{"role":"model","parts":[${json}]}${candidate}}],"usageMetadata":{"trafficType":"ON_DEMAND"},${TAIL}`;

const START: ChatEvent = { type: 'start', id: 'vx-1', model: 'gemini-3-pro-preview' };

describe('gemini dialect: function-call arguments streamed by Vertex AI (partialArgs)', () => {
  it('writes the arguments as JSON text while they arrive, a string extended while its pieces continue', () => {
    const stream = sse(
      parts('{"functionCall":{"name":"get_weather","willContinue":true},"thoughtSignature":"c2lnLXdlYXRoZXI="}'),
      parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Boston","willContinue":true}],"willContinue":true}}'),
      parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":", MA"}],"willContinue":true}}'),
      parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"fahrenheit"}],"willContinue":true}}'),
      parts('{"functionCall":{}}'),
      '{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":26,' +
        `"candidatesTokenCount":23,"totalTokenCount":181,"trafficType":"ON_DEMAND","thoughtsTokenCount":132},${TAIL}`,
    );
    const { events, completion, error } = assembleEverywhere(stream);
    expect(error).toBeUndefined();
    expect(events).toEqual([
      START,
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'vx-1-call-0', name: 'get_weather', arguments: '{' },
      // The signature rides on the call's part: it is the call's too (an opaque item of call 0, for the
      // next turn). Vertex AI's createTime is the reply's.
      {
        type: 'opaque-item',
        choice: 0,
        item: { provider: 'google', kind: 'signature', type: 'thoughtSignature', part: 'tool-call', call: 0, data: 'c2lnLXdlYXRoZXI=' },
      },
      { type: 'provider-metadata', provider: 'google', choice: 0, call: 0, fields: { thoughtSignature: 'c2lnLXdlYXRoZXI=' } },
      { type: 'reasoning-signature', choice: 0, signature: 'c2lnLXdlYXRoZXI=' },
      { type: 'provider-metadata', provider: 'google', fields: { createTime: '2026-03-02T10:00:00.000000Z' } },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"location":"Boston' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: ', MA"' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: ',"unit":"fahrenheit"' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '}' },
      { type: 'tool-call-end', choice: 0, index: 0 },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'STOP' },
      { type: 'usage', usage: { promptTokens: 26, completionTokens: 155, totalTokens: 181, reasoningTokens: 132 } },
      { type: 'done' },
    ]);
    expect(completion).toMatchObject({
      id: 'vx-1',
      content: null,
      toolCalls: [
        {
          index: 0,
          id: 'vx-1-call-0',
          name: 'get_weather',
          arguments: '{"location":"Boston, MA","unit":"fahrenheit"}',
          args: { location: 'Boston, MA', unit: 'fahrenheit' },
          providerMetadata: { google: { thoughtSignature: 'c2lnLXdlYXRoZXI=' } },
        },
      ],
      finishReason: 'tool_calls',
      reasoningSignatures: ['c2lnLXdlYXRoZXI='],
      providerMetadata: { google: { createTime: '2026-03-02T10:00:00.000000Z' } },
    });
  });

  it('assembles nested objects and arrays, numbers, booleans and null, ended by a last piece that does not continue', () => {
    const stream = sse(
      parts('{"functionCall":{"name":"cook_recipe","willContinue":true}}'),
      parts(
        '{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.name","stringValue":"Lasagna"},' +
          '{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"Lasagna ","willContinue":true}],"willContinue":true}}',
      ),
      parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"noodles"}],"willContinue":true}}'),
      parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].grams","numberValue":450}],"willContinue":true}}'),
      parts('{"functionCall":{"willContinue":true}}'),
      parts(
        '{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[1].name","stringValue":"Ricotta"},' +
          '{"jsonPath":"$.recipe.ingredients[1].grams","numberValue":425.5}],"willContinue":true}}',
      ),
      parts(
        '{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.servings","numberValue":6},{"jsonPath":"$.vegetarian","boolValue":true},' +
          '{"jsonPath":"$.notes","nullValue":"NULL_VALUE"}]}}',
      ),
      '{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":54,' +
        `"candidatesTokenCount":74,"totalTokenCount":249,"thoughtsTokenCount":121},${TAIL}`,
    );
    const { completion, error } = assembleEverywhere(stream);
    expect(error).toBeUndefined();
    expect(completion?.toolCalls).toEqual([
      {
        index: 0,
        id: 'vx-1-call-0',
        name: 'cook_recipe',
        arguments:
          '{"recipe":{"name":"Lasagna","ingredients":[{"name":"Lasagna noodles","grams":450},{"name":"Ricotta","grams":425.5}],' +
          '"servings":6},"vegetarian":true,"notes":null}',
        args: {
          recipe: {
            name: 'Lasagna',
            ingredients: [
              { name: 'Lasagna noodles', grams: 450 },
              { name: 'Ricotta', grams: 425.5 },
            ],
            servings: 6,
          },
          vegetarian: true,
          notes: null,
        },
      },
    ]);
    expect(completion).toMatchObject({ finishReason: 'tool_calls', usage: { completionTokens: 195 } });
  });

  it('numbers streamed calls densely, keeps the ids the wire gives, and reads a call that opens and closes in one part', () => {
    const stream = sse(
      parts('{"text":"Checking both."}'),
      parts('{"functionCall":{"id":"fc-a","name":"get_weather","willContinue":true}}'),
      parts('{"functionCall":{"id":"fc-a","partialArgs":[{"jsonPath":"$.city","stringValue":"Paris"}],"willContinue":true}}'),
      parts('{"functionCall":{}},{"functionCall":{"id":"fc-b","name":"get_weather","willContinue":true}}'),
      parts('{"functionCall":{"name":"get_weather","partialArgs":[{"jsonPath":"$.city","stringValue":"Tokyo"}]}}'),
      parts('{"functionCall":{"name":"get_time","partialArgs":[{"jsonPath":"$.zone","stringValue":"UTC"}]}}', ',"finishReason":"STOP"'),
    );
    const { events, completion, error } = assembleEverywhere(stream);
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === 'tool-call-delta' || event.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'fc-a', name: 'get_weather', arguments: '{' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '"city":"Paris"' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '}' },
      { type: 'tool-call-end', choice: 0, index: 0 },
      { type: 'tool-call-delta', choice: 0, index: 1, id: 'fc-b', name: 'get_weather', arguments: '{' },
      { type: 'tool-call-delta', choice: 0, index: 1, arguments: '"city":"Tokyo"}' },
      { type: 'tool-call-end', choice: 0, index: 1 },
      { type: 'tool-call-delta', choice: 0, index: 2, id: 'vx-1-call-2', name: 'get_time', arguments: '{"zone":"UTC"' },
      { type: 'tool-call-delta', choice: 0, index: 2, arguments: '}' },
      { type: 'tool-call-end', choice: 0, index: 2 },
    ]);
    expect(completion?.toolCalls.map((call) => [call.id, call.name, call.args])).toEqual([
      ['fc-a', 'get_weather', { city: 'Paris' }],
      ['fc-b', 'get_weather', { city: 'Tokyo' }],
      ['vx-1-call-2', 'get_time', { zone: 'UTC' }],
    ]);
    expect(completion).toMatchObject({ content: 'Checking both.', finishReason: 'tool_calls' });
  });

  it('keeps a call the token limit cut (MAX_TOKENS while its arguments still stream) as incomplete, not as a call to run', () => {
    const stream = sse(
      parts('{"functionCall":{"name":"write_story","willContinue":true}}'),
      parts(
        '{"functionCall":{"partialArgs":[{"jsonPath":"$.title","stringValue":"The Fox"},' +
          '{"jsonPath":"$.body","stringValue":"Once upon a ti","willContinue":true}],"willContinue":true}}',
      ),
      '{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"MAX_TOKENS"}],' +
        `"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":64,"totalTokenCount":76},${TAIL}`,
    );
    const { completion, error } = assembleEverywhere(stream);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      toolCalls: [],
      incompleteToolCalls: [{ index: 0, id: 'vx-1-call-0', name: 'write_story', arguments: '{"title":"The Fox","body":"Once upon a ti' }],
      finishReason: 'length',
      rawFinishReason: 'MAX_TOKENS',
      usage: { promptTokens: 12, completionTokens: 64, totalTokens: 76 },
    });
  });

  it.each([
    [
      'a path back into an object already closed',
      [
        parts('{"functionCall":{"name":"f","willContinue":true}}'),
        parts(
          '{"functionCall":{"partialArgs":[{"jsonPath":"$.a.b","numberValue":1},{"jsonPath":"$.c","numberValue":2}],"willContinue":true}}',
        ),
        parts('{"text":"(the part that fails is the second)"},{"functionCall":{"partialArgs":[{"jsonPath":"$.a.d","numberValue":3}]}}'),
      ],
      'frame 3: candidates[0].content.parts[1].functionCall: $.a goes back into a value already written',
    ],
    [
      'an array index skipped',
      [parts('{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.items[1]","stringValue":"x"}],"willContinue":true}}')],
      'frame 1: candidates[0].content.parts[0].functionCall: $.items[1] skips index 0',
    ],
    [
      'a new call while one still streams',
      [parts('{"functionCall":{"name":"f","willContinue":true}}'), parts('{"functionCall":{"name":"g","willContinue":true}}')],
      'frame 2: candidates[0].content.parts[0].functionCall starts a call while call 0 (f) still streams its arguments',
    ],
    [
      'a path this reader cannot follow',
      [parts('{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.items[*]","stringValue":"x"}],"willContinue":true}}')],
      'frame 1: candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath is "$.items[*]", not a JSON Path to one value',
    ],
    [
      'a number written as text',
      [parts('{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.n","numberValue":"NaN"}],"willContinue":true}}')],
      'frame 1: candidates[0].content.parts[0].functionCall.partialArgs[0].numberValue is "NaN", not a finite number',
    ],
    [
      'willContinue that is not a boolean',
      [parts('{"functionCall":{"name":"f","willContinue":"yes"}}')],
      'frame 1: candidates[0].content.parts[0].functionCall.willContinue is "yes", not a boolean',
    ],
    [
      'partialArgs that is not an array',
      [parts('{"functionCall":{"name":"f","partialArgs":{"jsonPath":"$.a"},"willContinue":true}}')],
      'frame 1: candidates[0].content.parts[0].functionCall.partialArgs is not an array',
    ],
  ])('is a ProtocolError for %s', (_name, chunks, message) => {
    const { error } = assembleEverywhere(sse(...chunks));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).message).toBe(message);
  });

  it('is a ProtocolError when the reply finishes (STOP) while a call still streams: its arguments are not whole', () => {
    const { error } = assembleEverywhere(
      sse(
        parts('{"functionCall":{"name":"f","willContinue":true}}'),
        parts(
          '{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}',
          ',"finishReason":"STOP"',
        ),
      ),
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).message).toBe('the arguments of tool call 0 of choice 0 (f) are not valid JSON: "{\\"a\\":\\"x"');
  });

  it('says a call was still streaming when the stream stops before its finish, and keeps the text that came', () => {
    const { error } = assembleEverywhere(
      sse(
        parts('{"functionCall":{"name":"f","willContinue":true}}'),
        parts('{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}'),
      ),
    );
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    expect(error).toMatchObject({
      message: 'the stream ended without a finishReason after 2 frames (1 function call still streaming its arguments)',
      partial: { toolCalls: [{ index: 0, id: 'vx-1-call-0', name: 'f', arguments: '{"a":"x', complete: false }] },
    });
  });
});
