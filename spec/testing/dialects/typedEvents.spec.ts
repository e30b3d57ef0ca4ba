import { readFileSync } from 'fs';
import { join } from 'path';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { pythonJson } from '../../../src/dialects/typed-events/typedEventsWriter';
import { bodyText, refusals, strictOutcome } from './examples';
import { expectedCompletion } from './expected';
import { propertySuite } from './propertySuite';

propertySuite('typed-events');

/** The typed-event specification's own test stream (marbles/dialects/typed-events.sse) and its reply. */
const RECORDED = readFileSync(join(__dirname, '..', '..', '..', 'marbles', 'dialects', 'typed-events.sse'), 'utf8');
const SPECIFIED = {
  choices: [
    {
      text: 'Café ☕ ',
      toolCalls: [
        { id: 'c1', name: 'search', arguments: { raw: '{"q": "crème brûlée", "k": 3}' } },
        { id: 'c2', name: 'weather', arguments: { raw: '{"city": "Paris"}' } },
      ],
    },
  ],
};

describe('typed-events: the bytes', () => {
  const body = bodyText(providerStream(SPECIFIED, 'typed-events').chunks);

  it("are framed as the specification's test frames them: the keep-alive, CRLF data events, then event: done and [DONE] with LF", () => {
    expect(body.startsWith(': keep-alive\n\n')).toBe(true);
    expect(body.endsWith('event: done\ndata: [DONE]\n\n')).toBe(true);
    const middle = body.slice(': keep-alive\n\n'.length, -'event: done\ndata: [DONE]\n\n'.length);
    expect(
      middle
        .split('\r\n\r\n')
        .filter((event) => event !== '')
        .every((event) => /^data: \{"type": "/.test(event)),
    ).toBe(true);
    // The recording was written by the specification's test itself: the same framing around its events.
    expect(RECORDED.startsWith(': keep-alive\n\n') && RECORDED.endsWith('event: done\ndata: [DONE]\n\n')).toBe(true);
  });

  it('hold the same kinds of events as the recording, the calls started together and their pieces interleaved', () => {
    const types = (text: string): string[] => [...text.matchAll(/"type": "(\w+)"(?:, "index": (\d))?/g)].map((m) => `${m[1]}${m[2] ?? ''}`);
    const kinds = types(body).filter((type) => type !== 'text');
    expect(kinds.slice(0, 2)).toEqual(['tool_call_start0', 'tool_call_start1']);
    expect(kinds.slice(2, 4)).toEqual(['tool_call_delta0', 'tool_call_delta1']);
    expect(new Set(types(body))).toEqual(new Set(types(RECORDED)));
  });

  it("write JSON as Python's json.dumps does", () => {
    expect(pythonJson({ type: 'text', delta: 'é "q"', list: [1, { a: null }] })).toBe(
      '{"type": "text", "delta": "é \\"q\\"", "list": [1, {"a": null}]}',
    );
  });

  it('read the same under strict', () => {
    expect(strictOutcome(SPECIFIED, 'typed-events').values).toEqual([expectedCompletion(SPECIFIED, 'typed-events')]);
  });
});

refusals('typed-events', [
  ['usage', { choices: [{ text: 'a' }], usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, 'usage'],
  ['a model', { choices: [{ text: 'a' }], model: 'm' }, 'model'],
  ['reasoning', { choices: [{ reasoning: 'r', text: 'a' }] }, 'choices[0].reasoning'],
  ['a finish of its own', { choices: [{ text: 'a', finishReason: 'length' }] }, 'choices[0].finishReason'],
  ['a raw finish', { choices: [{ text: 'a', rawFinishReason: 'stop' }] }, 'choices[0].rawFinishReason'],
]);
