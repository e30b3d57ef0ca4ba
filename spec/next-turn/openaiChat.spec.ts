import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { mistralAssistantTurn } from '../../src/next-turn/mistralTurn';
import { openaiChatAssistantTurn, openaiChatToolResults } from '../../src/next-turn/openaiChatTurn';
import { sseOf } from '../support/pipeline';
import { OpenAIClient } from './openaiSdkClient';
import { capturingServer, completionOf, marble, partialOf, ssePayloads } from './support';

// The assistant's turn of a Chat Completions reply and the results of its calls, with what the
// compatible servers want back (Gemini's `extra_content`, OpenRouter's `reasoning_details`, Mistral's
// signed thinking): checked against the SDK's types, and sent by the SDK to a local server.

interface Delta {
  readonly tool_calls?: readonly { readonly id?: string; readonly extra_content?: { google: { thought_signature: string } } }[];
  readonly reasoning_details?: readonly { readonly signature?: string }[];
}

/** The deltas of a recorded Chat stream, read from its payloads apart from the library. */
function deltasOf(text: string): Delta[] {
  return ssePayloads(text).flatMap((payload) =>
    ((payload['choices'] as { delta?: Delta }[] | undefined) ?? []).map((choice) => choice.delta ?? {}),
  );
}

const GEMINI = marble('dialects/gemini-openai.sse').toString('utf8');
const OPENROUTER = marble('dialects/openrouter.sse').toString('utf8');

const CHAT_REPLY = JSON.stringify({
  id: 'chatcmpl-2',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny.', refusal: null }, finish_reason: 'stop', logprobs: null }],
});

