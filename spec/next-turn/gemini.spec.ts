import { type Content, GoogleGenAI } from '@google/genai';
import { type GeminiFunctionCallPart, type GeminiTextPart, geminiModelTurn, geminiToolResults } from '../../src/next-turn/geminiTurn';
import { capturingServer, completionOf, marble, partialOf, ssePayloads } from './support';

// The model's turn of a Gemini reply and the results of its calls, in the `generateContent` request
// shape: checked against @google/genai's types, and sent by its client to a local server.

const RECORDED = marble('dialects/gemini-native.sse').toString('utf8');
const SERVER_MCP = marble('corpus/gemini/js-genai.Chats_Tests_sendMessage_multiple_messages_with_server_side_MCP_tools_stream.0.sse');

interface WirePart {
  readonly text?: string;
  readonly thought?: boolean;
  readonly thoughtSignature?: string;
  readonly functionCall?: { readonly name: string; readonly args: object };
}

/** The parts of a recorded stream, in order, read from its payloads apart from the library. */
function partsOf(text: string): WirePart[] {
  return ssePayloads(text).flatMap(
    (payload) => (payload['candidates'] as { content?: { parts?: WirePart[] } }[] | undefined)?.[0]?.content?.parts ?? [],
  );
}

/** The parts the SDK types without knowing the reply: a server tool's parts hold JSON its enums do not promise (docs/next-turn.md). */
type ClientPart = GeminiTextPart | GeminiFunctionCallPart;

