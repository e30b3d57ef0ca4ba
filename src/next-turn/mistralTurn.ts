import type { AssistantReply } from './AssistantReply.js';
import { sentCalls } from './AssistantReply.js';
import { turnSegments } from './turnSegments.js';

/** Mistral's thinking chunk: the thinking as text chunks, with the signature that replays it. */
export interface MistralThinkingChunk {
  readonly type: 'thinking';
  readonly thinking: { readonly type: 'text'; readonly text: string }[];
  readonly signature?: string;
}

/** A text chunk. */
export interface MistralTextChunk {
  readonly type: 'text';
  readonly text: string;
}

/**
 * The assistant's message of the next Mistral chat request: its content as chunks, thinking first.
 *
 * @example
 * ```ts
 * import type { MistralAssistantMessage } from 'rxjs-llm-stream';
 *
 * const turn: MistralAssistantMessage = {
 *   role: 'assistant',
 *   content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Add them.' }], signature: 'sig' }, { type: 'text', text: '4' }],
 * };
 * ```
 */
export interface MistralAssistantMessage {
  readonly role: 'assistant';
  readonly content: (MistralThinkingChunk | MistralTextChunk)[];
  readonly tool_calls?: {
    readonly id: string;
    readonly type: 'function';
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
}

/**
 * The assistant's turn of a Mistral reasoning reply (read by `openaiChat`): each thinking chunk with
 * the `signature` that came after it, in order with the text, then the closed calls. The tool results
 * are Chat's: `openaiChatToolResults`.
 *
 * @example
 * ```ts
 * import { mistralAssistantTurn, type Completion } from 'rxjs-llm-stream';
 *
 * declare const completion: Completion;
 * mistralAssistantTurn(completion).content; // [{ type: 'thinking', thinking: [...], signature }, { type: 'text', text }]
 * ```
 */
export function mistralAssistantTurn(reply: AssistantReply): MistralAssistantMessage {
  const content: (MistralThinkingChunk | MistralTextChunk)[] = [];
  for (const segment of turnSegments(reply, 'mistral')) {
    if (segment.kind === 'item') continue;
    if (segment.kind === 'content') {
      if (segment.text !== '') content.push({ type: 'text', text: segment.text });
      continue;
    }
    const signature = segment.signedBy.find((item) => typeof item.data === 'string');
    content.push({
      type: 'thinking',
      thinking: [{ type: 'text', text: segment.text }],
      ...(signature === undefined ? {} : { signature: signature.data as string }),
    });
  }
  const calls = sentCalls(reply).map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return { role: 'assistant', content, ...(calls.length === 0 ? {} : { tool_calls: calls }) };
}
