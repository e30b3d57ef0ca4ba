import { ToolRequest } from '../../types/events.js';
import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import type { JsonValue } from '../../types/events.js';

/**
 * The output items that wait for the program and are not function calls, each with what it owes:
 * an approval (an MCP tool OpenAI would then call) or the result of a built-in tool the program runs
 * itself. A `shell_call` in a hosted container and a `tool_search_call` the server ran are OpenAI's
 * own: not here (`requestOf` says which).
 */
const REQUEST_KINDS: ReadonlyMap<string, ToolRequest['kind']> = new Map<string, ToolRequest['kind']>([
  ['mcp_approval_request', 'approval'],
  ['apply_patch_call', 'client-tool'],
  ['shell_call', 'client-tool'],
  ['local_shell_call', 'client-tool'],
  ['computer_call', 'client-tool'],
  ['tool_search_call', 'client-tool'],
]);

/**
 * The fields of a request item that are not its input: its ids, its type, where it is in its life
 * (`status`), who made it and how (`created_by`, `execution`), and the name, read apart.
 */
const NOT_INPUT: ReadonlySet<string> = new Set(['id', 'type', 'status', 'call_id', 'name', 'execution', 'created_by']);

/** The item types that may be a tool request: their `.added` event waits for the finished item. */
export const TOOL_REQUEST_ITEMS: ReadonlySet<string> = new Set(REQUEST_KINDS.keys());

/**
 * The request a finished output item holds, or undefined when it is no request: not one of
 * `TOOL_REQUEST_ITEMS`, run by OpenAI itself (a `shell_call` whose `environment` is a
 * `container_reference`, a `tool_search_call` whose `execution` is not `client`), or without an id
 * to answer it by. The id is the one the answer names: the item's `call_id` (an
 * `apply_patch_call_output`'s, a `shell_call_output`'s), the item's own `id` for an
 * `mcp_approval_request` (its approval's `approval_request_id`) or a call with no `call_id`. The
 * input is the item's other fields, copied (`arguments` and `server_label`, `operation`, `action`
 * and `environment`, `pending_safety_checks`): what the program needs to answer.
 *
 * @example
 * ```ts
 * const operation = { type: 'delete_file', path: 'a.ts' };
 * requestOf({ id: 'apc_1', type: 'apply_patch_call', call_id: 'call_1', status: 'completed', operation });
 * // { id: 'call_1', type: 'apply_patch_call', kind: 'client-tool', name: null, input: { operation } }
 * ```
 */
export function requestOf(item: JsonObject): ToolRequest | undefined {
  const type = item['type'];
  const kind = typeof type === 'string' ? REQUEST_KINDS.get(type) : undefined;
  if (kind === undefined || runByOpenAi(item)) return undefined;
  const id = (kind === 'approval' ? undefined : nonEmptyString(item['call_id'])) ?? nonEmptyString(item['id']);
  if (id === undefined) return undefined;
  const input: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(item)) if (!NOT_INPUT.has(key) && value !== undefined) input[key] = copyJson(value);
  return { id, type: type as string, kind, name: nonEmptyString(item['name']) ?? null, input };
}

function runByOpenAi(item: JsonObject): boolean {
  if (item['type'] === 'tool_search_call') return item['execution'] !== 'client';
  const environment = item['environment'];
  return item['type'] === 'shell_call' && isJsonObject(environment) && environment['type'] === 'container_reference';
}
