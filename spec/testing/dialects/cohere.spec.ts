import { readFileSync } from 'fs';
import { join } from 'path';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { TestReply } from '../../../src/dialects/writing/TestReply';
import { WEATHER, bodyText, refusals, sseEvents, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { assemble } from './pipeline';
import { propertySuite } from './propertySuite';

propertySuite('cohere');

/** The events of a body: each SSE event's name and its payload. */
function written(reply: TestReply): { name: string; data: Record<string, unknown> }[] {
  return sseEvents(bodyText(providerStream(reply, 'cohere').chunks)).map((event) => {
    const [name, data] = event.split('\n');
    return { name: name!.replace(/^event: /, ''), data: JSON.parse(data!.replace(/^data: /, '')) as Record<string, unknown> };
  });
}

/** The kinds of events in order, a run of one kind counted once (`tool-call-delta` pieces are cut differently). */
const kinds = (names: readonly string[]): string[] => names.filter((name, i) => name !== names[i - 1]);

/** The first step of Cohere's tool-use streaming guide (marbles/dialects/cohere/cohere-v2-tools.sse). */
const RECORDED = readFileSync(join(__dirname, '..', '..', '..', 'marbles', 'dialects', 'cohere', 'cohere-v2-tools.sse'), 'utf8');

describe('cohere: the bytes', () => {
  const reply: TestReply = { ...WEATHER, usage: { promptTokens: 1549, completionTokens: 95, totalTokens: 1644, cachedPromptTokens: 1504 } };
  const events = written(reply);

  it('are named events whose type repeats the name, from message-start to message-end, with no [DONE]', () => {
    expect(events.every((event) => event.data['type'] === event.name)).toBe(true);
    expect(events[0]!.name).toBe('message-start');
    expect(events[events.length - 1]!.name).toBe('message-end');
    expect(bodyText(providerStream(reply, 'cohere').chunks)).not.toContain('[DONE]');
  });

  it('write the reasoning of a reply that makes calls as the tool plan, then the text block, then the calls, as the guide does', () => {
    expect(kinds(events.map((event) => event.name))).toEqual([
      'message-start',
      'tool-plan-delta',
      'content-start',
      'content-delta',
      'content-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'message-end',
    ]);
    const plan = events.filter((event) => event.name === 'tool-plan-delta');
    expect(plan.map((event) => (event.data['delta'] as { message: { tool_plan: string } }).message.tool_plan).join('')).toBe(
      WEATHER.choices[0]!.reasoning,
    );
    // Without its text block, the reply is the guide's first step: the same kinds of events in the same order.
    const planAndCalls = written({ choices: [{ reasoning: 'I will search.', toolCalls: WEATHER.choices[0]!.toolCalls! }] });
    const recorded = sseEvents(RECORDED).map((event) => event.split('\n')[0]!.replace(/^event: /, ''));
    expect(kinds(planAndCalls.map((event) => event.name))).toEqual(kinds(recorded));
  });

  it('write the reasoning of a reply without calls as a thinking block before the text block', () => {
    const thinking = written({ choices: [{ reasoning: 'Two and two.', text: 'Four.' }] });
    expect(thinking.filter((event) => event.name === 'content-start').map((event) => event.data)).toEqual([
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'thinking', thinking: '' } } } },
      { type: 'content-start', index: 1, delta: { message: { content: { type: 'text', text: '' } } } },
    ]);
  });

  it('start each call with its id, type function, its name and arguments "", by the call’s index', () => {
    expect(events.filter((event) => event.name === 'tool-call-start').map((event) => event.data)).toEqual([
      {
        type: 'tool-call-start',
        index: 0,
        delta: { message: { tool_calls: { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '' } } } },
      },
      {
        type: 'tool-call-start',
        index: 1,
        delta: { message: { tool_calls: { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } } } },
      },
    ]);
  });

  it('end with the finish reason and the usage: tokens, cached_tokens and the billed units', () => {
    expect(events[events.length - 1]!.data).toEqual({
      type: 'message-end',
      delta: {
        finish_reason: 'TOOL_CALL',
        usage: {
          billed_units: { input_tokens: 45, output_tokens: 95 },
          tokens: { input_tokens: 1549, output_tokens: 95 },
          cached_tokens: 1504,
        },
      },
    });
  });

  it('send an error as a message-end whose delta.error says why', () => {
    const body = bodyText(providerStream(reply, 'cohere', { fault: 'error' }).chunks);
    const delta = '{"error":"an internal error occurred while generating the reply","finish_reason":"ERROR"}';
    expect(body).toContain(`event: message-end\ndata: {"type":"message-end","delta":${delta}}\n\n`);
  });

  it('name the reply with the id it gives, and no model', () => {
    expect(assemble(providerStream({ ...reply, id: 'e8f9afc1' }, 'cohere')).values[0]).toMatchObject({ id: 'e8f9afc1', model: null });
  });

  it('read the same under strict, with a tool plan and with a thinking block', () => {
    expect(strictOutcome(reply, 'cohere').values).toEqual([expectedCompletion(reply, 'cohere')]);
    const thinking: TestReply = { choices: [{ reasoning: 'Two and two.', text: 'Four.', finishReason: 'length' }] };
    expect(strictOutcome(thinking, 'cohere').values).toEqual([expectedCompletion(thinking, 'cohere')]);
  });
});

refusals('cohere', [
  ['a model', { choices: [{ text: 'a' }], model: 'command-a-03-2025' }, 'model'],
  ['a second choice', { choices: [{ text: 'a' }, { text: 'b' }] }, 'choices[1]'],
  ['a custom call', { choices: [{ toolCalls: [{ name: 'f', kind: 'custom', arguments: { raw: 'x' } }] }] }, 'choices[0].toolCalls[0]'],
  ['a signature', { choices: [{ reasoning: 'r', text: 'a', reasoningSignatures: ['c2ln'] }] }, 'choices[0].reasoningSignatures'],
  ['the finish content_filter', { choices: [{ text: 'a', finishReason: 'content_filter' }] }, 'choices[0].finishReason'],
  ['the finish other', { choices: [{ text: 'a', finishReason: 'other' }] }, 'choices[0].finishReason'],
  [
    'a total that is not the sum',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 5 } },
    'usage.totalTokens',
  ],
  [
    'more cached than the prompt',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, cachedPromptTokens: 4 } },
    'usage.cachedPromptTokens',
  ],
  [
    'reasoning tokens',
    { choices: [{ text: 'a' }], usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4, reasoningTokens: 1 } },
    'usage.reasoningTokens',
  ],
]);
