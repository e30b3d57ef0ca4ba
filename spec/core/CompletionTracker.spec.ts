import { TestScheduler } from 'rxjs/testing';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { ChatEvent, TokenLogprob } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { scanCompletion } from '../../src/reply/scanCompletion';

function token(text: string, logprob: number): TokenLogprob {
  return { token: text, logprob, bytes: [...Buffer.from(text)], top_logprobs: [] };
}

function track(events: readonly ChatEvent[]): CompletionTracker {
  const tracker = new CompletionTracker();
  for (const event of events) tracker.apply(event);
  return tracker;
}

const STOP: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };

describe('CompletionTracker and the parts of a reply beside its text', () => {
  it('joins the per-chunk log probabilities in order, per channel and per choice', () => {
    const completion = track([
      { type: 'logprobs', choice: 0, content: [token('Hel', -0.1)] },
      { type: 'logprobs', choice: 1, content: [token('Bye', -2)] },
      { type: 'logprobs', choice: 0, content: [token('lo', -0.2), token('!', -0.3)] },
      { type: 'logprobs', choice: 0, refusal: [token('No', -1)] },
      STOP,
      { type: 'finish', choice: 1, reason: 'stop', raw: 'stop' },
    ]).complete();
    expect(completion.logprobs).toEqual({ content: [token('Hel', -0.1), token('lo', -0.2), token('!', -0.3)], refusal: [token('No', -1)] });
    expect(completion.choices[1]!.logprobs).toEqual({ content: [token('Bye', -2)], refusal: null });
  });

  it('gives each snapshot the log probabilities of its moment, however many come after', () => {
    const tracker = track([{ type: 'logprobs', choice: 0, content: [token('a', -1)] }]);
    const early = tracker.snapshot();
    tracker.apply({ type: 'logprobs', choice: 0, content: [token('b', -2)] });
    const later = tracker.snapshot();
    expect(early.logprobs?.content).toEqual([token('a', -1)]);
    expect(later.logprobs?.content).toEqual([token('a', -1), token('b', -2)]);
    expect(JSON.parse(JSON.stringify(early)).logprobs).toEqual({ content: [token('a', -1)], refusal: null });
  });

  it('accumulates sources in arrival order, never the last chunk winning', () => {
    const completion = track([
      { type: 'source', choice: 0, source: { kind: 'url', url: 'https://a.example', title: 'A', span: { start: 0, end: 4 } } },
      { type: 'content', choice: 0, text: 'text' },
      { type: 'source', choice: 0, source: { kind: 'document', documentId: '0', citedText: 'quoted' } },
      STOP,
    ]).complete();
    expect(completion.sources).toEqual([
      { kind: 'url', url: 'https://a.example', title: 'A', span: { start: 0, end: 4 } },
      { kind: 'document', documentId: '0', citedText: 'quoted' },
    ]);
  });

  it('joins audio pieces and keeps the id and expiry from the pieces that carry them', () => {
    const completion = track([
      { type: 'audio', choice: 0, id: 'audio_1', data: 'UklG', transcript: 'Hel' },
      { type: 'audio', choice: 0, data: 'RiQA', transcript: 'lo' },
      { type: 'audio', choice: 0, expiresAt: 1767225600 },
      STOP,
    ]).complete();
    expect(completion.audio).toEqual({ id: 'audio_1', data: 'UklGRiQA', transcript: 'Hello', expiresAt: 1767225600 });
  });

  it('joins a provider-run tool with its result by id, and keeps it out of the calls to run', () => {
    const completion = track([
      {
        type: 'provider-tool-call',
        choice: 0,
        call: { id: 'srvtool_1', name: 'web_search', type: 'server_tool_use', input: { query: 'q' } },
      },
      { type: 'provider-tool-result', choice: 0, id: 'srvtool_1', result: [{ url: 'https://a.example' }] },
      {
        type: 'provider-tool-call',
        choice: 0,
        call: { id: 'srvtool_2', name: 'web_search', type: 'server_tool_use', input: { query: 'r' } },
      },
      STOP,
    ]).complete();
    expect(completion.providerToolCalls).toEqual([
      {
        id: 'srvtool_1',
        name: 'web_search',
        type: 'server_tool_use',
        input: { query: 'q' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
        result: [{ url: 'https://a.example' }],
      },
      {
        id: 'srvtool_2',
        name: 'web_search',
        type: 'server_tool_use',
        input: { query: 'r' },
        at: { reasoning: 0, content: 0, items: 0, calls: 0 },
      },
    ]);
    expect(completion.toolCalls).toEqual([]);
    expect(completion.finishReason).toBe('stop');
  });

  it('shows none of these parts on a reply that had none', () => {
    const completion = track([{ type: 'content', choice: 0, text: 'hi' }, STOP]).complete();
    for (const key of ['logprobs', 'sources', 'audio', 'providerToolCalls', 'incompleteToolCalls'])
      expect(completion).not.toHaveProperty(key);
  });
});

describe('CompletionTracker and a later start', () => {
  it('fills a model the first start lacked, and never replaces one it had', () => {
    expect(
      track([{ type: 'start', id: 'resp_1', model: null }, { type: 'start', id: 'resp_1', model: 'qwen3' }, STOP]).complete().model,
    ).toBe('qwen3');
    expect(
      track([{ type: 'start', id: 'resp_1', model: 'a' }, { type: 'start', id: 'resp_2', model: 'b' }, STOP]).complete(),
    ).toMatchObject({
      id: 'resp_1',
      model: 'a',
    });
  });

  it('fills an id the first start lacked', () => {
    expect(track([{ type: 'start', id: '', model: 'llama' }, { type: 'start', id: 'cmpl-9', model: null }, STOP]).complete().id).toBe(
      'cmpl-9',
    );
  });
});

describe('a call cut by the token limit through the pipeline', () => {
  const events = {
    a: { type: 'tool-call-delta', choice: 0, index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":"paris"}' },
    b: { type: 'tool-call-delta', choice: 0, index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' },
    f: { type: 'finish', choice: 0, reason: 'length', raw: 'length' },
    u: { type: 'usage', usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 } },
    d: { type: 'done' },
  } satisfies Record<string, ChatEvent>;

  it('groupToolCallsByIndex emits the whole call, then the cut one as tool-call-incomplete, before the finish', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const out = cold<ChatEvent>('-a-b-f-----d|', events).pipe(groupToolCallsByIndex());
      expectObservable(out).toBe('-a-b-(wif)-d|', {
        a: { ...events.a, call: { id: 'call_a', name: 'lookup', arguments: '{"q":"paris"}' } },
        b: { ...events.b, call: { id: 'call_b', name: 'lookup', arguments: '{"q":"tok' } },
        w: {
          type: 'tool-call',
          choice: 0,
          call: { index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":"paris"}', args: { q: 'paris' } },
        },
        i: { type: 'tool-call-incomplete', choice: 0, call: { index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' } },
        f: events.f,
        d: events.d,
      });
    });
  });

  it.each([
    ['with groupToolCallsByIndex in front', true],
    ['alone', false],
  ])('finalizeCompletion %s: a Completion with finish length, the whole call, the cut one apart, the usage', (_name, grouped) => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('-a-b-f-u-d|', events);
      const out = grouped ? source.pipe(groupToolCallsByIndex(), finalizeCompletion()) : source.pipe(finalizeCompletion());
      expectObservable(out).toBe('----------(c|)', {
        c: expect.objectContaining({
          finishReason: 'length',
          toolCalls: [{ index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":"paris"}', args: { q: 'paris' } }],
          incompleteToolCalls: [{ index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' }],
          usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30 },
        }),
      });
    });
  });

  it('scanCompletion shows the cut call apart in its last snapshot', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const out = cold<ChatEvent>('-a-b-f-----d|', events).pipe(groupToolCallsByIndex(), scanCompletion());
      expectObservable(out).toBe('-x-x-(xxx)-x|', {
        x: expect.objectContaining({ id: null }),
      });
    });
    const tracker = track([events.a, events.b, events.f]);
    expect(tracker.snapshot().incompleteToolCalls).toEqual([{ index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' }]);
  });
});
