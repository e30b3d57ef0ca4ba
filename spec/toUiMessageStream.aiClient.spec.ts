/**
 * The UI message stream read by the AI SDK's own client code: the `ai` package's event-stream parser
 * with its strict chunk schema (`parseJsonEventStream` with `uiMessageChunkSchema`, as its chat
 * transport reads a response), then `readUIMessageStream`, which rebuilds the `UIMessage` and refuses
 * a delta for a part never opened. What the message must hold comes from each recording's
 * `.expected.json`, never from this library's code. On Node 22 or later every case is read by the
 * package's current major too (ai 7, `ai-current`, ES modules only: in a child process, see
 * spec/support/aiCurrentClient.mjs) and held to the same expectations.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { from, lastValueFrom, toArray } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../src/frames/sseFrames';
import { encodeUiMessageSse, toUiMessageStream } from '../src/ui/toUiMessageStream';
import { aiJudges, aiSdk, runAiCurrent } from './support/aiSdk';
import { bodyStream } from '../src/testing/bodyStream';
import { fakeResponse } from '../src/testing/fakeResponse';

const MARBLES = join(__dirname, '..', 'marbles');

interface ExpectedCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}
interface Expected {
  readonly completion?: { content: string | null; reasoning: string | null; toolCalls: ExpectedCall[]; finishReason: string };
  readonly error?: string;
  readonly partial?: { content: string | null; reasoning: string | null };
}

const expectedOf = (file: string): Expected => JSON.parse(readFileSync(join(MARBLES, file.replace(/\.sse$/, '.expected.json')), 'utf8'));

/** The recording through the library, written as the UI message stream's SSE text. */
async function uiStreamOf(file: string): Promise<string> {
  const bytes = new Uint8Array(readFileSync(join(MARBLES, file)));
  const texts = await lastValueFrom(
    from([bytes]).pipe(
      decodeUtf8(),
      sseFrames(),
      assembleChunks(),
      groupToolCallsByIndex(),
      toUiMessageStream(),
      encodeUiMessageSse(),
      toArray(),
    ),
  );
  return texts.join('');
}

/** What a reader made of a stream: the chunks its schema accepted, the message rebuilt, the messages of the errors reported. */
interface Read {
  readonly chunks: UIMessageChunk[];
  readonly message: UIMessage | undefined;
  readonly errors: string[];
}

/** The SSE text as the `ai` package 6 reads it, in this process. */
async function readWithAi(sse: string): Promise<Read> {
  const body = fakeResponse(bodyStream(sse)).body!;
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: Error }, UIMessageChunk>({
      transform(part, controller) {
        // As the AI SDK's chat transport does: a chunk its schema refuses fails the stream.
        if (!part.success) throw part.error;
        chunks.push(part.value);
        controller.enqueue(part.value);
      },
    }),
  );
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push((error as Error).message) }))
    message = snapshot;
  return { chunks, message, errors };
}

/** The SSE texts ai 7 read in its child process, by case, once per run (Node 22 or later only). */
let currentReads: Readonly<Record<string, { chunks: UIMessageChunk[]; message: UIMessage | null; errors: string[] }>> = {};

/** `sse` as every judge of this run reads it: ai 6 here, and ai 7's read of the same case from its child process. */
async function readers(name: string, sse: string): Promise<Array<readonly [judge: string, read: Read]>> {
  const judges: Array<readonly [string, Read]> = [[`ai ${aiSdk.version}`, await readWithAi(sse)]];
  if (aiSdk.current !== undefined) {
    const current = currentReads[name];
    if (current === undefined) throw new Error(`ai ${aiSdk.current} read no case named ${name}`);
    judges.push([`ai ${aiSdk.current}`, { ...current, message: current.message ?? undefined }]);
  }
  return judges;
}

/** What the message holds, in the shape of a completion: text, reasoning, calls, and whether every part was closed. */
function contentOf(message: UIMessage | undefined) {
  const parts = message?.parts ?? [];
  const joined = (type: 'text' | 'reasoning') => {
    const texts = parts.flatMap((part) => (part.type === type ? [part.text] : []));
    return texts.length === 0 ? null : texts.join('');
  };
  const calls = parts.flatMap((part) =>
    part.type.startsWith('tool-') && 'toolCallId' in part && 'input' in part
      ? [{ id: part.toolCallId, name: part.type.slice('tool-'.length), args: part.input, state: 'state' in part ? part.state : undefined }]
      : [],
  );
  const open = parts.filter((part) => (part.type === 'text' || part.type === 'reasoning') && part.state !== 'done').length;
  return { content: joined('text'), reasoning: joined('reasoning'), calls, open };
}

