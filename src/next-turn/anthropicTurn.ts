import type { JsonValue, ProviderToolCall } from '../types/replyParts.js';
import { type AssistantReply, CallsInOrder, type SentCall, isCutReply, isJsonRecord } from './AssistantReply.js';
import { type ToolResult, resultText } from './ToolResult.js';
import { turnSegments } from './turnSegments.js';

/** A thinking block with the signature Anthropic checks when it comes back. */
export interface AnthropicThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
}

/** Thinking Anthropic sent encrypted: its `data`, as it came. */
export interface AnthropicRedactedThinkingBlock {
  readonly type: 'redacted_thinking';
  readonly data: string;
}

/** A text block (its citations are not sent back: the sources stay on the reply). */
export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A call of the program's tools, with the code that made it when a program did (programmatic tool calling). */
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: { readonly [key: string]: JsonValue };
  readonly caller?: AnthropicCaller;
}

/** Who made a call: the model (`direct`), or the code-execution tool with its id. */
export type AnthropicCaller =
  { readonly type: 'direct' } | { readonly type: 'code_execution_20250825' | 'code_execution_20260120'; readonly tool_id: string };

/**
 * A tool Anthropic ran itself (`server_tool_use`, `mcp_tool_use` with its `server_name`), always
 * followed by its result block.
 */
export interface AnthropicServerToolUseBlock {
  readonly type: 'server_tool_use' | 'mcp_tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: JsonValue;
  readonly server_name?: string;
}

/**
 * The result block of a tool Anthropic ran (`web_search_tool_result`, `code_execution_tool_result`,
 * `mcp_tool_result` with its `is_error`, ...), its content as it came.
 */
export interface AnthropicServerToolResultBlock {
  readonly type: string;
  readonly tool_use_id: string;
  readonly content: JsonValue;
  readonly is_error?: boolean;
}

/** A block kept whole as Anthropic sent it (a `compaction` block). */
export interface AnthropicOpaqueBlock {
  readonly type: string;
  readonly [field: string]: JsonValue;
}

/** A block of the assistant's turn, in Anthropic's request shape. */
export type AnthropicAssistantBlock =
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicServerToolUseBlock
  | AnthropicServerToolResultBlock
  | AnthropicOpaqueBlock;

/**
 * The assistant's message of the next Messages API request.
 *
 * @example
 * ```ts
 * import type { AnthropicAssistantMessage } from 'rxjs-llm-stream';
 *
 * const turn: AnthropicAssistantMessage = {
 *   role: 'assistant',
 *   content: [
 *     { type: 'thinking', thinking: 'Two cities.', signature: 'EqQBCkYIBxgC' },
 *     { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
 *   ],
 * };
 * ```
 */
export interface AnthropicAssistantMessage {
  readonly role: 'assistant';
  readonly content: AnthropicAssistantBlock[];
}

/** A `tool_result` block: what a call of the program's tools gave back. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: true;
}

/** The user message that carries the results, every one of them, first. */
export interface AnthropicToolResultsMessage {
  readonly role: 'user';
  readonly content: AnthropicToolResultBlock[];
}

/**
 * The assistant's turn of an Anthropic reply as the next Messages API request takes it: its blocks in
 * the order they came (each thinking block with its signature, redacted thinking with its data, text,
 * compaction, each tool Anthropic ran followed by its result, each `tool_use` call of the program
 * that came before such a tool), then the program's other `tool_use` calls. What Anthropic refuses is
 * left out: thinking without a signature (of a cut reply, or of a server that sends none), a server
 * tool without its result, an unclosed call, an empty text block. A text block's `signature` is not
 * sent (the request has no place for it; it is never a thinking block).
 *
 * @example
 * ```ts
 * import { anthropicAssistantTurn, anthropicToolResults, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const next = [
 *   anthropicAssistantTurn(completion),
 *   anthropicToolResults([{ callId: 'toolu_01', name: 'get_weather', output: { temperature: 21 } }]),
 * ];
 * ```
 */
