/**
 * What the UI message stream makes of a `retract` (the AI SDK's `reset-step` read back) and of a
 * `finish-details` event. The UI protocol of ai 7 has `reset-step`: "Removes all message parts added
 * during the current step" (UIMessageChunk in node_modules/ai-current/dist/index.d.ts), the parts
 * after the last `step-start`; the encoder sends the step again without the text taken back. The
 * finish details go to the message's metadata (`message-metadata`, in ai 6 and 7 alike). Each message
 * is read by a reader written here from that doc comment, by ai 6 when its schema knows every chunk,
 * and by ai 7 (a child process) on Node 22 or later.
 */
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { from, lastValueFrom, toArray } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../src/frames/sseFrames';
import { ChatEvent } from '../src/types/events';
import { encodeUiMessageSse, toUiMessageStream } from '../src/ui/toUiMessageStream';
import { UiMessageEncoder } from '../src/ui/UiMessageEncoder';
import { bodyStream } from '../src/testing/bodyStream';
import { fakeResponse } from '../src/testing/fakeResponse';
import { aiSdk, runAiCurrent } from './support/aiSdk';
import { readReply, sseOf } from './support/pipeline';

/** A part of a message as the reader below keeps it. */
type ReadPart = { type: string; text?: string; url?: string; toolCallId?: string; state?: string };

/**
 * The message the chunks build, read as the protocol's doc comments say: a step starts a `step-start`
 * part, `reset-step` removes the parts after the last one and forgets the open parts, a delta goes to
 * an open part of its id (a delta for a part not open is an error).
 */
function readChunks(chunks: readonly { type: string; [key: string]: unknown }[]): { parts: ReadPart[]; metadata: unknown } {
  const parts: ReadPart[] = [];
  let open = new Map<string, ReadPart>();
  let metadata: unknown = undefined;
  for (const chunk of chunks) {
    switch (chunk.type) {
      case 'start-step':
        parts.push({ type: 'step-start' });
        break;
      case 'reset-step': {
        const start = parts.map((part) => part.type).lastIndexOf('step-start');
        parts.splice(start + 1);
        open = new Map();
        break;
      }
      case 'text-start':
      case 'reasoning-start': {
        const part = { type: chunk.type.slice(0, -'-start'.length), text: '', state: 'streaming' };
        parts.push(part);
        open.set(String(chunk.id), part);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const part = open.get(String(chunk.id));
        if (part === undefined) throw new Error(`a delta for ${String(chunk.id)}, which is not open`);
        part.text += String(chunk.delta);
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        const part = open.get(String(chunk.id));
        if (part === undefined) throw new Error(`an end for ${String(chunk.id)}, which is not open`);
        part.state = 'done';
        open.delete(String(chunk.id));
        break;
      }
      case 'source-url':
        parts.push({ type: 'source-url', url: String(chunk.url) });
        break;
      case 'tool-input-available':
        parts.push({ type: `tool-${String(chunk.toolName)}`, toolCallId: String(chunk.toolCallId), state: 'input-available' });
        break;
      case 'message-metadata':
        metadata = { ...(metadata as object), ...(chunk.messageMetadata as object) };
        break;
      default:
    }
  }
  return { parts, metadata };
}

/** The message's parts as text: what a user sees. */
function shown(parts: readonly { type: string; text?: string; url?: string }[]): string[] {
  return parts.flatMap((part) =>
    part.type === 'text' || part.type === 'reasoning'
      ? [`${part.type}: ${part.text ?? ''}`]
      : part.type === 'source-url'
        ? [`source: ${part.url ?? ''}`]
        : part.type.startsWith('tool-')
          ? [part.type]
          : [],
  );
}

/** The SSE text of a UI message stream that an AI SDK backend sent, read by the library and written again. */
async function rewritten(sse: string): Promise<string> {
  const texts = await lastValueFrom(
    from([sse]).pipe(
      sseFrames(),
      assembleChunks({ dialect: 'ai-sdk-ui' }),
      groupToolCallsByIndex(),
      toUiMessageStream(),
      encodeUiMessageSse(),
      toArray(),
    ),
  );
  return texts.join('');
}

const chunksOf = (sse: string) =>
  sse
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as { type: string; [key: string]: unknown });

/** The message ai 6 rebuilds, its chunks checked by its own schema, as its chat transport reads a response. */
async function readWithAi6(sse: string): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const stream = parseJsonEventStream({ stream: fakeResponse(bodyStream(sse)).body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: Error }, UIMessageChunk>({
      transform(part, controller) {
        if (!part.success) throw part.error;
        controller.enqueue(part.value);
      },
    }),
  );
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push((error as Error).message) }))
    message = snapshot;
  return { message, errors };
}

