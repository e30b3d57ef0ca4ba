import { from, toArray } from 'rxjs';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { ChatEvent } from '../../src/types/events';
import { converseStream } from '../support/awsEventStream';
import { collectSync } from '../support/collect';
import { readReply, sseOf } from '../support/pipeline';

// `opaqueItems`: what the next turn must send back verbatim (signatures, encrypted reasoning,
// compaction, a container, a continuation token, a program's fingerprint), each with the part of the
// turn it belongs to, in arrival order. Every stream is written from the SDKs' own types (named above
// each) and read through the README pipeline at 1, 7 and 64-byte chunks and whole; the expected items
// are written here from those types, not printed from the code.

/** The reply's items (read by name: the field is what these specs are about). */
function itemsOf(reply: object | undefined): unknown {
  return (reply as { readonly opaqueItems?: unknown } | undefined)?.opaqueItems;
}

/** A Chat Completions chunk (openai `ChatCompletionChunk`) of one choice. */
function chatChunk(delta: object, finish?: string): object {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, ...(finish === undefined ? {} : { finish_reason: finish }) }],
  };
}

/** This library's own stream (`chat-events`): one `event:`-named SSE event per event, as `toMessageEvents` writes them. */
function chatEventsText(events: readonly ChatEvent[]): string {
  const written = collectSync(from(events).pipe(toMessageEvents(), toArray())).values[0]!;
  return written.map((message) => `event: ${message.type}\nid: ${message.id}\ndata: ${message.data}\n\n`).join('');
}