export function anthropicAssistantTurn(reply: AssistantReply): AnthropicAssistantMessage {
  const content: AnthropicAssistantBlock[] = [];
  const cut = isCutReply(reply);
  const calls = new CallsInOrder(reply);
  for (const segment of turnSegments(reply, 'anthropic', { providerTools: true })) {
    if (segment.kind === 'provider-tool') {
      for (const call of calls.before(segment.call.at.calls)) content.push(toolUseBlock(call));
      content.push(...serverToolBlocks(reply, segment.call, cut));
    } else if (segment.kind === 'item') {
      const { item } = segment;
      if (item.kind === 'redacted-reasoning' && typeof item.data === 'string') content.push({ type: 'redacted_thinking', data: item.data });
      else if (item.kind === 'compaction' && isBlock(item.data)) content.push(item.data);
      // A container goes beside the messages (the request's `container`), not in them.
    } else if (segment.kind === 'reasoning') {
      const signature = segment.signedBy.find((item) => item.kind === 'signature' && typeof item.data === 'string');
      if (signature !== undefined) content.push({ type: 'thinking', thinking: segment.text, signature: signature.data as string });
    } else if (segment.text !== '') {
      content.push({ type: 'text', text: segment.text });
    }
  }
  for (const call of calls.rest()) content.push(toolUseBlock(call));
  return { role: 'assistant', content };
}

function toolUseBlock(call: SentCall): AnthropicToolUseBlock {
  const caller = callerOf(call.providerMetadata?.['anthropic']?.['caller']);
  return {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: isJsonRecord(call.args) ? call.args : {},
    ...(caller === undefined ? {} : { caller }),
  };
}

/**
 * The results of the program's calls as Anthropic wants them: every `tool_result` in one user message,
 * in the order given (that of the calls), errors with `is_error`. Anthropic requires them first in the
 * message after the turn: add the user's own text after them, not before.
 *
 * @example
 * ```ts
 * import { anthropicToolResults } from 'rxjs-llm-stream';
 *
 * anthropicToolResults([{ callId: 'toolu_01', name: 'get_weather', error: 'timeout' }]);
 * // { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"error":"timeout"}', is_error: true }] }
 * ```
 */
export function anthropicToolResults(results: readonly ToolResult[]): AnthropicToolResultsMessage {
  return {
    role: 'user',
    content: results.map((result) => ({
      type: 'tool_result',
      tool_use_id: result.callId,
      content: resultText(result),
      ...(result.error === undefined ? {} : { is_error: true as const }),
    })),
  };
}

/** A tool Anthropic ran, as the blocks it came in: its use, then its result. */
function serverToolBlocks(reply: AssistantReply, call: ProviderToolCall, cut: boolean): AnthropicAssistantBlock[] {
  // A finished reply may end in a server tool waiting for the program's calls it made (programmatic
  // tool calling): it goes back without a result. Of a cut reply, only a server tool with its result.
  if (cut && (call.result === undefined || typeof call.input === 'string')) return [];
  if (call.type === 'mcp_tool_use') {
    // The MCP blocks' own fields are kept on the choice (the last value of each): with one MCP
    // server in the request, its name.
    const kept = reply.choices[0]?.providerMetadata?.['anthropic'] ?? {};
    const serverName = typeof kept['server_name'] === 'string' ? { server_name: kept['server_name'] } : {};
    const isError = typeof kept['is_error'] === 'boolean' ? { is_error: kept['is_error'] } : {};
    return [
      { type: 'mcp_tool_use', id: call.id, name: call.name, input: call.input, ...serverName },
      ...(call.result === undefined ? [] : [{ type: 'mcp_tool_result', tool_use_id: call.id, content: call.result, ...isError }]),
    ];
  }
  const use: AnthropicAssistantBlock = { type: 'server_tool_use', id: call.id, name: call.name, input: call.input };
  return call.result === undefined ? [use] : [use, { type: resultBlockType(call), tool_use_id: call.id, content: call.result }];
}

/**
 * The type of the result block of a tool Anthropic ran, which the reply does not keep: the tool's name
 * with `_tool_result` (`web_search_tool_result`, `code_execution_tool_result`,
 * `bash_code_execution_tool_result`, ...), or the tool search's shared one.
 */
function resultBlockType(call: ProviderToolCall): string {
  if (call.name.startsWith('tool_search_tool_')) return 'tool_search_tool_result';
  return `${call.name}_tool_result`;
}

function isBlock(value: JsonValue): value is AnthropicOpaqueBlock {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value['type'] === 'string';
}

/** A call's `caller`, as the block named it, when it is one Anthropic defines. */
function callerOf(value: JsonValue | undefined): AnthropicCaller | undefined {
  if (!isJsonRecord(value)) return undefined;
  const caller = value;
  if (caller['type'] === 'direct') return { type: 'direct' };
  const toolId = caller['tool_id'];
  if ((caller['type'] === 'code_execution_20250825' || caller['type'] === 'code_execution_20260120') && typeof toolId === 'string') {
    return { type: caller['type'], tool_id: toolId };
  }
  return undefined;
}