/** What ai 7 made of each case (Node 22 or later), else nothing. */
async function readWithAi7(cases: Record<string, string>) {
  if (aiSdk.current === undefined) return undefined;
  const report = await runAiCurrent<{ message: UIMessage | null; errors: string[] }>('aiCurrentClient.mjs', cases);
  expect(report.version).toBe(aiSdk.current);
  return report.results;
}

/** A backend's stream with a step reset (ai 7's UIMessageChunk types, as in spec/dialects/fidelity.ai-sdk-ui.spec.ts). */
const RESET_STEP_STREAM = sseOf([
  { type: 'start', messageId: 'msg-1' },
  { type: 'start-step' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Checking. ' },
  { type: 'text-end', id: 't1' },
  { type: 'source-url', sourceId: 's0', url: 'https://kept.example' },
  { type: 'finish-step' },
  { type: 'start-step' },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'The user wants' },
  { type: 'text-start', id: 't2' },
  { type: 'text-delta', id: 't2', delta: 'It is 9 deg' },
  { type: 'reset-step' },
  { type: 'text-start', id: 't3' },
  { type: 'text-delta', id: 't3', delta: 'It is 4 degrees.' },
  { type: 'text-end', id: 't3' },
  { type: 'finish-step' },
  { type: 'finish', finishReason: 'stop' },
  '[DONE]',
]);

describe('toUiMessageStream: a retract takes the text back from the UI message (issue 30, F)', () => {
  it('an AI SDK backend stream with reset-step, read and written again, shows only what the step kept', async () => {
    const sse = await rewritten(RESET_STEP_STREAM);
    const expected = ['text: Checking. ', 'source: https://kept.example', 'text: It is 4 degrees.'];
    const { parts } = readChunks(chunksOf(sse));
    expect(shown(parts)).toEqual(expected);
    expect(parts.filter((part) => part.state === 'streaming')).toEqual([]);
    const ai7 = await readWithAi7({ reset: sse });
    if (ai7 !== undefined) {
      expect(ai7['reset']!.errors).toEqual([]);
      expect(shown((ai7['reset']!.message?.parts ?? []) as ReadPart[])).toEqual(expected);
    }
  });

  it('takes back part of the open text and part of the reasoning; a call of the step and later deltas stay right', () => {
    const encoder = new UiMessageEncoder();
    const events: ChatEvent[] = [
      { type: 'reasoning', choice: 0, text: 'Think. Wrong' },
      { type: 'tool-call-delta', choice: 0, index: 0, arguments: '{}', call: { id: 'c1', name: 'f', arguments: '{}' } },
      { type: 'tool-call', choice: 0, call: { index: 0, id: 'c1', name: 'f', arguments: '{}', args: {} } },
      { type: 'content', choice: 0, text: 'Keep this. ' },
      { type: 'content', choice: 0, text: 'Drop' },
      { type: 'retract', choice: 0, content: 4, reasoning: 5 },
      { type: 'content', choice: 0, text: 'More.' },
      { type: 'done' },
    ];
    const { parts } = readChunks(events.flatMap((event) => encoder.encode(event)));
    expect(shown(parts)).toEqual(['reasoning: Think. ', 'tool-f', 'text: Keep this. More.']);
    expect(parts.filter((part) => part.state === 'streaming')).toEqual([]);
  });

  it('a retract of a whole part removes it; the next text opens a new part', () => {
    const encoder = new UiMessageEncoder();
    const events: ChatEvent[] = [
      { type: 'content', choice: 0, text: 'A. ' },
      { type: 'reasoning', choice: 0, text: 'hm' },
      { type: 'content', choice: 0, text: 'B' },
      { type: 'retract', choice: 0, content: 1, reasoning: 2 },
      { type: 'content', choice: 0, text: 'C' },
      { type: 'done' },
    ];
    const { parts } = readChunks(events.flatMap((event) => encoder.encode(event)));
    expect(shown(parts)).toEqual(['text: A. ', 'text: C']);
  });

  it('an encoder made from the state of another retracts what the first one sent', () => {
    const first = new UiMessageEncoder();
    const chunks = [
      ...first.encode({ type: 'content', choice: 0, text: 'Keep. ' }),
      ...first.encode({ type: 'content', choice: 0, text: 'Drop' }),
    ];
    const second = new UiMessageEncoder({}, JSON.parse(JSON.stringify(first.state)));
    chunks.push(...second.encode({ type: 'retract', choice: 0, content: 4, reasoning: 0 }), ...second.encode({ type: 'done' }));
    expect(shown(readChunks(chunks).parts)).toEqual(['text: Keep. ']);
  });
});

