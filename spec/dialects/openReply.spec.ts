import { SseFrame } from '../../src/frames/SseParser';
import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { aiSdkUi } from '../../src/dialects/ai-sdk-ui/aiSdkUi';
import { anthropic } from '../../src/dialects/anthropic/anthropic';
import { autoDialect } from '../../src/dialects/auto';
import { bedrockConverse } from '../../src/dialects/bedrock-converse/bedrockConverse';
import { cohere } from '../../src/dialects/cohere/cohere';
import { DialectFactory } from '../../src/dialects/Dialect';
import { gemini } from '../../src/dialects/gemini/gemini';
import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete, groupedEvents } from '../support/complete';

// The open reply, dialect by dialect: an output item of a kind the dialect does not read is kept on
// the choice (`providerMetadata.<provider>.items`) and counts as output, so a reply of only such an
// item is whole, and a reply cut after it carries it in its partial. Each stream
// is written from the format's documented events, with a kind of item the dialect does not read.
// Fields a dialect does not map: `openai-chat` below, and spec/reply/providerMetadata.spec.ts.

const sse = (frames: readonly SseFrame[]): string =>
  frames.map((f) => `${f.event === 'message' ? '' : `event: ${f.event}\n`}data: ${f.data}\n\n`).join('');

interface OnlyItem {
  readonly dialect: DialectFactory;
  /** Whether `auto` recognises the format from its first frame. */
  readonly auto: boolean;
  readonly provider: string;
  readonly frames: readonly SseFrame[];
  /** The same reply cut after its first item, before its end signal: how many of `frames`, or other frames. */
  readonly cut: number | readonly SseFrame[];
  readonly items: readonly unknown[];
}

const COMPACTION = { type: 'compaction', content: 'The conversation so far, in short.' };
// A hosted shell's output (openai 7.x `shell_call_output`): an item the Responses dialect does not read.
// (An `mcp_approval_request` was the example here until it became a tool request.)
const APPROVAL = { type: 'shell_call_output', id: 'sho_1', call_id: 'call_sh', max_output_length: null, output: [] };
const INLINE = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } };
const IMAGE_BLOCK = { image: { format: 'png' } };
const FILE = { type: 'file', url: 'https://example.com/chart.png', mediaType: 'image/png' };

const CASES: Readonly<Record<string, OnlyItem>> = {
  // Anthropic's context-management block (`compaction`), a kind this dialect does not read, and its delta.
  anthropic: {
    dialect: anthropic,
    auto: true,
    provider: 'anthropic',
    frames: [
      frame(
        { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 3, output_tokens: 1 } } },
        'message_start',
      ),
      frame({ type: 'content_block_start', index: 0, content_block: COMPACTION }, 'content_block_start'),
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'compaction_delta', content: ' More.' } }, 'content_block_delta'),
      frame({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
      frame({ type: 'message_delta', delta: { stop_reason: 'pause_turn' }, usage: { output_tokens: 9 } }, 'message_delta'),
      frame({ type: 'message_stop' }, 'message_stop'),
    ],
    cut: 3,
    items: [COMPACTION, { type: 'compaction_delta', content: ' More.' }],
  },
  // A Responses reply whose only output is an MCP approval request, a kind of item this dialect does not read.
  'openai-responses': {
    dialect: openaiResponses,
    auto: true,
    provider: 'openai',
    frames: [
      frame(
        { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5', status: 'in_progress', output: [] } },
        'response.created',
      ),
      frame({ type: 'response.output_item.added', output_index: 0, item: APPROVAL }, 'response.output_item.added'),
      frame({ type: 'response.output_item.done', output_index: 0, item: APPROVAL }, 'response.output_item.done'),
      frame(
        { type: 'response.completed', response: { id: 'resp_1', model: 'gpt-5', status: 'completed', output: [APPROVAL] } },
        'response.completed',
      ),
    ],
    cut: 3,
    items: [APPROVAL],
  },
  // A Gemini candidate whose only part is an image (`inlineData`).
  gemini: {
    dialect: gemini,
    auto: true,
    provider: 'google',
    frames: [frame({ candidates: [{ index: 0, content: { role: 'model', parts: [INLINE] }, finishReason: 'STOP' }], responseId: 'r1' })],
    cut: [frame({ candidates: [{ index: 0, content: { role: 'model', parts: [INLINE] } }], responseId: 'r1' })],
    items: [INLINE],
  },
  // A ConverseStream block of a kind other than a tool use (an image), and a delta of none of the kinds read.
  'bedrock-converse': {
    dialect: bedrockConverse,
    auto: true,
    provider: 'bedrock',
    frames: [
      frame({ role: 'assistant' }, 'messageStart'),
      frame({ contentBlockIndex: 0, start: IMAGE_BLOCK }, 'contentBlockStart'),
      frame({ contentBlockIndex: 0, delta: { image: { source: { bytes: 'iVBOR' } } } }, 'contentBlockDelta'),
      frame({ contentBlockIndex: 0 }, 'contentBlockStop'),
      frame({ stopReason: 'end_turn' }, 'messageStop'),
      frame({ usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 5 } }, 'metadata'),
    ],
    cut: 3,
    items: [IMAGE_BLOCK, { image: { source: { bytes: 'iVBOR' } } }],
  },
  // A Cohere content block of a type other than text or thinking.
  cohere: {
    dialect: cohere,
    auto: true,
    provider: 'cohere',
    frames: [
      frame({ type: 'message-start', id: 'c1', delta: { message: { role: 'assistant' } } }),
      frame({ type: 'content-start', index: 0, delta: { message: { content: { type: 'image', url: 'https://example.com/a.png' } } } }),
      frame({ type: 'content-end', index: 0 }),
      frame({ type: 'message-end', delta: { finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 2, output_tokens: 3 } } } }),
    ],
    cut: 2,
    items: [{ type: 'image', url: 'https://example.com/a.png' }],
  },
  // An AI SDK UI message stream whose only output is a file part.
  'ai-sdk-ui': {
    dialect: aiSdkUi,
    auto: false,
    provider: 'ai-sdk',
    frames: [frame({ type: 'start', messageId: 'm1' }), frame(FILE), frame({ type: 'finish' }), frame('[DONE]')],
    cut: 2,
    items: [FILE],
  },
};

