import { type Message, Ollama } from 'ollama';
import { ollamaAssistantTurn, ollamaToolResults } from '../../src/next-turn/ollamaTurn';
import { capturingServer, completionOf, marble, partialOf } from './support';

// The assistant's turn of an Ollama reply and the results of its calls: checked against the ollama
// client's `Message`, and sent by it to a local server.

const RECORDED = marble('dialects/ollama-native.ndjson').toString('utf8');

interface WireMessage {
  readonly content: string;
  readonly thinking?: string;
  readonly tool_calls?: { readonly id: string; readonly function: { readonly name: string; readonly arguments: object } }[];
}

/** The messages of a recorded stream's lines, read apart from the library. */
function linesOf(text: string): WireMessage[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { message: WireMessage }).message);
}

describe('ollamaAssistantTurn and ollamaToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(RECORDED, 'ollama', 'ndjson');
    const messages: Message[] = [
      { role: 'user', content: 'Weather in Paris and Tokyo?' },
      ollamaAssistantTurn(completion),
      ...ollamaToolResults([{ callId: completion.toolCalls[0]!.id, name: 'get_weather', output: 'sunny' }]),
    ];
    expect(messages).toHaveLength(3);
  });

  it('reach Ollama through its client with the thinking, the text and the calls as the recorded stream had them', async () => {
    const wire = linesOf(RECORDED);
    const server = await capturingServer(() => ({
      type: 'application/json',
      body: JSON.stringify({
        model: 'qwen3:8b',
        created_at: '2026-01-01T00:00:01Z',
        message: { role: 'assistant', content: 'Sunny.' },
        done: true,
      }),
    }));
    try {
      const client = new Ollama({ host: server.url });
      const completion = completionOf(RECORDED, 'ollama', 'ndjson');
      await client.chat({
        model: 'qwen3:8b',
        stream: false,
        messages: [
          { role: 'user', content: 'Weather in Paris and Tokyo?' },
          ollamaAssistantTurn(completion),
          ...ollamaToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))),
        ],
      });
      const sent = (server.bodies[0] as { messages: Record<string, unknown>[] }).messages;
      expect(sent[1]).toEqual({
        role: 'assistant',
        content: wire.map((message) => message.content).join(''),
        thinking: wire.map((message) => message.thinking ?? '').join(''),
        tool_calls: wire
          .flatMap((message) => message.tool_calls ?? [])
          .map((call) => ({ id: call.id, function: { name: call.function.name, arguments: call.function.arguments } })),
      });
      expect(sent.slice(2)).toEqual(
        wire
          .flatMap((message) => message.tool_calls ?? [])
          .map((call) => ({ role: 'tool', content: 'sunny', tool_name: call.function.name })),
      );
    } finally {
      await server.close();
    }
  });

  it('of a cut reply, sends what came: the thinking so far and no call', () => {
    const cut = RECORDED.split('\n').slice(0, 2).join('\n') + '\n';
    const wire = linesOf(cut);
    expect(ollamaAssistantTurn(partialOf(cut, 'ollama', 'ndjson'))).toEqual({
      role: 'assistant',
      content: '',
      thinking: wire.map((message) => message.thinking).join(''),
    });
  });

  it('gives one tool message per result, in the order given, by the tool name', () => {
    expect(
      ollamaToolResults([
        { callId: 'c2', name: 'b', output: { n: 2 } },
        { callId: 'c1', name: 'a', error: 'failed' },
      ]),
    ).toEqual([
      { role: 'tool', content: '{"n":2}', tool_name: 'b' },
      { role: 'tool', content: '{"error":"failed"}', tool_name: 'a' },
    ]);
  });
});
