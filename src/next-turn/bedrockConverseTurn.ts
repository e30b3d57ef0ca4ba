import { decodeBase64 } from '../internal/base64.js';
import type { JsonValue } from '../types/replyParts.js';
import { type AssistantReply, isCutReply, sentCalls } from './AssistantReply.js';
import { type ToolResult, resultText } from './ToolResult.js';
import { turnSegments } from './turnSegments.js';

/** Reasoning with the signature Bedrock checks, or reasoning it sent encrypted (the bytes). */
export type BedrockReasoningBlock =
  | { readonly reasoningContent: { readonly reasoningText: { readonly text: string; readonly signature?: string } } }
  | { readonly reasoningContent: { readonly redactedContent: Uint8Array } };

/** A text block. */
export interface BedrockTextBlock {
  readonly text: string;
}

/** A call of the program's tools, by its `toolUseId`. */
export interface BedrockToolUseBlock {
  readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: JsonValue };
}

/**
 * The assistant's message of the next Converse request.
 *
 * @example
 * ```ts
 * import type { BedrockAssistantMessage } from 'rxjs-llm-stream';
 *
 * const turn: BedrockAssistantMessage = {
 *   role: 'assistant',
 *   content: [{ reasoningContent: { reasoningText: { text: 'Count the r.', signature: 'Ep0CCkgI' } } }, { text: 'Three.' }],
 * };
 * ```
 */
export interface BedrockAssistantMessage {
  readonly role: 'assistant';
  readonly content: (BedrockReasoningBlock | BedrockTextBlock | BedrockToolUseBlock)[];
}

/** A `toolResult` block: a call's result by its `toolUseId`, `status: 'error'` for a failure. */
export interface BedrockToolResultBlock {
  readonly toolResult: {
    readonly toolUseId: string;
    readonly content: ({ readonly json: JsonValue } | { readonly text: string })[];
    readonly status?: 'error';
  };
}

/** The user message that carries the results. */
export interface BedrockToolResultsMessage {
  readonly role: 'user';
  readonly content: BedrockToolResultBlock[];
}

/**
 * The assistant's turn of a Bedrock Converse reply as the next Converse request takes it: its
 * reasoning blocks with their signatures and its redacted reasoning (the bytes), its text, in the
 * order they came, then the closed calls (`toolUse` with its `toolUseId`). Reasoning without a
 * signature is sent only when the reply finished (a model that signs nothing); of a cut reply it is
 * left out, as Anthropic's models on Bedrock refuse it.
 *
 * @example
 * ```ts
 * import { bedrockConverseTurn, bedrockToolResults, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const messages = [
 *   bedrockConverseTurn(completion),
 *   bedrockToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: { temperature: 21 } }))),
 * ];
 * ```
 */
export function bedrockConverseTurn(reply: AssistantReply): BedrockAssistantMessage {
  const content: (BedrockReasoningBlock | BedrockTextBlock | BedrockToolUseBlock)[] = [];
  const cut = isCutReply(reply);
  for (const segment of turnSegments(reply, 'bedrock')) {
    if (segment.kind === 'item') {
      const bytes =
        segment.item.kind === 'redacted-reasoning' && typeof segment.item.data === 'string' ? decodeBase64(segment.item.data) : undefined;
      if (bytes !== undefined) content.push({ reasoningContent: { redactedContent: bytes } });
    } else if (segment.kind === 'reasoning') {
      const signature = segment.signedBy.find((item) => item.kind === 'signature' && typeof item.data === 'string');
      if (signature === undefined && cut) continue;
      content.push({
        reasoningContent: {
          reasoningText: { text: segment.text, ...(signature === undefined ? {} : { signature: signature.data as string }) },
        },
      });
    } else if (segment.text !== '') {
      content.push({ text: segment.text });
    }
  }
  for (const call of sentCalls(reply)) content.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.args } });
  return { role: 'assistant', content };
}

/**
 * The results of the calls as Bedrock wants them: one user message of `toolResult` blocks, in the
 * order given, each by its call's `toolUseId`: an output as `json` (a string as `text`), an error as
 * `text` with `status: 'error'`.
 *
 * @example
 * ```ts
 * import { bedrockToolResults } from 'rxjs-llm-stream';
 *
 * bedrockToolResults([{ callId: 'tooluse_1', name: 'add', error: 'overflow' }]);
 * // { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '{"error":"overflow"}' }], status: 'error' } }] }
 * ```
 */
export function bedrockToolResults(results: readonly ToolResult[]): BedrockToolResultsMessage {
  return {
    role: 'user',
    content: results.map((result) => ({
      toolResult: {
        toolUseId: result.callId,
        content: [result.error === undefined && typeof result.output !== 'string' ? { json: result.output } : { text: resultText(result) }],
        ...(result.error === undefined ? {} : { status: 'error' as const }),
      },
    })),
  };
}
