/**
 * The UI message stream read by the AI SDK's own client code: the `ai` package's event-stream parser
 * with its strict chunk schema (`parseJsonEventStream` with `uiMessageChunkSchema`, as its chat
 * transport reads a response), then `readUIMessageStream`, which rebuilds the `UIMessage` and refuses
 * a delta for a part never opened. What the message must hold comes from each recording's
 * `.expected.json`, never from this library's code.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { from, lastValueFrom, toArray } from 'rxjs';
import { assembleChunks } from '../src/assembleChunks';
import { decodeUtf8 } from '../src/decodeUtf8';
import { groupToolCallsByIndex } from '../src/groupToolCallsByIndex';
import { sseFrames } from '../src/sseFrames';
import { encodeUiMessageSse, toUiMessageStream } from '../src/toUiMessageStream';

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

/** The SSE text as the `ai` package reads it: the chunks its schema accepted, the message rebuilt, the errors reported. */
async function readWithAi(sse: string): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined; errors: Error[] }> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(sse));
      controller.close();
    },
  });
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
  const errors: Error[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(error as Error) })) message = snapshot;
  return { chunks, message, errors };
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

describe('toUiMessageStream read by the ai package (schema-checked chunks, readUIMessageStream)', () => {
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

  it.each(WHOLE)('%s: the rebuilt message has the text, reasoning and calls of the recording, every part closed', async (file) => {
    const { completion } = expectedOf(file);
    if (completion === undefined) throw new Error(`${file} has no completion`);
    const { chunks, message, errors } = await readWithAi(await uiStreamOf(file));
    expect(errors).toEqual([]);
    expect(contentOf(message)).toEqual({
      content: completion.content,
      reasoning: completion.reasoning,
      calls: completion.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args, state: 'input-available' })),
      open: 0,
    });
    expect(chunks[0]).toMatchObject({ type: 'start' });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: UI_REASON[completion.finishReason] });
  });

  it('the recording with two parallel calls gives two tool parts with distinct ids, each streamed before it was available', async () => {
    const { chunks } = await readWithAi(await uiStreamOf('openai/tool-calls-interleaved.sse'));
    const ids = chunks.flatMap((chunk) => (chunk.type === 'tool-input-start' ? [chunk.toolCallId] : []));
    expect(ids).toEqual(['call_Wx1qT7mZp3LkR9sVb2NcY4hD', 'call_Qe8uJ5nHt2GfD6aKc1XoP0vB']);
    expect(chunks.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(2);
  });

  it.each(['openai/error-payload.sse', 'openai/truncated-in-arguments.sse', 'openai/truncated-mid-event.sse'])(
    '%s: the failure arrives as an error chunk that the reader reports, after the text that came',
    async (file) => {
      const { error, partial } = expectedOf(file);
      if (error === undefined || partial === undefined) throw new Error(`${file} does not fail`);
      const sse = await uiStreamOf(file);
      expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
      const { chunks, message, errors } = await readWithAi(sse);
      const last = chunks.at(-1);
      expect(last?.type).toBe('error');
      expect(errors.map((reported) => reported.message)).toEqual([last?.type === 'error' ? last.errorText : '']);
      expect(errors[0]?.message).not.toBe('');
      const rebuilt = contentOf(message);
      expect({ content: rebuilt.content, reasoning: rebuilt.reasoning, open: rebuilt.open }).toEqual({
        content: partial.content,
        reasoning: partial.reasoning,
        open: 0,
      });
      expect(chunks.some((chunk) => chunk.type === 'finish')).toBe(false);
    },
  );

  it('a chunk that breaks the schema fails the read (the check can fail)', async () => {
    const { errors } = await readWithAi('data: {"type":"text-delta","id":"t","delta":7}\n\ndata: [DONE]\n\n');
    expect(errors.length).toBe(1);
  });
});
