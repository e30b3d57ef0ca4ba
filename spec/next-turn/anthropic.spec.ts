import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  type AnthropicAssistantBlock,
  type AnthropicOpaqueBlock,
  type AnthropicServerToolResultBlock,
  type AnthropicServerToolUseBlock,
  anthropicAssistantTurn,
  anthropicToolResults,
} from '../../src/next-turn/anthropicTurn';
import { sseOf } from '../support/pipeline';
import { capturingServer, completionOf, marble, partialOf, ssePayloads } from './support';

// The assistant's turn of an Anthropic reply and the results of its calls, in the Messages API's own
// request shape: checked against the SDK's types, and sent by the SDK to a local server.

const RECORDED = marble('dialects/anthropic-messages.sse').toString('utf8');

/** What the recorded stream itself carried, read from its payloads: the thinking's signature and the calls' ids. */
function recordedValues(text: string): { signatures: string[]; toolUseIds: string[] } {
  const payloads = ssePayloads(text);
  const signatures = payloads
    .map((payload) => (payload['delta'] as { type?: string; signature?: string } | undefined) ?? {})
    .filter((delta) => delta.type === 'signature_delta')
    .map((delta) => delta.signature!);
  const toolUseIds = payloads
    .map((payload) => (payload['content_block'] as { type?: string; id?: string } | undefined) ?? {})
    .filter((block) => block.type === 'tool_use')
    .map((block) => block.id!);
  return { signatures, toolUseIds };
}

/** An Anthropic stream of the given content blocks (each streamed whole), ending with `stop`. */
function streamOf(blocks: readonly { start: object; deltas: readonly object[] }[], stop = 'tool_use'): string {
  const payloads: object[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [],
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    payloads.push({ type: 'content_block_start', index, content_block: block.start });
    for (const delta of block.deltas) payloads.push({ type: 'content_block_delta', index, delta });
    payloads.push({ type: 'content_block_stop', index });
  });
  payloads.push(
    { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  );
  return sseOf(payloads, true);
}

const thinking = (text: string, signature: string) => ({
  start: { type: 'thinking', thinking: '' },
  deltas: [
    { type: 'thinking_delta', thinking: text },
    { type: 'signature_delta', signature },
  ],
});
const text = (value: string, signature?: string) => ({
  start: { type: 'text', text: '' },
  deltas: [{ type: 'text_delta', text: value }, ...(signature === undefined ? [] : [{ type: 'signature_delta', signature }])],
});
const toolUse = (id: string, input: string) => ({
  start: { type: 'tool_use', id, name: 'lookup', input: {} },
  deltas: [{ type: 'input_json_delta', partial_json: input }],
});

/**
 * The blocks the SDK types without knowing the reply: the SDK types each server tool's result content
 * exactly, which the JSON a reply carried cannot promise, so a turn that has them is cast (docs/next-turn.md).
 */
type ClientBlock = Exclude<AnthropicAssistantBlock, AnthropicServerToolUseBlock | AnthropicServerToolResultBlock | AnthropicOpaqueBlock>;