describe('an output item of a kind the dialect does not read', () => {
  describe.each(Object.entries(CASES))('%s', (_name, { dialect, auto, provider, frames, cut, items }) => {
    it('is kept on the choice, in order, and a reply of only such items is whole', () => {
      const { completion, error } = complete(dialect, frames);
      expect(error).toBeUndefined();
      expect(completion!.content).toBeNull();
      expect(completion!.toolCalls).toEqual([]);
      expect(completion!.choices[0]!.providerMetadata).toEqual({ [provider]: { items } });
    });

    it('reads the same at every chunk size', () => {
      const text = sse(frames);
      for (const size of CHUNK_SIZES) {
        const { completion, error } = assembleText(text, dialect, { chunkSize: size });
        expect(error).toBeUndefined();
        expect(completion!.choices[0]!.providerMetadata).toEqual({ [provider]: { items } });
      }
    });

    if (auto) {
      it('reads the same under auto', () => {
        expect(complete(autoDialect, frames).completion!.choices[0]!.providerMetadata).toEqual({ [provider]: { items } });
      });
    }

    it('of a reply cut before its end is in the partial of its error', () => {
      const { completion, error } = assembleText(sse(typeof cut === 'number' ? frames.slice(0, cut) : cut), dialect);
      expect(completion).toBeUndefined();
      expect(error).toMatchObject({ name: 'StreamClosedEarlyError' });
      expect((error as { partial: { choices: { providerMetadata?: unknown }[] } }).partial.choices[0]!.providerMetadata).toEqual({
        [provider]: { items: expect.arrayContaining([items[0]]) as unknown },
      });
    });
  });
});

describe('openai-chat keeps every field it does not map, where it arrived', () => {
  // A chunk as OpenAI-compatible servers send it, with fields beside the ones the dialect reads at each
  // level: OpenRouter's `provider` and `reasoning_details`, vLLM's `stop_reason`, and Gemini's
  // `extra_content` on a call (its thought signature, which must go back with the call).
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model: 'm', system_fingerprint: 'fp_1' };
  const call = {
    index: 0,
    id: 'call_1',
    type: 'function',
    function: { name: 'f', arguments: '{}' },
    extra_content: { google: { thought_signature: 'c2ln' } },
  };
  const frames = [
    frame({
      ...head,
      provider: 'Acme',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi', reasoning_details: [{ type: 'reasoning.text', text: 'r' }] } }],
    }),
    frame({ ...head, choices: [{ index: 0, delta: { tool_calls: [call] } }] }),
    frame({ ...head, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls', stop_reason: null }] }),
    frame('[DONE]'),
  ];
  const SIGNATURE = { openai: { extra_content: { google: { thought_signature: 'c2ln' } } } };

  it('on the completion, the choice and the call, at every chunk size, a field every chunk repeats kept once', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, events } = assembleText(sse(frames), openaiChat, size === undefined ? {} : { chunkSize: size });
      expect(completion!.providerMetadata).toEqual({ openai: { created: 1767225600, system_fingerprint: 'fp_1', provider: 'Acme' } });
      expect(completion!.choices[0]!.providerMetadata).toEqual({
        openai: { reasoning_details: [{ type: 'reasoning.text', text: 'r' }], stop_reason: null },
      });
      expect(completion!.toolCalls[0]!.providerMetadata).toEqual(SIGNATURE);
      expect(events.filter((event) => event.type === 'provider-metadata' && event.choice === undefined)).toHaveLength(1);
    }
  });

  it('on the tool-call event that groupToolCallsByIndex emits, as on the completion', () => {
    const events = groupedEvents(sse(frames), openaiChat);
    const calls = events.filter((event) => event.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', choice: 0, call: { index: 0, id: 'call_1', name: 'f', arguments: '{}', args: {}, providerMetadata: SIGNATURE } },
    ]);
  });

  it('keeps none for chunks of only the fields it reads', () => {
    const plain = [
      frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'Hi' } }] }),
      frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      frame('[DONE]'),
    ];
    const { completion } = complete(openaiChat, plain);
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
  });
});