describe('opaqueItems (issue 30, E)', () => {
  describe('openai-chat and the servers behind it', () => {
    it("keeps Gemini's extra_content.google.thought_signature with the delta's text and with its call", () => {
      // Gemini's OpenAI-compatible endpoint: `extra_content: {google: {thought_signature}}` on a
      // ChatCompletionChunk.Choice.Delta and on a ChatCompletionChunk.Choice.Delta.ToolCall (an
      // extension of the openai types, which keep unknown fields).
      const text = { google: { thought_signature: 'c2lnLXRleHQ=' } };
      const call = { google: { thought_signature: 'c2lnLWNhbGw=' } };
      const { completion, error } = readReply(
        sseOf([
          chatChunk({ role: 'assistant', content: 'Let me check.', extra_content: text }),
          chatChunk(
            {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_a',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                  extra_content: call,
                },
              ],
            },
            'tool_calls',
          ),
          '[DONE]',
        ]),
        'openai-chat',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ content: 'Let me check.', toolCalls: [{ id: 'call_a', name: 'get_weather' }] });
      expect(itemsOf(completion)).toEqual([
        { provider: 'google', kind: 'signature', type: 'extra_content', part: 'content', data: text, at: { reasoning: 0, content: 13 } },
        {
          provider: 'google',
          kind: 'signature',
          type: 'extra_content',
          part: 'tool-call',
          call: 0,
          data: call,
          at: { reasoning: 0, content: 13 },
        },
      ]);
      // The legacy list is what it was: Gemini's compatible endpoint never filled it.
      expect(completion!.reasoningSignatures).toBeUndefined();
    });

    it("keeps OpenRouter's reasoning_details entries (text with signature, encrypted, summary) in order, each whole", () => {
      // OpenRouter's reasoning_details: `reasoning.text` {text, signature}, `reasoning.encrypted`
      // {data}, `reasoning.summary` {summary}, each with `id`, `format` and `index`.
      const first = { type: 'reasoning.text', text: 'Think ', format: 'anthropic-claude-v1', index: 0 };
      const second = { type: 'reasoning.text', text: 'twice.', format: 'anthropic-claude-v1', index: 0 };
      const signed = { type: 'reasoning.text', signature: 'EqQBCkYI', format: 'anthropic-claude-v1', index: 0 };
      const encrypted = { type: 'reasoning.encrypted', data: 'gAAAAB', id: 'rs_1', format: 'openai-responses-v1', index: 1 };
      const summary = { type: 'reasoning.summary', summary: ' Sum.', id: 'rs_2', format: 'openai-responses-v1', index: 2 };
      const { completion, error } = readReply(
        sseOf([
          chatChunk({ role: 'assistant', content: '', reasoning: 'Think ', reasoning_details: [first] }),
          chatChunk({ content: '', reasoning: 'twice.', reasoning_details: [second] }),
          chatChunk({ content: '', reasoning: '', reasoning_details: [signed] }),
          chatChunk({ reasoning_details: [encrypted, summary] }),
          chatChunk({ content: 'Done.' }, 'stop'),
          '[DONE]',
        ]),
        'openai-chat',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'Think twice. Sum.', content: 'Done.' });
      const detail = (data: { readonly index: number; readonly type: string }, reasoning: number) => ({
        provider: 'openrouter',
        kind: 'reasoning-detail',
        type: data.type,
        part: 'reasoning',
        block: data.index,
        data,
        at: { reasoning, content: 0 },
      });
      expect(itemsOf(completion)).toEqual([
        detail(first, 6),
        detail(second, 12),
        detail(signed, 12),
        detail(encrypted, 17),
        detail(summary, 17),
      ]);
    });

    it("keeps a Mistral ThinkChunk's signature with the thinking before it", () => {
      // @mistralai/mistralai ThinkChunk {type: 'thinking', thinking: (TextChunk | ReferenceChunk)[],
      // closed?, signature?} inside a DeltaMessage's content list, beside TextChunk {type: 'text', text}.
      const { completion, error } = readReply(
        sseOf([
          chatChunk({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Plan: ' }] }] }),
          chatChunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'add.' }], signature: 'bWlzdHJhbA==' }] }),
          chatChunk({ content: [{ type: 'text', text: '4' }] }, 'stop'),
          '[DONE]',
        ]),
        'openai-chat',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'Plan: add.', content: '4' });
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'mistral',
          kind: 'signature',
          type: 'thinking',
          part: 'reasoning',
          data: 'bWlzdHJhbA==',
          at: { reasoning: 10, content: 0 },
        },
      ]);
    });
  });

  describe('anthropic', () => {
    const start = {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-6',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    };
    const end = (stop: string, container: object | null = null) => [
      { type: 'message_delta', delta: { container, stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } },
      { type: 'message_stop' },
    ];
    // BetaRawContentBlockStartEvent, BetaRawContentBlockDeltaEvent (BetaThinkingDelta, BetaSignatureDelta,
    // BetaTextDelta), BetaRawContentBlockStopEvent; BetaRedactedThinkingBlock {data, type}.
    const thinkingThenText = [
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'Let me think.' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'signature_delta', signature: 'c2lnLXRoaW5r' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Hello' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'signature_delta', signature: 'c2lnLXRleHQ=' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: ' world' } },
      { type: 'content_block_stop', index: 2 },
    ];

    it('keeps each signature with its block: a thinking one with the thinking, a text block’s with the text, never as reasoning', () => {
      const { completion, error } = readReply(sseOf([...thinkingThenText, ...end('end_turn')], true), 'anthropic');
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'Let me think.', content: 'Hello world' });
      // The text block's signature is not a reasoning signature: sent back as thinking it would be wrong.
      expect(completion!.reasoningSignatures).toEqual(['cmVkYWN0ZWQ=', 'c2lnLXRoaW5r']);
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'anthropic',
          kind: 'redacted-reasoning',
          type: 'redacted_thinking',
          part: 'reasoning',
          block: 0,
          data: 'cmVkYWN0ZWQ=',
          at: { reasoning: 0, content: 0 },
        },
        {
          provider: 'anthropic',
          kind: 'signature',
          type: 'signature_delta',
          part: 'reasoning',
          block: 1,
          data: 'c2lnLXRoaW5r',
          at: { reasoning: 13, content: 0 },
        },
        {
          provider: 'anthropic',
          kind: 'signature',
          type: 'signature_delta',
          part: 'content',
          block: 2,
          // The text it signs: the whole block, 'Hello world' (given at the block's stop, once known).
          span: { start: 0, end: 11 },
          data: 'c2lnLXRleHQ=',
          at: { reasoning: 13, content: 11 },
        },
      ]);
    });

    it("keeps a compaction block's encrypted_content and the container (id, expiry) of message_delta", () => {
      // BetaCompactionBlock {content, encrypted_content, type: 'compaction'} and its
      // BetaCompactionContentBlockDelta {content, encrypted_content, type: 'compaction_delta'};
      // BetaRawMessageDeltaEvent.delta.container: BetaContainer {id, expires_at}.
      const container = { id: 'container_011CZ', expires_at: '2026-12-06T03:00:00Z' };
      const { completion, error } = readReply(
        sseOf(
          [
            start,
            { type: 'content_block_start', index: 0, content_block: { type: 'compaction', content: null, encrypted_content: null } },
            {
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'compaction_delta', content: 'The user asked for a trip plan.', encrypted_content: 'EqQBCkYIBx' },
            },
            { type: 'content_block_stop', index: 0 },
            { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
            { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Day 1.' } },
            { type: 'content_block_stop', index: 1 },
            ...end('end_turn', container),
          ],
          true,
        ),
        'anthropic',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ content: 'Day 1.', finishReason: 'stop' });
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'anthropic',
          kind: 'compaction',
          type: 'compaction',
          part: 'turn',
          block: 0,
          data: { type: 'compaction', content: 'The user asked for a trip plan.', encrypted_content: 'EqQBCkYIBx' },
          at: { reasoning: 0, content: 0 },
        },
        { provider: 'anthropic', kind: 'container', type: 'container', part: 'turn', data: container, at: { reasoning: 0, content: 6 } },
      ]);
    });

    it('keeps them in the partial of a reply cut short, and in every snapshot', () => {
      const { error } = readReply(sseOf(thinkingThenText, true), 'anthropic');
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      const partial = (error as StreamClosedEarlyError).partial as object;
      expect(itemsOf(partial)).toEqual([
        expect.objectContaining({ kind: 'redacted-reasoning', block: 0 }),
        expect.objectContaining({ part: 'reasoning', block: 1, data: 'c2lnLXRoaW5r' }),
        expect.objectContaining({ part: 'content', block: 2, data: 'c2lnLXRleHQ=' }),
      ]);
      expect(itemsOf((partial as { readonly choices: readonly object[] }).choices[0])).toEqual(itemsOf(partial));
    });
  });

  describe('openai-responses', () => {
    it('keeps compaction items, program items (their fingerprint) and encrypted reasoning, whole and in output order', () => {
      // openai 7.59 ResponseCompactionItem {id, encrypted_content, type: 'compaction', created_by?};
      // ResponseOutputItem.Program {id, call_id, code, fingerprint, type: 'program'};
      // ResponseReasoningItem {id, summary, type: 'reasoning', encrypted_content?}; carried by
      // ResponseOutputItemAddedEvent / ResponseOutputItemDoneEvent {item, output_index, sequence_number}.
      const compaction = { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAcmp' };
      const reasoning = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAAArs' };
      const program = { id: 'prg_1', type: 'program', call_id: 'call_p', code: 'return 1 + 1;', fingerprint: 'fp_prog_1' };
      const response = { id: 'resp_1', object: 'response', status: 'in_progress', model: 'gpt-5', output: [], usage: null };
      const done = (item: object, output_index: number) => [
        { type: 'response.output_item.added', output_index, item, sequence_number: 1 },
        { type: 'response.output_item.done', output_index, item, sequence_number: 2 },
      ];
      const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
      const { completion, error } = readReply(
        sseOf(
          [
            { type: 'response.created', response, sequence_number: 0 },
            ...done(compaction, 0),
            ...done(reasoning, 1),
            ...done(program, 2),
            { type: 'response.output_item.added', output_index: 3, item: message, sequence_number: 3 },
            {
              type: 'response.content_part.added',
              item_id: 'msg_1',
              output_index: 3,
              content_index: 0,
              part: { type: 'output_text', text: '', annotations: [] },
              sequence_number: 4,
            },
            { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 3, content_index: 0, delta: 'Two.', sequence_number: 5 },
            { type: 'response.completed', response: { ...response, status: 'completed' }, sequence_number: 6 },
          ],
          true,
        ),
        'openai-responses',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ content: 'Two.', finishReason: 'stop' });
      expect(completion!.reasoningSignatures).toEqual(['gAAAArs']);
      const at = { reasoning: 0, content: 0 };
      expect(itemsOf(completion)).toEqual([
        { provider: 'openai', kind: 'compaction', type: 'compaction', part: 'turn', block: 0, data: compaction, at },
        { provider: 'openai', kind: 'encrypted-reasoning', type: 'reasoning', part: 'reasoning', block: 1, data: reasoning, at },
        { provider: 'openai', kind: 'program', type: 'program', part: 'turn', block: 2, data: program, at },
      ]);
    });
  });

  describe('gemini', () => {
    it('keeps a continuationToken (finish CONTINUATION) for the next request', () => {
      // Candidate.continuationToken: an opaque token returned when finishReason is CONTINUATION, passed
      // in the next request to continue generation (GenerateContentConfig.continuationToken).
      const { completion, error } = readReply(
        sseOf([
          {
            candidates: [{ content: { role: 'model', parts: [{ text: 'Part one' }] }, index: 0 }],
            modelVersion: 'gemini-4-pro',
            responseId: 'r1',
          },
          {
            candidates: [
              {
                content: { role: 'model', parts: [{ text: '' }] },
                index: 0,
                finishReason: 'CONTINUATION',
                continuationToken: 'Y29udGludWU=',
              },
            ],
            usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 },
            modelVersion: 'gemini-4-pro',
            responseId: 'r1',
          },
        ]),
        'gemini',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ content: 'Part one', rawFinishReason: 'CONTINUATION' });
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'google',
          kind: 'continuation',
          type: 'continuationToken',
          part: 'turn',
          data: 'Y29udGludWU=',
          at: { reasoning: 0, content: 8 },
        },
      ]);
    });
  });

  describe('gemini: thoughtSignature', () => {
    it('keeps each signature with its part: a thought, the text, a function call', () => {
      // @google/genai Part {text?, thought?, thoughtSignature?, functionCall?: FunctionCall {id?, name, args}}
      // (googleapis/js-genai src/types.ts at 6e9b35c45e21f0d37179a24d29dca01ebed698e6).
      const chunk = (parts: readonly object[], finishReason?: string) => ({
        candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason === undefined ? {} : { finishReason }) }],
        modelVersion: 'gemini-3-pro',
        responseId: 'r2',
      });
      const { completion, error } = readReply(
        sseOf([
          chunk([{ text: 'Weighing.', thought: true, thoughtSignature: 'c2lnLXRob3VnaHQ=' }]),
          chunk([{ text: 'Checking.', thoughtSignature: 'c2lnLXRleHQ=' }]),
          chunk([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLWNhbGw=' }], 'STOP'),
        ]),
        'gemini',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'Weighing.', content: 'Checking.', toolCalls: [{ name: 'get_weather' }] });
      const item = (part: string, data: string, at: { reasoning: number; content: number }, call?: number) => ({
        provider: 'google',
        kind: 'signature',
        type: 'thoughtSignature',
        part,
        ...(call === undefined ? {} : { call }),
        data,
        at,
      });
      expect(itemsOf(completion)).toEqual([
        item('reasoning', 'c2lnLXRob3VnaHQ=', { reasoning: 9, content: 0 }),
        item('content', 'c2lnLXRleHQ=', { reasoning: 9, content: 9 }),
        item('tool-call', 'c2lnLWNhbGw=', { reasoning: 9, content: 9 }, 0),
      ]);
      // The flat list stays what it was: every thoughtSignature, in order.
      expect(completion!.reasoningSignatures).toEqual(['c2lnLXRob3VnaHQ=', 'c2lnLXRleHQ=', 'c2lnLWNhbGw=']);
    });
  });

  describe('bedrock-converse', () => {
    it('keeps the signature and the redacted content of reasoningContent with their block', () => {
      // @aws-sdk/client-bedrock-runtime ContentBlockDelta.reasoningContent: ReasoningContentBlockDelta
      // {text} | {redactedContent} | {signature}.
      const { completion, error } = readReply(
        converseStream([
          ['messageStart', { role: 'assistant' }],
          ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think.' } } }],
          ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'YnItc2ln' } } }],
          ['contentBlockStop', { contentBlockIndex: 0 }],
          ['contentBlockDelta', { contentBlockIndex: 1, delta: { reasoningContent: { redactedContent: 'cmVk' } } }],
          ['contentBlockStop', { contentBlockIndex: 1 }],
          ['contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'Done.' } }],
          ['contentBlockStop', { contentBlockIndex: 2 }],
          ['messageStop', { stopReason: 'end_turn' }],
          ['metadata', { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, metrics: { latencyMs: 1 } }],
        ]),
        'bedrock-converse',
        'aws',
      );
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ reasoning: 'Think.', content: 'Done.' });
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'bedrock',
          kind: 'signature',
          type: 'signature',
          part: 'reasoning',
          block: 0,
          data: 'YnItc2ln',
          at: { reasoning: 6, content: 0 },
        },
        {
          provider: 'bedrock',
          kind: 'redacted-reasoning',
          type: 'redactedContent',
          part: 'reasoning',
          block: 1,
          data: 'cmVk',
          at: { reasoning: 6, content: 0 },
        },
      ]);
    });
  });

  describe('the relay', () => {
    it('carries the items through chat-events, each where it was', () => {
      const events = [
        { type: 'start', id: 'r1', model: 'm' },
        { type: 'reasoning', choice: 0, text: 'Hmm.' },
        {
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'anthropic', kind: 'signature', type: 'signature_delta', part: 'reasoning', block: 0, data: 'c2ln' },
        },
        { type: 'content', choice: 0, text: 'Hi' },
        {
          type: 'opaque-item',
          choice: 0,
          item: {
            provider: 'anthropic',
            kind: 'signature',
            type: 'signature_delta',
            part: 'content',
            block: 1,
            span: { start: 0, end: 2 },
            data: 't',
          },
        },
        {
          type: 'opaque-item',
          choice: 0,
          item: { provider: 'anthropic', kind: 'container', type: 'container', part: 'turn', data: { id: 'c1' } },
        },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' },
        { type: 'done' },
      ] as unknown as ChatEvent[];
      const { completion, error } = readReply(chatEventsText(events), 'chat-events');
      expect(error).toBeUndefined();
      expect(itemsOf(completion)).toEqual([
        {
          provider: 'anthropic',
          kind: 'signature',
          type: 'signature_delta',
          part: 'reasoning',
          block: 0,
          data: 'c2ln',
          at: { reasoning: 4, content: 0 },
        },
        {
          provider: 'anthropic',
          kind: 'signature',
          type: 'signature_delta',
          part: 'content',
          block: 1,
          span: { start: 0, end: 2 },
          data: 't',
          at: { reasoning: 4, content: 2 },
        },
        { provider: 'anthropic', kind: 'container', type: 'container', part: 'turn', data: { id: 'c1' }, at: { reasoning: 4, content: 2 } },
      ]);
    });
  });
});
