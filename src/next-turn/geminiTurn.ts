import type { JsonValue, ProviderToolCall } from '../types/replyParts.js';
import { type AssistantReply, CallsInOrder, type SentCall, callItems, isJsonRecord } from './AssistantReply.js';
import type { ToolResult } from './ToolResult.js';
import { turnSegments } from './turnSegments.js';

/** A JSON object: what Gemini's `args` and `response` are. */
export type GeminiObject = { readonly [key: string]: JsonValue };

/** A text part: the answer's, or a thought (`thought: true`), with the signature that came on it. */
export interface GeminiTextPart {
  readonly text: string;
  readonly thought?: true;
  readonly thoughtSignature?: string;
}

/** A call of the program's functions, with its id and the signature Gemini 3 requires back on it. */
export interface GeminiFunctionCallPart {
  readonly functionCall: { readonly id: string; readonly name: string; readonly args: GeminiObject };
  readonly thoughtSignature?: string;
}

/**
 * A part of a tool Google ran, as the stream carried it: a server-side `toolCall` and its
 * `toolResponse`, `executableCode` and its `codeExecutionResult`, a server-run `functionCall` and its
 * `functionResponse`.
 */
export type GeminiServerToolPart =
  | { readonly toolCall: { readonly id: string; readonly toolType: string; readonly args: JsonValue } }
  | { readonly toolResponse: { readonly id: string; readonly toolType: string; readonly response: JsonValue } }
  | { readonly executableCode: JsonValue }
  | { readonly codeExecutionResult: JsonValue }
  | { readonly functionCall: { readonly id: string; readonly name: string; readonly args: JsonValue } }
  | { readonly functionResponse: { readonly id: string; readonly name: string; readonly response: JsonValue } };

/**
 * The model's turn of the next `generateContent` request.
 *
 * @example
 * ```ts
 * import type { GeminiModelContent } from 'rxjs-llm-stream';
 *
 * const turn: GeminiModelContent = {
 *   role: 'model',
 *   parts: [{ functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'EqUCCqIC' }],
 * };
 * ```
 */
export interface GeminiModelContent {
  readonly role: 'model';
  readonly parts: (GeminiTextPart | GeminiFunctionCallPart | GeminiServerToolPart)[];
}

/** A `functionResponse` part: a call's result, by the call's id and name. */
export interface GeminiFunctionResponsePart {
  readonly functionResponse: {
    readonly id: string;
    readonly name: string;
    readonly response: { readonly output: JsonValue } | { readonly error: string };
  };
}

/** The user turn that carries the results. */
export interface GeminiFunctionResponseContent {
  readonly role: 'user';
  readonly parts: GeminiFunctionResponsePart[];
}

/**
 * The model's turn of a Gemini reply as the next request's `contents` takes it: its parts in the order
 * they came, each with the `thoughtSignature` it came with (thoughts with `thought: true`, text, a
 * signature that came on a part of its own as an empty text part, the tools Google ran with their
 * responses, each where it came, and before such a tool the calls that came before it), then the
 * other closed calls with their ids, each with its signature (Gemini 3 answers 400 to a call sent back
 * without it). A `continuationToken` goes beside the contents, not in them.
 *
 * @example
 * ```ts
 * import { geminiModelTurn, geminiToolResults, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * const contents = [
 *   geminiModelTurn(completion),
 *   geminiToolResults(completion.toolCalls.map((call) => ({ callId: call.id, name: call.name, output: { temperature: 21 } }))),
 * ];
 * ```
 */
export function geminiModelTurn(reply: AssistantReply): GeminiModelContent {
  const parts: (GeminiTextPart | GeminiFunctionCallPart | GeminiServerToolPart)[] = [];
  const calls = new CallsInOrder(reply);
  for (const segment of turnSegments(reply, 'google', { providerTools: true })) {
    if (segment.kind === 'provider-tool') {
      for (const call of calls.before(segment.call.at.calls)) parts.push(functionCallPart(reply, call));
      parts.push(...serverToolParts(segment.call));
      continue;
    }
    if (segment.kind === 'item') {
      const { item } = segment;
      if (item.kind === 'signature' && typeof item.data === 'string') parts.push({ text: '', thoughtSignature: item.data });
      continue;
    }
    const signature = segment.signedBy.find((item) => item.kind === 'signature' && typeof item.data === 'string');
    parts.push({
      text: segment.text,
      ...(segment.kind === 'reasoning' ? { thought: true as const } : {}),
      ...(signature === undefined ? {} : { thoughtSignature: signature.data as string }),
    });
  }
  for (const call of calls.rest()) parts.push(functionCallPart(reply, call));
  return { role: 'model', parts };
}

/** A call of the program with the signature it came with. */
function functionCallPart(reply: AssistantReply, call: SentCall): GeminiFunctionCallPart {
  const signature = callItems(reply, call.index, 'google').find((item) => item.kind === 'signature' && typeof item.data === 'string');
  return {
    functionCall: { id: call.id, name: call.name, args: isJsonRecord(call.args) ? call.args : {} },
    ...(signature === undefined ? {} : { thoughtSignature: signature.data as string }),
  };
}

/**
 * The results of the calls as Gemini wants them: one user turn of `functionResponse` parts, in the
 * order given, each with its call's id and name, the output as `{ output }` and an error as
 * `{ error }` (the keys Gemini's documentation names).
 *
 * @example
 * ```ts
 * import { geminiToolResults } from 'rxjs-llm-stream';
 *
 * geminiToolResults([{ callId: 'c1', name: 'get_weather', output: { temperature: 21 } }]);
 * // { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'get_weather', response: { output: { temperature: 21 } } } }] }
 * ```
 */
export function geminiToolResults(results: readonly ToolResult[]): GeminiFunctionResponseContent {
  return {
    role: 'user',
    parts: results.map((result) => ({
      functionResponse: {
        id: result.callId,
        name: result.name,
        response: result.error === undefined ? { output: result.output } : { error: result.error },
      },
    })),
  };
}

/** A tool Google ran, as the parts it came in; none while its result has not come (a cut reply). */
function serverToolParts(call: ProviderToolCall): GeminiServerToolPart[] {
  if (call.result === undefined) return [];
  switch (call.type) {
    case 'toolCall':
      return [
        { toolCall: { id: call.id, toolType: call.name, args: call.input } },
        { toolResponse: { id: call.id, toolType: call.name, response: call.result } },
      ];
    case 'executableCode':
      return [{ executableCode: call.input }, { codeExecutionResult: call.result }];
    case 'functionCall':
      return [
        { functionCall: { id: call.id, name: call.name, args: call.input } },
        { functionResponse: { id: call.id, name: call.name, response: call.result } },
      ];
    default:
      return [];
  }
}