describe('fields kept from chunks read through a learned shape', () => {
  // After two chunks of one shape, the parser reads the next ones through a template and the base
  // skips the fields it kept already. These streams are long enough for that, and each is built so
  // that a skip where a field did change would lose it.
  const chunk = (fields: Record<string, unknown>, choice: Record<string, unknown> = {}, text = 'x') =>
    frame({
      id: 'c',
      object: 'chat.completion.chunk',
      model: 'm',
      ...fields,
      choices: [{ index: 0, delta: { content: text }, ...choice }],
    });
  const end = [
    frame({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    frame('[DONE]'),
  ];
  const kept = (frames: readonly SseFrame[]) => {
    const { completion, error } = complete(openaiChat, [...frames, ...end]);
    expect(error).toBeUndefined();
    return completion!;
  };

  it('keeps a field whose value changes in every chunk at its last value', () => {
    const frames = Array.from({ length: 12 }, (_, n) => chunk({ stamp: `t${n}` }));
    expect(kept(frames).providerMetadata).toEqual({ openai: { stamp: 't11' } });
  });

  it('keeps a field again when a chunk of another shape changed it in between', () => {
    const same = Array.from({ length: 6 }, () => chunk({ tier: 'a' }));
    const other = frame({ id: 'c', object: 'chat.completion.chunk', model: 'm', tier: 'b', choices: [] });
    expect(kept([...same, other, ...same]).providerMetadata).toEqual({ openai: { tier: 'a' } });
    expect(kept([...same, other]).providerMetadata).toEqual({ openai: { tier: 'b' } });
  });

  it('keeps a choice field for each choice when the choice index is what varies', () => {
    // One shape for all choices: `index` is a hole, and the kept field's place depends on it. The
    // first chunks of choices 0 and 1 teach the shape, choice 2's is read through it to judge it, and
    // choice 3's is the first whose place differs from the judged chunk's.
    const frames = Array.from({ length: 12 }, (_, n) => chunk({}, { index: n % 4, logprobs: null, seed: 's' }));
    const all = [0, 1, 2, 3].map((index) =>
      frame({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index, delta: {}, finish_reason: 'stop' }] }),
    );
    const { completion, error } = complete(openaiChat, [...frames, ...all, frame('[DONE]')]);
    expect(error).toBeUndefined();
    expect(completion!.choices.map((choice) => choice.providerMetadata)).toEqual(
      Array.from({ length: 4 }, () => ({ openai: { seed: 's' } })),
    );
  });

  it('keeps a field nested in an object whose inner value varies', () => {
    const frames = Array.from({ length: 12 }, (_, n) => chunk({ meta: { step: n, kind: 'k' } }));
    expect(kept(frames).providerMetadata).toEqual({ openai: { meta: { step: 11, kind: 'k' } } });
  });

  it('reads the same at every chunk size and through auto as one chunk at a time', () => {
    const frames = Array.from({ length: 20 }, (_, n) => chunk({ stamp: n % 3 === 0 ? 'a' : 'b', fixed: true }, {}, `w${n}`));
    const text = sse([...frames, ...end]);
    const whole = assembleText(text, openaiChat).completion!;
    expect(whole.providerMetadata).toEqual({ openai: { stamp: 'b', fixed: true } });
    for (const size of CHUNK_SIZES) expect(assembleText(text, openaiChat, { chunkSize: size }).completion).toEqual(whole);
    expect(assembleText(text, autoDialect).completion).toEqual(whole);
  });
});