describe('anthropicAssistantTurn and anthropicToolResults', () => {
  it('type-check as the SDK request types', () => {
    const completion = completionOf(RECORDED, 'anthropic');
    const turn = anthropicAssistantTurn(completion);
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Weather in Paris and Tokyo?' },
      { role: turn.role, content: turn.content as ClientBlock[] },
      anthropicToolResults([
        { callId: completion.toolCalls[0]!.id, name: 'get_weather', output: { temperature: 21 } },
        { callId: completion.toolCalls[1]!.id, name: 'get_weather', error: 'Tokyo is unavailable' },
      ]),
    ];
    expect(messages).toHaveLength(3);
  });

  it('reach Anthropic through its SDK with every signature and call id as the recorded stream had them', async () => {
    const recorded = recordedValues(RECORDED);
    expect(recorded.signatures).toHaveLength(1);
    expect(recorded.toolUseIds).toHaveLength(2);
    const server = await capturingServer(() => ({
      type: 'application/json',
      body: JSON.stringify({
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Sunny.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    }));
    try {
      const client = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      const completion = completionOf(RECORDED, 'anthropic');
      await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Weather in Paris and Tokyo?' },
          { role: 'assistant', content: anthropicAssistantTurn(completion).content as ClientBlock[] },
          anthropicToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'sunny' }))),
        ],
      });
      const sent = server.bodies[0] as { messages: { role: string; content: { type: string; [key: string]: unknown }[] }[] };
      const turn = sent.messages[1]!;
      expect(turn.role).toBe('assistant');
      expect(turn.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
      expect(turn.content.filter((block) => block.type === 'thinking').map((block) => block['signature'])).toEqual(recorded.signatures);
      expect(turn.content.filter((block) => block.type === 'tool_use').map((block) => block['id'])).toEqual(recorded.toolUseIds);
      const results = sent.messages[2]!;
      expect(results.content.map((block) => [block.type, block['tool_use_id']])).toEqual(
        recorded.toolUseIds.map((id) => ['tool_result', id]),
      );
    } finally {
      await server.close();
    }
  });

  it.each([
    [
      'thinking, then text, then calls',
      [thinking('Plan A.', 'sig-A'), text('Looking.'), toolUse('toolu_1', '{"q":1}'), toolUse('toolu_2', '{"q":2}')],
      [
        { type: 'thinking', thinking: 'Plan A.', signature: 'sig-A' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 1 } },
        { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { q: 2 } },
      ],
    ],
    [
      'two thinking blocks, each with its own signature, around redacted thinking',
      [
        thinking('First.', 'sig-1'),
        { start: { type: 'redacted_thinking', data: 'RED1' }, deltas: [] },
        thinking('Second.', 'sig-2'),
        text('Done.'),
      ],
      [
        { type: 'thinking', thinking: 'First.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'RED1' },
        { type: 'thinking', thinking: 'Second.', signature: 'sig-2' },
        { type: 'text', text: 'Done.' },
      ],
    ],
    [
      "text blocks with a signature of their own, which is no thinking block's",
      [text('One. ', 'text-sig'), text('Two.')],
      [
        { type: 'text', text: 'One. ' },
        { type: 'text', text: 'Two.' },
      ],
    ],
  ])('keeps the order of the blocks: %s', (_case, blocks, expected) => {
    expect(anthropicAssistantTurn(completionOf(streamOf(blocks), 'anthropic')).content).toEqual(expected);
  });

  it('sends a tool Anthropic ran with its result block, and never as a call of the program', () => {
    const completion = completionOf(marble('corpus/anthropic/anthropic-web-search-tool.1.sse'), 'anthropic');
    const payloads = ssePayloads(marble('corpus/anthropic/anthropic-web-search-tool.1.sse').toString('utf8'));
    const blocks = payloads.map((payload) => payload['content_block'] as { type: string; id?: string; tool_use_id?: string } | undefined);
    const serverUse = blocks.find((block) => block?.type === 'server_tool_use')!;
    const result = blocks.find((block) => block?.type === 'web_search_tool_result')!;
    const content = anthropicAssistantTurn(completion).content;
    expect(content.filter((block) => block.type === 'tool_use')).toEqual([]);
    const sentUse = content.findIndex((block) => block.type === 'server_tool_use');
    expect(content[sentUse]).toMatchObject({ id: serverUse.id });
    expect(content[sentUse + 1]).toEqual(result);
  });

  // Every recorded reply of the repository in which Anthropic ran a tool: read apart from the library.
  const SERVER_TOOL_RECORDINGS = readdirSync(join(__dirname, '..', '..', 'marbles', 'corpus', 'anthropic')).filter(
    (name) => name.endsWith('.sse') && /"type":"(server|mcp)_tool_use"/.test(marble(`corpus/anthropic/${name}`).toString('utf8')),
  );

  /**
   * The blocks of a recording's first message in the order they came, as the next turn must send them
   * back: text (blocks in a row as one, empty ones left out), each tool Anthropic ran by its id (its
   * result goes right after it), each call of the program.
   */
  function recordedOrder(text: string): string[] {
    const payloads = ssePayloads(text);
    const end = payloads.findIndex((payload) => payload['type'] === 'message_stop');
    const blocks = new Map<number, { type: string; id?: string; text: string }>();
    for (const payload of payloads.slice(0, end === -1 ? undefined : end)) {
      const index = payload['index'] as number;
      const block = payload['content_block'] as { type: string; id?: string; text?: string } | undefined;
      const delta = payload['delta'] as { type?: string; text?: string } | undefined;
      if (payload['type'] === 'content_block_start' && block !== undefined) blocks.set(index, { ...block, text: block.text ?? '' });
      if (payload['type'] === 'content_block_delta' && delta?.type === 'text_delta') blocks.get(index)!.text += delta.text ?? '';
    }
    const order: string[] = [];
    for (const block of blocks.values()) {
      const name =
        block.type === 'text'
          ? block.text === ''
            ? undefined
            : 'text'
          : block.type === 'server_tool_use' || block.type === 'mcp_tool_use'
            ? `ran ${block.id!}`
            : block.type === 'tool_use'
              ? 'call'
              : undefined;
      if (name !== undefined && !(name === 'text' && order[order.length - 1] === 'text')) order.push(name);
    }
    return order;
  }

  it.each(SERVER_TOOL_RECORDINGS)('sends the text and the tools Anthropic ran in the order they came (%s)', (name) => {
    const recording = marble(`corpus/anthropic/${name}`);
    const content = anthropicAssistantTurn(completionOf(recording, 'anthropic')).content;
    const sent: string[] = [];
    content.forEach((block, k) => {
      if (block.type === 'text') sent.push('text');
      else if (block.type === 'tool_use') sent.push('call');
      else if (block.type === 'server_tool_use' || block.type === 'mcp_tool_use') {
        sent.push(`ran ${(block as { id: string }).id}`);
        // Its result, when the reply carried one, right after it.
        const next = content[k + 1] as { type: string; tool_use_id?: string } | undefined;
        if (next?.tool_use_id !== undefined) expect(next.tool_use_id).toBe((block as { id: string }).id);
      }
    });
    expect(sent).toEqual(recordedOrder(recording.toString('utf8')));
  });

  it('sends text, a search Anthropic ran, more text, then the call: each where it came', () => {
    const search = {
      start: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      deltas: [{ type: 'input_json_delta', partial_json: '{"query":"rxjs"}' }],
    };
    const found = { start: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }, deltas: [] };
    const completion = completionOf(
      streamOf([thinking('Search first.', 'sig-1'), text('Let me look.'), search, found, text('Found it.'), toolUse('toolu_1', '{"q":1}')]),
      'anthropic',
    );
    expect(anthropicAssistantTurn(completion).content).toEqual([
      { type: 'thinking', thinking: 'Search first.', signature: 'sig-1' },
      { type: 'text', text: 'Let me look.' },
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      { type: 'text', text: 'Found it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 1 } },
    ]);
  });

  it('sends a compaction block first, whole, with the content its deltas streamed', () => {
    const recording = marble('corpus/anthropic/anthropic-compaction.1.sse');
    const payloads = ssePayloads(recording.toString('utf8'));
    const streamed = payloads
      .map((payload) => payload['delta'] as { type?: string; content?: string } | undefined)
      .filter((delta) => delta?.type === 'compaction_delta')
      .map((delta) => delta!.content)
      .join('');
    const content = anthropicAssistantTurn(completionOf(recording, 'anthropic')).content;
    expect(content.map((block) => block.type)).toEqual(['compaction', 'text']);
    expect(content[0]).toMatchObject({ type: 'compaction', content: streamed });
  });

  it("sends a server tool that waits for the program's calls without a result, and each call with its caller", () => {
    const recording = marble('corpus/anthropic/anthropic-programmatic-tool-calling.1.sse');
    const payloads = ssePayloads(recording.toString('utf8'));
    // The first response of the recording: the code-execution tool, then the call its code made.
    const firstStop = payloads.findIndex((payload) => payload['type'] === 'message_stop');
    const blocks = payloads
      .slice(0, firstStop)
      .flatMap((payload) => (payload['content_block'] ? [payload['content_block'] as Record<string, unknown>] : []));
    const serverUse = blocks.find((block) => block['type'] === 'server_tool_use')!;
    const call = blocks.find((block) => block['type'] === 'tool_use')!;
    const content = anthropicAssistantTurn(completionOf(recording, 'anthropic')).content;
    expect(content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'tool_use']);
    expect(content[1]).toMatchObject({ id: serverUse['id'], name: serverUse['name'] });
    expect(content[2]).toMatchObject({ id: call['id'], caller: call['caller'] });
  });

  it('sends an MCP tool Anthropic ran with its server name, and its result block as it came', () => {
    const recording = marble('corpus/anthropic/anthropic-mcp.1.sse');
    const blocks = ssePayloads(recording.toString('utf8')).map(
      (payload) => payload['content_block'] as Record<string, unknown> | undefined,
    );
    const use = blocks.find((block) => block?.['type'] === 'mcp_tool_use')!;
    const result = blocks.find((block) => block?.['type'] === 'mcp_tool_result')!;
    const content = anthropicAssistantTurn(completionOf(recording, 'anthropic')).content;
    const sentUse = content.findIndex((block) => block.type === 'mcp_tool_use');
    expect(content[sentUse]).toMatchObject({ id: use['id'], name: use['name'], server_name: use['server_name'] });
    expect(content[sentUse + 1]).toEqual(result);
  });

  it.each([
    ['in the thinking, before its signature: no unsigned thinking, no call', 4, []],
    ['after the first call closed: the thinking, the text and that call, not the open one', 20, ['thinking', 'text', 'tool_use']],
  ])('of a cut reply, sends what Anthropic accepts (cut %s)', (_case, frames, types) => {
    const cut = RECORDED.split('\n\n').slice(0, frames).join('\n\n') + '\n\n';
    const content = anthropicAssistantTurn(partialOf(cut, 'anthropic')).content;
    expect(content.map((block) => block.type)).toEqual(types);
    for (const block of content)
      if (block.type === 'thinking') expect(block).toMatchObject({ signature: recordedValues(RECORDED).signatures[0] });
  });

  it('puts every result in one user message, in the order given, errors marked', () => {
    expect(
      anthropicToolResults([
        { callId: 'toolu_2', name: 'lookup', output: 'two' },
        { callId: 'toolu_1', name: 'lookup', error: 'no such key' },
        { callId: 'toolu_3', name: 'lookup', output: { n: 3 } },
      ]),
    ).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'two' },
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"error":"no such key"}', is_error: true },
        { type: 'tool_result', tool_use_id: 'toolu_3', content: '{"n":3}' },
      ],
    });
  });
});
