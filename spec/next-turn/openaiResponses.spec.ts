import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { openaiResponsesToolResults, openaiResponsesTurn } from '../../src/next-turn/openaiResponsesTurn';
import { OpenAIClient } from './openaiSdkClient';
import { capturingServer, completionOf, marble, partialOf, ssePayloads } from './support';

// The assistant's turn of a Responses reply as input items, and the results of its calls: checked
// against the SDK's types, and sent by the SDK to a local server.

const ENCRYPTED = marble('corpus/openai-responses/openai-reasoning-encrypted-content.1.sse').toString('utf8');
const COMPACTION = marble('corpus/openai-responses/openai-compaction.1.sse').toString('utf8');
const PROGRAM = marble('corpus/openai-responses/openai.programmatic-tool-calling.1.sse').toString('utf8');

interface OutputItem {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * The finished output items of a recorded stream's first response (`response.output_item.done`), read
 * apart from the library: a recording of several steps holds a response per step, and a reply is the first.
 */
function doneItems(text: string): OutputItem[] {
  const payloads = ssePayloads(text);
  const end = payloads.findIndex((payload) => payload['type'] === 'response.completed');
  return payloads
    .slice(0, end)
    .filter((payload) => payload['type'] === 'response.output_item.done')
    .map((payload) => payload['item'] as OutputItem);
}

describe('openaiResponsesTurn and openaiResponsesToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(ENCRYPTED, 'openai-responses');
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Compute it.' },
      ...openaiResponsesTurn(completion),
      ...openaiResponsesTurn(completionOf(PROGRAM, 'openai-responses')),
      ...openaiResponsesToolResults([{ callId: completion.toolCalls[0]!.id, name: 'calculator', output: 19 }]),
      ...openaiResponsesToolResults([{ callId: 'call_custom', name: 'grammar', kind: 'custom', error: 'bad input' }]),
    ];
    expect(input.length).toBeGreaterThan(3);
  });

  it('reach OpenAI through the SDK with every encrypted item and call id as the recorded stream had them', async () => {
    const recorded = doneItems(ENCRYPTED);
    const encrypted = recorded.filter((item) => item.type === 'reasoning').map((item) => item['encrypted_content']);
    const callIds = recorded.filter((item) => item.type === 'function_call').map((item) => item['call_id']);
    expect(encrypted).toHaveLength(1);
    expect(callIds).toHaveLength(1);
    const server = await capturingServer(() => ({
      type: 'application/json',
      body: JSON.stringify({ id: 'resp_2', object: 'response', created_at: 1, status: 'completed', model: 'o4-mini', output: [] }),
    }));
    try {
      const client = new OpenAIClient({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      const completion = completionOf(ENCRYPTED, 'openai-responses');
      await client.responses.create({
        model: 'o4-mini',
        store: false,
        include: ['reasoning.encrypted_content'],
        input: [
          { role: 'user', content: 'Compute it.' },
          ...openaiResponsesTurn(completion),
          ...openaiResponsesToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 19 }))),
        ],
      });
      const sent = (server.bodies[0] as { input: OutputItem[] }).input;
      expect(sent.map((item) => item.type ?? item['role'])).toEqual(['user', 'reasoning', 'function_call', 'function_call_output']);
      // The reasoning item goes back whole: every field as the stream's finished item had it.
      expect(sent[1]).toEqual(recorded.find((item) => item.type === 'reasoning'));
      expect(sent.filter((item) => item.type === 'reasoning').map((item) => item['encrypted_content'])).toEqual(encrypted);
      expect(sent.filter((item) => item.type === 'function_call').map((item) => item['call_id'])).toEqual(callIds);
      expect(sent.filter((item) => item.type === 'function_call_output').map((item) => item['call_id'])).toEqual(callIds);
    } finally {
      await server.close();
    }
  });

  it('keeps a compaction item whole, in its place among the items', () => {
    const recorded = doneItems(COMPACTION);
    const turn = openaiResponsesTurn(completionOf(COMPACTION, 'openai-responses'));
    expect(recorded.map((item) => item.type)).toEqual(turn.map((item) => item.type));
    expect(turn.find((item) => item.type === 'compaction')).toEqual(recorded.find((item) => item.type === 'compaction'));
  });

  it('keeps the program item with its fingerprint, and the call the program made with its caller', () => {
    const recorded = doneItems(PROGRAM);
    const turn = openaiResponsesTurn(completionOf(PROGRAM, 'openai-responses'));
    expect(turn.find((item) => item.type === 'program')).toEqual(recorded.find((item) => item.type === 'program'));
    const call = recorded.find((item) => item.type === 'function_call')!;
    expect(turn.find((item) => item.type === 'function_call')).toEqual({
      type: 'function_call',
      call_id: call['call_id'],
      name: call['name'],
      arguments: call['arguments'],
      caller: call['caller'],
    });
  });

  it('of a cut reply, sends the finished reasoning item and no unclosed call', () => {
    const frames = ENCRYPTED.split('\n\n');
    const callDone = frames.findIndex((frame) => frame.includes('"response.function_call_arguments.done"'));
    const partial = partialOf(frames.slice(0, callDone).join('\n\n') + '\n\n', 'openai-responses');
    expect(openaiResponsesTurn(partial)).toEqual([doneItems(ENCRYPTED).find((item) => item.type === 'reasoning')]);
  });

  it('answers each call by its call_id, in the order given, custom calls with their own item', () => {
    expect(
      openaiResponsesToolResults([
        { callId: 'call_2', name: 'add', output: 5 },
        { callId: 'call_1', name: 'patch', kind: 'custom', output: 'applied' },
        { callId: 'call_3', name: 'add', error: 'overflow' },
      ]),
    ).toEqual([
      { type: 'function_call_output', call_id: 'call_2', output: '5' },
      { type: 'custom_tool_call_output', call_id: 'call_1', output: 'applied' },
      { type: 'function_call_output', call_id: 'call_3', output: '{"error":"overflow"}' },
    ]);
  });
});