/** The UI protocol's spelling of each finish reason, written out. */
const UI_REASON: Readonly<Record<string, string>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
  other: 'other',
};

/** A chunk whose delta is a number, which the schema must refuse. */
const SCHEMA_BREAK = 'data: {"type":"text-delta","id":"t","delta":7}\n\ndata: [DONE]\n\n';
const FAILING = ['openai/error-payload.sse', 'openai/truncated-in-arguments.sse', 'openai/truncated-mid-event.sse'];

describe(`toUiMessageStream read by ${aiJudges} (schema-checked chunks, readUIMessageStream)`, () => {
  const WHOLE = [
    'openai/text.sse',
    'real/openai-text.sse',
    'openai/reasoning.sse',
    'real/deepseek-reasoning.sse',
    'openai/tool-calls-interleaved.sse',
    'real/xai-tool-call.sse',
    'real/deepseek-tool-call.sse',
    'real/mistral-incremental-tool-call.sse',
    'dialects/anthropic-messages.sse',
    'dialects/gemini-native.sse',
    'dialects/openai-responses.sse',
    'openai/n2.sse',
  ];

  beforeAll(async () => {
    if (aiSdk.current === undefined) return;
    const cases: Record<string, string> = { 'schema-break': SCHEMA_BREAK };
    for (const file of [...WHOLE, ...FAILING]) cases[file] = await uiStreamOf(file);
    const report = await runAiCurrent<(typeof currentReads)[string]>('aiCurrentClient.mjs', cases);
    expect(report.version).toBe(aiSdk.current);
    currentReads = report.results;
  });

  it.each(WHOLE)('%s: the rebuilt message has the text, reasoning and calls of the recording, every part closed', async (file) => {
    const { completion } = expectedOf(file);
    if (completion === undefined) throw new Error(`${file} has no completion`);
    const calls = completion.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args, state: 'input-available' }));
    for (const [judge, { chunks, message, errors }] of await readers(file, await uiStreamOf(file))) {
      expect({ judge, errors }).toEqual({ judge, errors: [] });
      expect({ judge, ...contentOf(message) }).toEqual({
        judge,
        content: completion.content,
        reasoning: completion.reasoning,
        calls,
        open: 0,
      });
      expect({ judge, first: chunks[0] }).toMatchObject({ judge, first: { type: 'start' } });
      expect({ judge, last: chunks.at(-1) }).toEqual({ judge, last: { type: 'finish', finishReason: UI_REASON[completion.finishReason] } });
    }
  });

  it('the recording with two parallel calls gives two tool parts with distinct ids, each streamed before it was available', async () => {
    const file = 'openai/tool-calls-interleaved.sse';
    for (const [judge, { chunks }] of await readers(file, await uiStreamOf(file))) {
      const ids = chunks.flatMap((chunk) => (chunk.type === 'tool-input-start' ? [chunk.toolCallId] : []));
      expect({ judge, ids }).toEqual({ judge, ids: ['call_Wx1qT7mZp3LkR9sVb2NcY4hD', 'call_Qe8uJ5nHt2GfD6aKc1XoP0vB'] });
      expect(chunks.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(2);
    }
  });

  it.each(FAILING)('%s: the failure arrives as an error chunk that the reader reports, after the text that came', async (file) => {
    const { error, partial } = expectedOf(file);
    if (error === undefined || partial === undefined) throw new Error(`${file} does not fail`);
    const sse = await uiStreamOf(file);
    expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const [judge, { chunks, message, errors }] of await readers(file, sse)) {
      const last = chunks.at(-1);
      expect({ judge, last: last?.type }).toEqual({ judge, last: 'error' });
      expect({ judge, errors }).toEqual({ judge, errors: [last?.type === 'error' ? last.errorText : ''] });
      expect(errors[0]).not.toBe('');
      const rebuilt = contentOf(message);
      expect({ judge, content: rebuilt.content, reasoning: rebuilt.reasoning, open: rebuilt.open }).toEqual({
        judge,
        content: partial.content,
        reasoning: partial.reasoning,
        open: 0,
      });
      expect({ judge, finished: chunks.some((chunk) => chunk.type === 'finish') }).toEqual({ judge, finished: false });
    }
  });

  it('a chunk that breaks the schema fails the read (the check can fail)', async () => {
    for (const [judge, { errors }] of await readers('schema-break', SCHEMA_BREAK)) {
      expect({ judge, reported: errors.length }).toEqual({ judge, reported: 1 });
    }
  });
});
