import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { bodyStream } from '../../src/testing/bodyStream';
import { fakeResponse } from '../../src/testing/fakeResponse';
import { providerStream } from '../../src/testing/writeProviderStream';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import { openaiChatLoop } from '../../src/tool-loop/loopFormats';
import { toolLoop, type ToolLoopOptions } from '../../src/tool-loop/toolLoop';
import { toolLoopUiMessageStream } from '../../src/ui/toolLoopUiMessageStream';
import { encodeUiMessageSse } from '../../src/ui/toUiMessageStream';
import { aiJudges, aiSdk, runAiCurrent } from '../support/aiSdk';
import { callsReply, textReply, wholeBody } from './support';

// A two-step tool loop served as the AI SDK's UI message stream and read back by the `ai` package's
// own parser (its strict chunk schema) and `readUIMessageStream`, as `useChat` reads it: one message,
// a step per loop step, each call's input and outcome. ai 6 in this process, and on Node 22 or later
// ai 7 too, in a child process (spec/support/aiCurrentClient.mjs), held to the same expectations.

type Message = { readonly role: string; readonly content?: unknown };

/** What a reader made of the SSE text: the chunks its schema accepted, the message rebuilt, the errors reported. */
interface Read {
  readonly chunks: UIMessageChunk[];
  readonly message: UIMessage | null | undefined;
  readonly errors: string[];
}

/** `sse` as every judge of this run reads it: ai 6 here, and ai 7 in its child process on Node 22 or later. */
async function readers(sse: string): Promise<Read[]> {
  const reads: Read[] = [await readWithAi(sse)];
  if (aiSdk.current !== undefined) {
    const report = await runAiCurrent<Read>('aiCurrentClient.mjs', { loop: sse });
    expect(report.version).toBe(aiSdk.current);
    reads.push(report.results['loop']!);
  }
  return reads;
}

/** What ai 6 reads of the SSE text. */
async function readWithAi(sse: string): Promise<Read> {
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: fakeResponse(bodyStream(sse)).body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: Error }, UIMessageChunk>({
      transform(part, controller) {
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

/** The loop over `replies` (one per step, in order), served as UI message SSE text. */
async function servedText(replies: readonly (TestReply | Uint8Array)[], options: Partial<ToolLoopOptions<Message, unknown, unknown>> = {}) {
  const loop$ = toolLoop({
    format: openaiChatLoop,
    request: (_conversation, { step }) => {
      const reply = replies[step - 1]!;
      return of(reply instanceof Uint8Array ? reply : wholeBody(reply));
    },
    conversation: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: {
      get_weather: { execute: () => ({ temperature: 4 }) },
      delete_all: { needsApproval: true, execute: () => 'deleted' },
      flaky: { execute: () => Promise.reject(new Error('EACCES /srv/secret.db')) },
    },
    approve: () => false,
    ...options,
  } as ToolLoopOptions<Message, unknown, unknown>);
  return (await lastValueFrom(loop$.pipe(toolLoopUiMessageStream(), encodeUiMessageSse(), toArray()))).join('');
}

describe(`toolLoopUiMessageStream read by ${aiJudges} (readUIMessageStream)`, () => {
  it('rebuilds a two-step loop as one message: a step each, the call with its input and output, the texts', async () => {
    const first: TestReply = { choices: [{ text: 'Let me look.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }] };
    const sse = await servedText([first, textReply('4 degrees in Oslo.')]);
    for (const { message, errors, chunks } of await readers(sse)) {
      expect(errors).toEqual([]);
      // The protocol's shape (runs of one type shown once): one message, its steps each opened and
      // closed, the call's output inside its step, `finish` last.
      expect(chunks.map((chunk) => chunk.type).filter((type, index, types) => type !== types[index - 1])).toEqual([
        'start',
        'start-step',
        'text-start',
        'text-delta',
        'text-end',
        'tool-input-start',
        'tool-input-delta',
        'tool-input-available',
        'tool-output-available',
        'finish-step',
        'start-step',
        'text-start',
        'text-delta',
        'text-end',
        'finish-step',
        'finish',
      ]);
      expect(message?.parts).toEqual([
        { type: 'step-start' },
        { type: 'text', text: 'Let me look.', state: 'done' },
        expect.objectContaining({
          type: 'tool-get_weather',
          toolCallId: 'call_0',
          state: 'output-available',
          input: { city: 'Oslo' },
          output: { temperature: 4 },
        }),
        { type: 'step-start' },
        { type: 'text', text: '4 degrees in Oslo.', state: 'done' },
      ]);
    }
  });

  it('shows a denied call as denied after its approval request, and a failed call as an error with a fixed text', async () => {
    const calls = callsReply([
      ['delete_all', {}],
      ['flaky', {}],
    ]);
    for (const { message, errors, chunks } of await readers(await servedText([calls, textReply('I could not.')]))) {
      expect(errors).toEqual([]);
      expect(chunks.map((chunk) => chunk.type)).toContain('tool-approval-request');
      const tools = message!.parts.filter((part) => part.type.startsWith('tool-'));
      expect(tools).toEqual([
        expect.objectContaining({ type: 'tool-delete_all', state: 'output-denied', approval: expect.objectContaining({ id: 'call_0' }) }),
        expect.objectContaining({ type: 'tool-flaky', state: 'output-error', errorText: 'the tool failed' }),
      ]);
      expect(JSON.stringify(chunks)).not.toContain('EACCES');
    }
  });

  it('ends a loop whose second step is cut with an error the reader reports, the first step kept', async () => {
    const cut = providerStream(textReply('The weather is'), 'openai-chat', { fault: 'cut-before-end', chunking: 'whole' }).chunks[0]!;
    for (const { message, errors } of await readers(await servedText([callsReply([['get_weather', { city: 'Oslo' }]]), cut]))) {
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain('StreamClosedEarlyError');
      expect(message?.parts.map((part) => part.type)).toEqual(['step-start', 'tool-get_weather', 'step-start', 'text']);
    }
  });
});
