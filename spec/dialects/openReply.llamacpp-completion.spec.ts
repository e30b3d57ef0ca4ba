import { llamacppCompletion } from '../../src/dialects/llamacpp-completion/llamacppCompletion';
import { autoDialect } from '../../src/dialects/auto';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete } from '../support/complete';

// llama.cpp's native /completion stream has one level, the chunk: what it does not map is kept as
// `providerMetadata.llamacpp` of the reply. `tokens`, the ids of a chunk's own text, is not kept.

const sse = (payloads: readonly object[]): string => payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join('');

/** A piece of text, with only the fields the dialect reads. */
const piece = (content: string, extra: Record<string, unknown> = {}) => ({
  index: 0,
  content,
  tokens: [content.length],
  stop: false,
  tokens_predicted: 1,
  tokens_evaluated: 4,
  ...extra,
});
/** The last chunk, with only the fields the dialect reads. */
const last = (extra: Record<string, unknown> = {}) => ({
  index: 0,
  content: '',
  tokens: [],
  stop: true,
  model: 'm.gguf',
  stop_type: 'word',
  tokens_predicted: 2,
  tokens_evaluated: 4,
  ...extra,
});

describe('llamacpp-completion keeps every field it does not map, on the reply', () => {
  // The documented fields the dialect has no place for: the slot, the last chunk's settings, prompt,
  // truncation, stopping word and cached tokens; and one a newer server might add.
  const SETTINGS = { temperature: 0.8, n_predict: -1, samplers: ['top_k', 'temperature'] };
  const payloads = [
    piece('Hello', { id_slot: -1, draft_n: 3 }),
    piece(' there', { id_slot: -1 }),
    last({
      id_slot: 2,
      generation_settings: SETTINGS,
      prompt: 'Say hi',
      has_new_line: false,
      truncated: true,
      stopping_word: '\n',
      tokens_cached: 6,
    }),
  ];
  const KEPT = {
    llamacpp: {
      id_slot: 2,
      draft_n: 3,
      generation_settings: SETTINGS,
      prompt: 'Say hi',
      has_new_line: false,
      truncated: true,
      stopping_word: '\n',
      tokens_cached: 6,
    },
  };

  it('whole and at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(sse(payloads), llamacppCompletion, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.providerMetadata).toEqual(KEPT);
      expect(completion!.content).toBe('Hello there');
      expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    }
  });

  it('the same under auto', () => {
    expect(
      complete(
        autoDialect,
        payloads.map((p) => frame(p)),
      ).completion!.providerMetadata,
    ).toEqual(KEPT);
    expect(assembleText(sse(payloads), autoDialect, { chunkSize: 5 }).completion!.providerMetadata).toEqual(KEPT);
  });

  it('keeps none for chunks of only the fields it reads, token ids and the legacy stop flags among them', () => {
    const plain = [
      piece('Hello', { completion_probabilities: [], prompt_progress: { total: 4, cache: 0, processed: 4, time_ms: 1 } }),
      last({ stop_type: undefined, stopped_word: true, stopped_eos: false, stopped_limit: false, timings: { predicted_n: 2 } }),
    ];
    const { completion, events, error } = assembleText(sse(plain), llamacppCompletion);
    expect(error).toBeUndefined();
    expect(completion!.rawFinishReason).toBe('word');
    expect(events.some((event) => event.type === 'provider-metadata')).toBe(false);
    expect('providerMetadata' in completion!).toBe(false);
  });
});

describe('llamacpp-completion: fields kept from chunks read through a learned shape', () => {
  // Twenty chunks of one shape: after the first ones the parser reads the rest through a template.
  const long = (extra: (n: number) => Record<string, unknown>) =>
    sse([...Array.from({ length: 20 }, (_, n) => piece(`w${n} `, { tokens_predicted: n + 1, ...extra(n) })), last()]);

  it('keeps a field every chunk repeats once', () => {
    const { completion, events } = assembleText(
      long(() => ({ id_slot: -1 })),
      llamacppCompletion,
    );
    expect(completion!.providerMetadata).toEqual({ llamacpp: { id_slot: -1 } });
    expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(1);
  });

  it('keeps a field whose value changes in every chunk at its last value', () => {
    const { completion } = assembleText(
      long((n) => ({ n_decoded: n })),
      llamacppCompletion,
    );
    expect(completion!.providerMetadata).toEqual({ llamacpp: { n_decoded: 19 } });
  });

  it('reads the same at every chunk size and through auto as whole', () => {
    const text = long((n) => ({ draft: n % 3 === 0 ? 'a' : 'b', id_slot: -1 }));
    const whole = assembleText(text, llamacppCompletion).completion!;
    expect(whole.providerMetadata).toEqual({ llamacpp: { draft: 'b', id_slot: -1 } });
    for (const size of CHUNK_SIZES) expect(assembleText(text, llamacppCompletion, { chunkSize: size }).completion).toEqual(whole);
    expect(assembleText(text, autoDialect).completion).toEqual(whole);
  });
});
