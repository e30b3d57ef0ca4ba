import type { ToolRequest } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/**
 * `toolRequests`: the calls that wait for the program's answer or approval and are not plain
 * function calls (an MCP approval request, a built-in tool the program runs), in arrival order. Kept
 * apart from `toolCalls`, so that a program running its calls never runs one of these as a function.
 *
 * @example
 * ```ts
 * const requests = toolRequestsPart.start();
 * toolRequestsPart.fold(requests, {
 *   type: 'tool-request',
 *   choice: 0,
 *   request: { id: 'call_1', type: 'apply_patch_call', kind: 'client-tool', name: null, input: {} },
 * });
 * ```
 */
export const toolRequestsPart: ReplyPart<'toolRequests', ToolRequest[]> = {
  field: 'toolRequests',
  events: ['tool-request'],
  start: () => [],
  fold(requests, event) {
    if (event.type === 'tool-request') requests.push(event.request);
  },
  show(requests, view) {
    if (requests.length > 0) view.toolRequests = requests.slice();
  },
};
