import type { JsonValue, OpaqueItem } from '../types/replyParts.js';
import { type AssistantReply, type SentCall, sentCalls } from './AssistantReply.js';
import { type ToolResult, resultText } from './ToolResult.js';
import { turnSegments } from './turnSegments.js';

/** A reasoning item as the Responses API sent it, its `encrypted_content` among its fields. */
export interface ResponsesReasoningItem {
  readonly type: 'reasoning';
  readonly id: string;
  readonly summary: { readonly type: 'summary_text'; readonly text: string }[];
  readonly encrypted_content?: string | null;
  readonly content?: { readonly type: 'reasoning_text'; readonly text: string }[];
}

/** A compaction item (the context compacted, encrypted). */
export interface ResponsesCompactionItem {
  readonly type: 'compaction';
  readonly encrypted_content: string;
  readonly id?: string | null;
}

/** A program item of programmatic tool calling, with its `fingerprint`. */
export interface ResponsesProgramItem {
  readonly type: 'program';
  readonly id: string;
  readonly call_id: string;
  readonly code: string;
  readonly fingerprint: string;
}

/** The assistant's text. */
export interface ResponsesAssistantMessage {
  readonly type: 'message';
  readonly role: 'assistant';
  readonly content: string;
}

/** A function call, named by its `call_id` (and its namespace, and the program that made it). */
export interface ResponsesFunctionCall {
  readonly type: 'function_call';
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
  readonly namespace?: string;
  readonly caller?: { readonly type: 'direct' } | { readonly type: 'program'; readonly caller_id: string };
}

export interface ResponsesCustomToolCall {
  readonly type: 'custom_tool_call';
  readonly call_id: string;
  readonly name: string;
  readonly input: string;
  readonly namespace?: string;
}

/**
 * An item of the assistant's turn, as the next request's `input` takes it.
 *
 * @example
 * ```ts
 * import type { ResponsesTurnItem } from 'rxjs-llm-stream';
 *
 * const items: ResponsesTurnItem[] = [
 *   { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAABp' },
 *   { type: 'function_call', call_id: 'call_1', name: 'calculator', arguments: '{"a":1}' },
 * ];
 * ```
 */
export type ResponsesTurnItem =
  | ResponsesReasoningItem
  | ResponsesCompactionItem
  | ResponsesProgramItem
  | ResponsesAssistantMessage
  | ResponsesFunctionCall
  | ResponsesCustomToolCall;

/** The answer to one call, by its `call_id`. */
export type ResponsesToolOutput =
  | { readonly type: 'function_call_output'; readonly call_id: string; readonly output: string }
  | { readonly type: 'custom_tool_call_output'; readonly call_id: string; readonly output: string };

/**
 * The assistant's turn of a Responses reply as the items of the next request's `input`, in the order
 * they came: each reasoning item whole with its `encrypted_content` (what a request with `store:
 * false` must send back), compaction and program items whole, the text as a message, then the closed
 * calls (`function_call` by `call_id`, with its `namespace` and its `caller`; `custom_tool_call`). A
 * reasoning item without `encrypted_content` is not in the reply (with `store: true`, name the response
 * in `previous_response_id` instead), nor are the tools OpenAI ran or the requests for approval.
 *
 * @example
 * ```ts
 * import { openaiResponsesToolResults, openaiResponsesTurn, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const input = [
 *   ...openaiResponsesTurn(completion),
 *   ...openaiResponsesToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: 'done' }))),
 * ];
 * ```
 */
export function openaiResponsesTurn(reply: AssistantReply): ResponsesTurnItem[] {
  const items: ResponsesTurnItem[] = [];
  for (const segment of turnSegments(reply, 'openai')) {
    if (segment.kind === 'item') pushItem(items, segment.item);
    else if (segment.kind === 'reasoning') for (const item of segment.signedBy) pushItem(items, item);
    else if (segment.text !== '') items.push({ type: 'message', role: 'assistant', content: segment.text });
  }
  for (const call of sentCalls(reply)) items.push(callItem(call));
  return items;
}

/**
 * The results of the calls as Responses input items, in the order given: a `function_call_output` (a
 * `custom_tool_call_output` for a result whose `kind` is `custom`) naming its call's `call_id`; an
 * error as `{"error": message}`.
 *
 * @example
 * ```ts
 * import { openaiResponsesToolResults } from 'rxjs-llm-stream';
 *
 * openaiResponsesToolResults([{ callId: 'call_1', name: 'add', output: 3 }]);
 * // [{ type: 'function_call_output', call_id: 'call_1', output: '3' }]
 * ```
 */
export function openaiResponsesToolResults(results: readonly ToolResult[]): ResponsesToolOutput[] {
  return results.map((result) => ({
    type: result.kind === 'custom' ? 'custom_tool_call_output' : 'function_call_output',
    call_id: result.callId,
    output: resultText(result),
  }));
}

/** An opaque item of the Responses API that goes back as an input item: as it came, whole. */
function pushItem(items: ResponsesTurnItem[], item: OpaqueItem): void {
  const data = item.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return;
  const type = data['type'];
  // Each is the item the API sent, kept whole: its fields go back as they came.
  if (type === 'reasoning' && typeof data['id'] === 'string') {
    items.push({ summary: [], ...data } as unknown as ResponsesReasoningItem);
  } else if (type === 'compaction' && typeof data['encrypted_content'] === 'string') {
    items.push(data as unknown as ResponsesCompactionItem);
  } else if (type === 'program' && typeof data['fingerprint'] === 'string') {
    items.push(data as unknown as ResponsesProgramItem);
  }
}

function callItem(call: SentCall): ResponsesFunctionCall | ResponsesCustomToolCall {
  const namespace = call.namespace === undefined ? {} : { namespace: call.namespace };
  if (call.kind === 'custom') return { type: 'custom_tool_call', call_id: call.id, name: call.name, input: call.arguments, ...namespace };
  const caller = callerOf(call.providerMetadata?.['openai']?.['caller']);
  return {
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
    ...namespace,
    ...(caller === undefined ? {} : { caller }),
  };
}

/** The call's `caller` (the program that made it), when the reply named one. */
function callerOf(value: JsonValue | undefined): ResponsesFunctionCall['caller'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (value['type'] === 'direct') return { type: 'direct' };
  const callerId = value['caller_id'];
  return value['type'] === 'program' && typeof callerId === 'string' ? { type: 'program', caller_id: callerId } : undefined;
}
