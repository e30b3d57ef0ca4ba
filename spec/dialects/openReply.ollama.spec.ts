import { of, toArray } from 'rxjs';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { ollama } from '../../src/dialects/ollama/ollama';
import { autoDialect } from '../../src/dialects/auto';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { Completion } from '../../src/types/events';
import { collectSync } from '../support/collect';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { frame } from '../support/frames';
import { complete } from '../support/complete';

// Ollama's native stream keeps what it does not map as `providerMetadata.ollama`, where it arrived:
// a line's fields on the reply, `message`'s on the choice, a call's and its `function`'s on the call.
// `created_at`, the time of each line, carries nothing of the reply and is not kept.

const ndjson = (lines: readonly object[]): string => lines.map((line) => `${JSON.stringify(line)}\n`).join('');
const NDJSON = { framing: 'ndjson' } as const;

/** An `/api/chat` line at second `n`, with this message (and no `done`). */
const line = (n: number, message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  model: 'qwen3:8b',
  created_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`,
  message: { role: 'assistant', content: '', ...message },
  done: false,
  ...extra,
});
/** The done line, with counts. */
const doneLine = (n: number, extra: Record<string, unknown> = {}) =>
  line(n, {}, { done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 7, ...extra });

describe('ollama keeps every field it does not map, where it arrived', () => {
  // Fields beside the ones the dialect reads at each level: Ollama Cloud's `remote_model` and
  // `remote_host` on a line, `images` on the message, an unknown field on a call and on its function,
  // and the done line's durations.
  const lines = [
    line(0, { content: 'Hi', images: null }, { remote_model: 'gpt-oss:120b', remote_host: 'https://ollama.com:443' }),
    line(1, { tool_calls: [{ id: 'call_1', origin: 'model', function: { index: 0, name: 'f', arguments: { a: 1 }, strict: true } }] }),
    doneLine(2, { total_duration: 900, load_duration: 30, prompt_eval_duration: 100, eval_duration: 700 }),
  ];
  const REPLY = {
    ollama: {
      remote_model: 'gpt-oss:120b',
      remote_host: 'https://ollama.com:443',
      total_duration: 900,
      load_duration: 30,
      prompt_eval_duration: 100,
      eval_duration: 700,
    },
  };
  const CHOICE = { ollama: { images: null } };
  const CALL = { ollama: { origin: 'model', strict: true } };
  const expectKept = (completion: Completion | undefined) => {
    expect(completion!.providerMetadata).toEqual(REPLY);
    expect(completion!.choices[0]!.providerMetadata).toEqual(CHOICE);
    expect(completion!.toolCalls[0]!.providerMetadata).toEqual(CALL);
    expect(completion!.content).toBe('Hi');
    expect(completion!.toolCalls[0]).toMatchObject({ id: 'call_1', name: 'f', args: { a: 1 } });
  };

  it('on the completion, the choice and the call, whole and at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { completion, error } = assembleText(ndjson(lines), ollama, size === undefined ? NDJSON : { ...NDJSON, chunkSize: size });
      expect(error).toBeUndefined();
      expectKept(completion);
    }
  });

  it('the same under auto', () => {
    expectKept(
      complete(
        autoDialect,
        lines.map((l) => frame(l)),
      ).completion,
    );
    expectKept(assembleText(ndjson(lines), autoDialect, { ...NDJSON, chunkSize: 7 }).completion);
  });

  it("on the tool-call event that groupToolCallsByIndex emits, though Ollama's call ends on its own line", () => {
    const outcome = collectSync(
      of(new TextEncoder().encode(ndjson(lines))).pipe(
        decodeUtf8(),
        ndjsonFrames(),
        assembleChunks({ dialect: ollama }),
        groupToolCallsByIndex(),
        toArray(),
      ),
    );
    const calls = outcome.values[0]!.filter((event) => event.type === 'tool-call');
    expect(calls).toEqual([
      {
        type: 'tool-call',
        choice: 0,
        call: { index: 0, id: 'call_1', name: 'f', arguments: '{"a":1}', args: { a: 1 }, providerMetadata: CALL },
      },
    ]);
  });

  it("keeps /api/generate's context, the tokens of the next turn, with the done line's durations", () => {
    const generate = [
      { model: 'llama3.2', created_at: '2026-01-01T00:00:00Z', response: 'Blue.', done: false },
      {
        model: 'llama3.2',
        created_at: '2026-01-01T00:00:01Z',
        response: '',
        done: true,
        done_reason: 'stop',
        context: [1, 2, 3],
        eval_count: 2,
      },
    ];
    const { completion } = assembleText(ndjson(generate), ollama, NDJSON);
    expect(completion!.providerMetadata).toEqual({ ollama: { context: [1, 2, 3] } });
  });

  it('keeps none for lines of only the fields it reads, a new created_at on every line and a function index among them', () => {
    const plain = [
      line(0, { thinking: 'hm' }),
      line(1, { content: 'Hi' }),
      line(2, { tool_calls: [{ id: 'call_1', function: { index: 0, name: 'f', arguments: { a: 1 } } }] }),
      doneLine(3),
    ];
    const { completion, events } = assembleText(ndjson(plain), ollama, NDJSON);
    expect(events.some((event) => event.type === 'provider-metadata')).toBe(false);
    expect('providerMetadata' in completion!).toBe(false);
    expect('providerMetadata' in completion!.choices[0]!).toBe(false);
    expect('providerMetadata' in completion!.toolCalls[0]!).toBe(false);
  });
});

describe('ollama: fields kept from lines read through a learned shape', () => {
  // Twenty lines of one shape: after the first ones the parser reads the rest through a template.
  const long = (extra: (n: number) => Record<string, unknown>, message: (n: number) => Record<string, unknown> = () => ({})) =>
    ndjson([...Array.from({ length: 20 }, (_, n) => line(n, { content: `w${n} `, ...message(n) }, extra(n))), doneLine(20)]);

  it('keeps a field every line repeats once', () => {
    const { completion, events } = assembleText(
      long(() => ({ remote_host: 'h' })),
      ollama,
      NDJSON,
    );
    expect(completion!.providerMetadata).toEqual({ ollama: { remote_host: 'h' } });
    expect(events.filter((event) => event.type === 'provider-metadata')).toHaveLength(1);
  });

  it('keeps a field whose value changes on every line at its last value, on the reply and on the choice', () => {
    const { completion } = assembleText(
      long(
        (n) => ({ step: n }),
        (n) => ({ seq: n }),
      ),
      ollama,
      NDJSON,
    );
    expect(completion!.providerMetadata).toEqual({ ollama: { step: 19 } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ ollama: { seq: 19 } });
  });

  it('reads the same at every chunk size and through auto as whole', () => {
    const text = long((n) => ({ step: n % 3 === 0 ? 'a' : 'b', fixed: true }));
    const whole = assembleText(text, ollama, NDJSON).completion!;
    expect(whole.providerMetadata).toEqual({ ollama: { step: 'b', fixed: true } });
    for (const size of CHUNK_SIZES) expect(assembleText(text, ollama, { ...NDJSON, chunkSize: size }).completion).toEqual(whole);
    expect(assembleText(text, autoDialect, NDJSON).completion).toEqual(whole);
  });
});