describe('geminiModelTurn and geminiToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(RECORDED, 'gemini');
    const turn = geminiModelTurn(completion);
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] },
      { role: turn.role, parts: turn.parts as ClientPart[] },
      geminiToolResults([{ callId: completion.toolCalls[0]!.id, name: 'get_weather', output: { temperature: 21 } }]),
    ];
    expect(contents).toHaveLength(3);
  });

  it('reach Gemini through its SDK with the thought signature, the parts in order and the call ids', async () => {
    const wire = partsOf(RECORDED);
    const signatures = wire.flatMap((part) => (part.thoughtSignature === undefined ? [] : [part.thoughtSignature]));
    expect(signatures).toHaveLength(1);
    const server = await capturingServer(() => ({
      type: 'application/json',
      body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP', index: 0 }] }),
    }));
    try {
      // Node's own fetch, given: the SDK's default reaches for Node's global dispatcher, which Jest's
      // sandbox hides from it (outside Jest it runs as it is, on Node 20 too).
      const client = new GoogleGenAI({
        apiKey: 'test-key',
        httpOptions: { baseUrl: server.url, fetch: (input, init) => fetch(input, init) },
      });
      const completion = completionOf(RECORDED, 'gemini');
      const turn = geminiModelTurn(completion);
      await client.models.generateContent({
        model: 'gemini-3-flash-preview',
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] },
          { role: turn.role, parts: turn.parts as ClientPart[] },
          geminiToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))),
        ],
      });
      const sent = (server.bodies[0] as { contents: { role: string; parts: Record<string, unknown>[] }[] }).contents;
      // Every part of the stream that carries something, in its order: the thought, the text, the two calls.
      expect(sent[1]!.parts).toEqual(
        wire
          .filter((part) => part.text !== '')
          .map((part) =>
            part.functionCall === undefined ? part : { ...part, functionCall: { ...part.functionCall, id: expect.any(String) } },
          ),
      );
      const ids = sent[1]!.parts.map((part) => (part['functionCall'] as { id?: string } | undefined)?.id).filter((id) => id !== undefined);
      expect(ids).toEqual(completion.toolCalls.map((call) => call.id));
      expect(sent[2]!.parts.map((part) => (part['functionResponse'] as { id: string }).id)).toEqual(ids);
    } finally {
      await server.close();
    }
  });

  it("sends a tool Google ran with its response, and never as the program's call", () => {
    const turn = geminiModelTurn(completionOf(SERVER_MCP, 'gemini'));
    const wire = partsOf(SERVER_MCP.toString('utf8')) as Record<string, { name?: string } | undefined>[];
    const serverCall = wire.find((part) => part['functionCall'] !== undefined)!['functionCall']!;
    const kinds = turn.parts.map((part) => Object.keys(part).find((key) => key !== 'thoughtSignature'));
    expect(kinds.filter((kind) => kind === 'functionCall' || kind === 'functionResponse')).toEqual(['functionCall', 'functionResponse']);
    expect(turn.parts.find((part) => 'functionCall' in part)).toMatchObject({ functionCall: { name: serverCall.name } });
    expect(completionOf(SERVER_MCP, 'gemini').toolCalls).toEqual([]);
  });

  it('sends the tool Google ran where it came: before the text that answered from it', () => {
    const wire = partsOf(SERVER_MCP.toString('utf8'));
    // The recording's own order, text parts in a row as one.
    const recorded = wire
      .map((part) => Object.keys(part).find((key) => key !== 'thoughtSignature'))
      .filter((kind, k, kinds) => !(kind === 'text' && kinds[k - 1] === 'text'));
    const turn = geminiModelTurn(completionOf(SERVER_MCP, 'gemini'));
    expect(turn.parts.map((part) => Object.keys(part).find((key) => key !== 'thoughtSignature'))).toEqual(recorded);
    expect(recorded).toEqual(['functionCall', 'functionResponse', 'text']);
  });

  it('sends text, the code Google ran with its result, more text, then the call: each where it came', () => {
    const chunk = (parts: object[], finishReason?: string) =>
      `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason === undefined ? {} : { finishReason }) }],
        responseId: 'r1',
        modelVersion: 'gemini-3-pro',
      })}\n\n`;
    const code = { language: 'PYTHON', code: 'print(6 * 7)' };
    const result = { outcome: 'OUTCOME_OK', output: '42\n' };
    const stream =
      chunk([{ text: 'Let me compute.' }]) +
      chunk([{ executableCode: code }, { codeExecutionResult: result }]) +
      chunk([{ text: 'It is 42.' }]) +
      chunk([{ functionCall: { id: 'c1', name: 'save', args: { value: 42 } }, thoughtSignature: 'sig-c1' }], 'STOP');
    expect(geminiModelTurn(completionOf(stream, 'gemini')).parts).toEqual([
      { text: 'Let me compute.' },
      { executableCode: code },
      { codeExecutionResult: result },
      { text: 'It is 42.' },
      { functionCall: { id: 'c1', name: 'save', args: { value: 42 } }, thoughtSignature: 'sig-c1' },
    ]);
  });

  it('keeps the signature that came after the text with that text', () => {
    const recording = marble('corpus/gemini/google-reasoning-gemini3.sse').toString('utf8');
    const wire = partsOf(recording);
    expect(geminiModelTurn(completionOf(recording, 'gemini')).parts).toEqual([
      {
        text: wire.map((part) => part.text ?? '').join(''),
        thoughtSignature: wire.find((part) => part.thoughtSignature)!.thoughtSignature,
      },
    ]);
  });

  it('of a cut reply, sends the parts that came whole: the thought and the text, no call yet', () => {
    const cut = RECORDED.split('\n\n').slice(0, 2).join('\n\n') + '\n\n';
    expect(geminiModelTurn(partialOf(cut, 'gemini')).parts).toEqual(partsOf(cut));
  });

  it('gives the results as functionResponse parts of one user turn, in the order given, by id and name', () => {
    expect(
      geminiToolResults([
        { callId: 'c2', name: 'lookup', output: 'two' },
        { callId: 'c1', name: 'lookup', error: 'no such key' },
      ]),
    ).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'c2', name: 'lookup', response: { output: 'two' } } },
        { functionResponse: { id: 'c1', name: 'lookup', response: { error: 'no such key' } } },
      ],
    });
  });
});