describe('openaiChatAssistantTurn and openaiChatToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(GEMINI, 'openai-chat');
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris and Tokyo?' },
      openaiChatAssistantTurn(completion),
      ...openaiChatToolResults([{ callId: completion.toolCalls[0]!.id, name: 'get_weather', output: 'sunny' }]),
    ];
    expect(messages).toHaveLength(3);
  });

  it.each([
    ['Gemini (extra_content on the call)', GEMINI],
    ['OpenRouter (reasoning_details)', OPENROUTER],
  ])('reach %s through the SDK with every signature and call id as the recorded stream had them', async (_server, recording) => {
    const deltas = deltasOf(recording);
    const ids = deltas.flatMap((delta) => (delta.tool_calls ?? []).flatMap((call) => (call.id === undefined ? [] : [call.id])));
    const signatures = deltas.flatMap((delta) => [
      ...(delta.tool_calls ?? []).flatMap((call) =>
        call.extra_content === undefined ? [] : [call.extra_content.google.thought_signature],
      ),
      ...(delta.reasoning_details ?? []).flatMap((detail) => (detail.signature === undefined ? [] : [detail.signature])),
    ]);
    expect(ids).toHaveLength(2);
    expect(signatures).toHaveLength(1);
    const server = await capturingServer(() => ({ type: 'application/json', body: CHAT_REPLY }));
    try {
      const client = new OpenAIClient({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      const completion = completionOf(recording, 'openai-chat');
      await client.chat.completions.create({
        model: 'm',
        messages: [
          { role: 'user', content: 'Weather in Paris and Tokyo?' },
          openaiChatAssistantTurn(completion),
          ...openaiChatToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))),
        ],
      });
      const sent = (server.bodies[0] as { messages: Record<string, unknown>[] }).messages;
      const turn = sent[1] as {
        tool_calls: { id: string; extra_content?: { google: { thought_signature: string } } }[];
        reasoning_details?: { signature?: string }[];
      };
      expect(turn.tool_calls.map((call) => call.id)).toEqual(ids);
      expect([
        ...turn.tool_calls.flatMap((call) => (call.extra_content === undefined ? [] : [call.extra_content.google.thought_signature])),
        ...(turn.reasoning_details ?? []).flatMap((detail) => (detail.signature === undefined ? [] : [detail.signature])),
      ]).toEqual(signatures);
      expect(sent.slice(2).map((message) => [message['role'], message['tool_call_id']])).toEqual(ids.map((id) => ['tool', id]));
    } finally {
      await server.close();
    }
  });

  it("keeps Gemini's signature on the call it came with, and no other", () => {
    const turn = openaiChatAssistantTurn(completionOf(GEMINI, 'openai-chat'));
    const signature = deltasOf(GEMINI).flatMap((delta) =>
      (delta.tool_calls ?? []).flatMap((call) => (call.extra_content ? [call.extra_content] : [])),
    )[0];
    expect(turn.tool_calls!.map((call) => call.extra_content)).toEqual([signature, undefined]);
  });

  it("joins OpenRouter's streamed fragments of one entry into the whole entry", () => {
    expect(openaiChatAssistantTurn(completionOf(OPENROUTER, 'openai-chat')).reasoning_details).toEqual([
      {
        type: 'reasoning.text',
        text: "The user wants the current weather in Paris and Tokyo. I'll call get_weather once per city.",
        signature: 'EqQBCkYIBxgCKkDdN3v0mZ1x6Qp2Y8kLrT4sWb==',
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ]);
  });

  it("sends the reasoning back in the field a server names (DeepSeek's reasoning_content), and only then", () => {
    const recording = marble('dialects/deepseek.sse').toString('utf8');
    const reasoning = deltasOf(recording)
      .map((delta) => (delta as { reasoning_content?: string | null }).reasoning_content ?? '')
      .join('');
    const completion = completionOf(recording, 'openai-chat');
    expect(openaiChatAssistantTurn(completion, { reasoningField: 'reasoning_content' }).reasoning_content).toBe(reasoning);
    expect(openaiChatAssistantTurn(completion)).not.toHaveProperty('reasoning_content');
  });

  it('of a cut reply, sends the text and no call: a Chat call closes only at the finish', () => {
    const frames = GEMINI.split('\n\n');
    // The first call whole, the second open: the stream cut in the middle of the second call's arguments.
    const secondCall = ssePayloads(GEMINI)[1]!;
    const choices = secondCall['choices'] as { delta: { tool_calls: { index?: number; function: { arguments: string } }[] } }[];
    const calls = choices[0]!.delta.tool_calls;
    const cutCall = { ...calls[1]!, function: { ...calls[1]!.function, arguments: '{"city":"To' } };
    const cut =
      frames[0] +
      '\n\n' +
      sseOf([{ ...secondCall, choices: [{ ...choices[0], delta: { ...choices[0]!.delta, tool_calls: [calls[0], cutCall] } }] }]);
    const turn = openaiChatAssistantTurn(partialOf(cut, 'openai-chat'));
    expect(turn.content).toBe('Let me check both cities.');
    expect(partialOf(cut, 'openai-chat').toolCalls.map((call) => call.complete)).toEqual([false, false]);
    expect(turn.tool_calls).toBeUndefined();
  });

  it('gives one tool message per result, in the order given, an error as an error object', () => {
    expect(
      openaiChatToolResults([
        { callId: 'call_2', name: 'lookup', output: { n: 2 } },
        { callId: 'call_1', name: 'lookup', error: 'no such key' },
      ]),
    ).toEqual([
      { role: 'tool', tool_call_id: 'call_2', content: '{"n":2}' },
      { role: 'tool', tool_call_id: 'call_1', content: '{"error":"no such key"}' },
    ]);
  });
});

describe('mistralAssistantTurn', () => {
  it('gives each thinking chunk with its signature, in order with the text, then the calls', () => {
    const chunk = (delta: object, finish: string | null = null) => ({
      id: 'm1',
      object: 'chat.completion.chunk',
      model: 'magistral-medium',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const stream = sseOf([
      chunk({
        role: 'assistant',
        content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Two cities.' }], signature: 'mistral-sig-1' }],
      }),
      chunk({ content: [{ type: 'text', text: 'Checking.' }] }),
      chunk({ tool_calls: [{ id: 'call_a', index: 0, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    ]);
    expect(mistralAssistantTurn(completionOf(stream, 'openai-chat'))).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: [{ type: 'text', text: 'Two cities.' }], signature: 'mistral-sig-1' },
        { type: 'text', text: 'Checking.' },
      ],
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
  });
});
