import { BedrockRuntimeClient, ConverseCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import { bedrockConverseTurn, bedrockToolResults } from '../../src/next-turn/bedrockConverseTurn';
import { codec } from '../support/awsEventStream';
import { capturingServer, completionOf, marble, partialOf } from './support';

// The assistant's turn of a Bedrock Converse reply and the results of its calls: checked against
// the AWS SDK's `Message`, and sent by its client (`ConverseCommand`) to a local server.

const REASONING = new Uint8Array(marble('corpus/bedrock-converse/amazon-bedrock-reasoning.eventstream'));
const TOOL_CALL = new Uint8Array(marble('corpus/bedrock-converse/amazon-bedrock-tool-call.1.eventstream'));

/** The events of a recorded event stream, decoded by AWS's own codec, apart from the library. */
function eventsOf(bytes: Uint8Array): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(at, at + length));
    events.push(JSON.parse(new TextDecoder().decode(message.body)) as Record<string, unknown>);
    at += length;
  }
  return events;
}

function signaturesOf(bytes: Uint8Array): string[] {
  return eventsOf(bytes).flatMap((event) => {
    const signature = (event['delta'] as { reasoningContent?: { signature?: string } } | undefined)?.reasoningContent?.signature;
    return signature === undefined ? [] : [signature];
  });
}

function toolUseIdsOf(bytes: Uint8Array): string[] {
  return eventsOf(bytes).flatMap((event) => {
    const id = (event['start'] as { toolUse?: { toolUseId?: string } } | undefined)?.toolUse?.toolUseId;
    return id === undefined ? [] : [id];
  });
}

describe('bedrockConverseTurn and bedrockToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(TOOL_CALL, 'bedrock-converse', 'aws');
    const messages: Message[] = [
      { role: 'user', content: [{ text: 'Weather?' }] },
      bedrockConverseTurn(completionOf(REASONING, 'bedrock-converse', 'aws')),
      bedrockConverseTurn(completion),
      bedrockToolResults([{ callId: completion.toolCalls[0]!.id, name: completion.toolCalls[0]!.name, output: { temperature: 21 } }]),
    ];
    expect(messages).toHaveLength(4);
  });

  it.each([
    ['the reasoning signature', REASONING],
    ['the toolUseId', TOOL_CALL],
  ])('reach Bedrock through its SDK with %s as the recorded stream had it', async (_what, recording) => {
    const signatures = signaturesOf(recording);
    const toolUseIds = toolUseIdsOf(recording);
    expect(signatures.length + toolUseIds.length).toBeGreaterThan(0);
    const server = await capturingServer(
      () => ({
        type: 'application/json',
        body: JSON.stringify({
          output: { message: { role: 'assistant', content: [{ text: 'Sunny.' }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          metrics: { latencyMs: 1 },
        }),
      }),
      'http2',
    );
    try {
      const client = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: server.url,
        credentials: { accessKeyId: 'test-key', secretAccessKey: 'test-secret' },
        maxAttempts: 1,
      });
      const completion = completionOf(recording, 'bedrock-converse', 'aws');
      const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather?' }] }, bedrockConverseTurn(completion)];
      if (completion.toolCalls.length > 0) {
        messages.push(bedrockToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))));
      }
      await client.send(new ConverseCommand({ modelId: 'anthropic.claude-sonnet-4', messages }));
      client.destroy();
      type SentBlock = { reasoningContent?: { reasoningText?: { signature?: string } }; toolUse?: { toolUseId: string } };
      type SentResult = { toolResult?: { toolUseId: string } };
      const sent = (server.bodies[0] as { messages: { content: (SentBlock & SentResult)[] }[] }).messages;
      const turn = sent[1]!.content;
      expect(turn.flatMap((block) => block.reasoningContent?.reasoningText?.signature ?? [])).toEqual(signatures);
      expect(turn.flatMap((block) => block.toolUse?.toolUseId ?? [])).toEqual(toolUseIds);
      expect((sent[2]?.content ?? []).map((block) => block.toolResult?.toolUseId)).toEqual(toolUseIds);
    } finally {
      await server.close();
    }
  });

  it('keeps the reasoning before the text it led to, with its signature', () => {
    const completion = completionOf(REASONING, 'bedrock-converse', 'aws');
    expect(bedrockConverseTurn(completion).content).toEqual([
      { reasoningContent: { reasoningText: { text: completion.reasoning, signature: signaturesOf(REASONING)[0] } } },
      { text: completion.content },
    ]);
  });

  it('of a cut reply, leaves out the reasoning whose signature had not come', () => {
    const events = eventsOf(REASONING);
    const beforeSignature = events.findIndex((event) => JSON.stringify(event).includes('"signature"'));
    let end = 0;
    for (let index = 0; index < beforeSignature; index++) end += new DataView(REASONING.buffer, REASONING.byteOffset + end, 4).getUint32(0);
    const partial = partialOf(REASONING.subarray(0, end), 'bedrock-converse', 'aws');
    expect(partial.reasoning).not.toBeNull();
    expect(bedrockConverseTurn(partial).content).toEqual([]);
  });

  it('gives the results as toolResult blocks of one user message, in the order given, errors with status error', () => {
    expect(
      bedrockToolResults([
        { callId: 't2', name: 'lookup', output: { n: 2 } },
        { callId: 't3', name: 'lookup', output: 'three' },
        { callId: 't1', name: 'lookup', error: 'no such key' },
      ]),
    ).toEqual({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 't2', content: [{ json: { n: 2 } }] } },
        { toolResult: { toolUseId: 't3', content: [{ text: 'three' }] } },
        { toolResult: { toolUseId: 't1', content: [{ text: '{"error":"no such key"}' }], status: 'error' } },
      ],
    });
  });
});