describe('toUiMessageStream: what it keeps to send again has a cap', () => {
  it('past 16 Ki characters of a message a retract is not shown (no reset-step), live or from a state, and nothing else changes', () => {
    const long = 'x'.repeat(16 * 1024);
    const live = new UiMessageEncoder();
    const first = [...live.encode({ type: 'content', choice: 0, text: long }), ...live.encode({ type: 'content', choice: 0, text: 'yz' })];
    const state = JSON.parse(JSON.stringify(live.state));
    // The state a relay keeps stays small once the message is long: no text in it.
    expect(JSON.stringify(state).length).toBeLessThan(1024);
    const resumed = new UiMessageEncoder({}, state);
    const retract: ChatEvent = { type: 'retract', choice: 0, content: 2, reasoning: 0 };
    for (const encoder of [live, resumed]) {
      const chunks = [...first, ...encoder.encode(retract), ...encoder.encode({ type: 'done' })];
      expect(chunks.filter((chunk) => chunk.type === 'reset-step')).toEqual([]);
      expect(shown(readChunks(chunks).parts)).toEqual([`text: ${long}yz`]);
    }
  });
});

describe('toUiMessageStream: the finish details reach the UI message (issue 30, F)', () => {
  it("finish-details become the message's metadata, as ai reads it", async () => {
    const encoder = new UiMessageEncoder();
    const events: ChatEvent[] = [
      { type: 'content', choice: 0, text: 'I cannot help with that.' },
      { type: 'finish-details', choice: 0, details: { category: 'cyber', message: 'This could enable malware development.' } },
      { type: 'finish-details', choice: 1, details: { message: 'another choice' } },
      { type: 'finish', choice: 0, reason: 'content_filter', raw: 'refusal' },
      { type: 'done' },
    ];
    const chunks = events.flatMap((event) => encoder.encode(event));
    const sse = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
    const expected = { finishDetails: { category: 'cyber', message: 'This could enable malware development.' } };
    expect(readChunks(chunks).metadata).toEqual(expected);
    const ai6 = await readWithAi6(sse);
    expect(ai6.errors).toEqual([]);
    expect(ai6.message?.metadata).toEqual(expected);
    const ai7 = await readWithAi7({ details: sse });
    if (ai7 !== undefined) expect(ai7['details']!.message?.metadata).toEqual(expected);
  });
});

describe('toUiMessageStream: image previews are live and never part of the message (issue 30, F)', () => {
  it('sends each image-preview as a transient data part of its call, which ai accepts and keeps out of the message', async () => {
    const encoder = new UiMessageEncoder();
    const events: ChatEvent[] = [
      { type: 'image-preview', choice: 0, id: 'ig_1', index: 0, data: 'UklGRg==', format: 'webp' },
      { type: 'image-preview', choice: 0, id: 'ig_1', index: 1, data: 'UklGRh==' },
      { type: 'content', choice: 0, text: 'Here it is.' },
      { type: 'done' },
    ];
    const chunks = events.flatMap((event) => encoder.encode(event));
    // UIMessageChunk's data part {type: `data-${NAME}`, id?, data, transient?}: a transient one goes to
    // the client's onData, not into the message (ai 6 and 7 alike).
    expect(chunks.filter((chunk) => chunk.type.startsWith('data-'))).toEqual([
      { type: 'data-image-preview', id: 'ig_1', data: { index: 0, data: 'UklGRg==', format: 'webp' }, transient: true },
      { type: 'data-image-preview', id: 'ig_1', data: { index: 1, data: 'UklGRh==' }, transient: true },
    ]);
    const sse = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
    const ai6 = await readWithAi6(sse);
    expect(ai6.errors).toEqual([]);
    expect(ai6.message?.parts.map((part) => part.type)).toEqual(['step-start', 'text']);
  });

  it('the ai-sdk-ui dialect keeps no transient data part in the reply (it is not part of the message)', async () => {
    const { completion, error } = readReply(
      sseOf([
        { type: 'start', messageId: 'msg-1' },
        { type: 'start-step' },
        { type: 'data-image-preview', id: 'ig_1', data: { index: 0, data: 'UklGRg==' }, transient: true },
        { type: 'data-weather', id: 'w1', data: { city: 'Oslo' } },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Done.' },
        { type: 'text-end', id: 't1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
        '[DONE]',
      ]),
      'ai-sdk-ui',
    );
    expect(error).toBeUndefined();
    expect(completion!.choices[0]!.providerMetadata).toEqual({
      'ai-sdk': { items: [{ type: 'data-weather', id: 'w1', data: { city: 'Oslo' } }] },
    });
  });
});
