import { readReply } from '../support/pipeline';

// Ollama's four durations (ollama-js 0.6.4, dist/browser.d.ts: ChatResponse and GenerateResponse
// {total_duration, load_duration, prompt_eval_duration, eval_duration: number}, nanoseconds, on the
// `done` line). One server's meaning, in its own unit: kept as they came on the reply,
// `completion.providerMetadata.ollama`, read through the README pipeline at 1, 7 and 64-byte chunks
// and whole. The values are written here from the lines, not printed from the code.

const DURATIONS = { total_duration: 4883583458, load_duration: 1334875, prompt_eval_duration: 31950000, eval_duration: 4848751000 };
const ndjson = (...lines: object[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

describe("ollama: the done line's durations reach the reply (issue 30, F)", () => {
  it('/api/chat: the four durations, exactly, in providerMetadata.ollama of the reply; no timings', () => {
    const { completion, error } = readReply(
      ndjson(
        { model: 'llama3.2', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'Hi.' }, done: false },
        {
          model: 'llama3.2',
          created_at: '2026-01-01T00:00:01Z',
          message: { role: 'assistant', content: '' },
          done: true,
          done_reason: 'stop',
          prompt_eval_count: 26,
          eval_count: 3,
          ...DURATIONS,
        },
      ),
      'ollama',
      'ndjson',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Hi.', finishReason: 'stop', timings: null });
    expect(completion!.providerMetadata).toEqual({ ollama: DURATIONS });
  });

  it('/api/generate: the four durations beside the context, exactly, in providerMetadata.ollama of the reply', () => {
    const { completion, error } = readReply(
      ndjson(
        { model: 'llama3.2', created_at: '2026-01-01T00:00:00Z', response: 'Blue.', done: false },
        {
          model: 'llama3.2',
          created_at: '2026-01-01T00:00:01Z',
          response: '',
          done: true,
          done_reason: 'stop',
          context: [1, 2],
          prompt_eval_count: 26,
          eval_count: 2,
          ...DURATIONS,
        },
      ),
      'ollama',
      'ndjson',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Blue.', finishReason: 'stop' });
    expect(completion!.providerMetadata).toEqual({ ollama: { context: [1, 2], ...DURATIONS } });
  });
});
