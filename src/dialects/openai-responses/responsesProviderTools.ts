import { JsonValue, ProviderToolCall } from '../../types/events.js';
import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';

/** A built-in tool the provider ran, read from its finished output item. */
export interface ProviderToolItem {
  readonly call: Omit<ProviderToolCall, 'at'>;
  /** What the tool gave back, or undefined when the item holds no result (a search without its sources). */
  readonly result: JsonValue | undefined;
}

/** What one type of tool item gives: the tool's name, what it was given, what it gave back. */
interface ToolParts {
  readonly name: string;
  readonly input: JsonValue;
  readonly result: JsonValue | undefined;
}

/**
 * How one tool's finished item is read: `read` gives its name, input and result; `mapped` lists the
 * item's fields it reads, or knows to carry nothing (`type`; `status`, in_progress then completed),
 * the others being kept on the choice. Without `mapped`, the item is read whole.
 */
interface ToolReader {
  readonly read: (item: JsonObject) => ToolParts;
  readonly mapped?: ReadonlySet<string>;
}

/**
 * The output items of tools that OpenAI runs itself, each with the reader of its finished item. The
 * other built-in tools (`computer_call`, `local_shell_call`, `apply_patch_call`, a `shell_call` of a
 * local shell) are run by the program, and MCP approval requests wait for it: none of those is here.
 */
const READERS: ReadonlyMap<string, ToolReader> = new Map<string, ToolReader>([
  ['web_search_call', { read: webSearch, mapped: new Set(['id', 'type', 'status', 'action']) }],
  [
    'file_search_call',
    {
      read: (item: JsonObject) => ({ name: 'file_search', input: pick(item, ['queries']), result: present(item['results']) }),
      mapped: new Set(['id', 'type', 'status', 'queries', 'results']),
    },
  ],
  [
    'code_interpreter_call',
    {
      read: (item: JsonObject) => ({
        name: 'code_interpreter',
        input: pick(item, ['code', 'container_id']),
        result: present(item['outputs']),
      }),
      mapped: new Set(['id', 'type', 'status', 'code', 'container_id', 'outputs']),
    },
  ],
  [
    'image_generation_call',
    // Beside the image, the item says how it was asked for (revised_prompt, size, quality, ...): all input.
    {
      read: (item: JsonObject) => ({
        name: 'image_generation',
        input: omit(item, ['id', 'type', 'status', 'result']),
        result: present(item['result']),
      }),
    },
  ],
  ['mcp_call', { read: mcpCall, mapped: new Set(['id', 'type', 'status', 'name', 'server_label', 'arguments', 'output', 'error']) }],
]);

/** The item types of the tools OpenAI runs itself (`web_search_call`, `code_interpreter_call`, ...). */
export const PROVIDER_TOOL_ITEMS: ReadonlySet<string> = new Set(READERS.keys());

/**
 * The fields of a built-in tool's item that its reader reads, or undefined when it reads the item
 * whole (`image_generation_call`, whose every other field says how the image was asked for) or the
 * type is not one of `PROVIDER_TOOL_ITEMS`.
 */
export function providerToolMapped(type: string): ReadonlySet<string> | undefined {
  return READERS.get(type)?.mapped;
}

/**
 * The call and result a finished built-in tool item holds, or undefined when it is not the item of a
 * tool the provider runs, or has no id to join its result by. Every value is copied: the payload it
 * came from is overwritten by the next one (see `JsonTemplateParser`).
 *
 * - `web_search_call`: input the `action` (`search` with its query, `open_page`, `find_in_page`)
 *   without its `sources`, which are the result;
 * - `file_search_call`: input `{queries}`, result the `results` (sent only when the request includes
 *   them);
 * - `code_interpreter_call`: input `{code, container_id}`, result the `outputs` (logs, images);
 * - `image_generation_call`: input the item's other fields (`revised_prompt`, `size`, ...), result
 *   the base64 image;
 * - `mcp_call`: named by the MCP tool, input `{server_label, arguments}` (the arguments as sent, a
 *   JSON string), result the `output`, or `{error}` when the call failed.
 */
export function providerToolItem(item: JsonObject): ProviderToolItem | undefined {
  const type = item['type'];
  const reader = typeof type === 'string' ? READERS.get(type) : undefined;
  const id = nonEmptyString(item['id']);
  if (reader === undefined || id === undefined) return undefined;
  const { name, input, result } = reader.read(item);
  return { call: { id, name, type: type as string, input }, result };
}

function webSearch(item: JsonObject): ToolParts {
  const action = item['action'];
  if (!isJsonObject(action)) return { name: 'web_search', input: {}, result: undefined };
  return { name: 'web_search', input: omit(action, ['sources']), result: present(action['sources']) };
}

function mcpCall(item: JsonObject): ToolParts {
  const error = present(item['error']);
  return {
    name: nonEmptyString(item['name']) ?? 'mcp',
    input: pick(item, ['server_label', 'arguments']),
    result: error !== undefined ? { error } : present(item['output']),
  };
}

/** A copy of the value, or undefined when it is absent or null (the item holds nothing there). */
function present(value: unknown): JsonValue | undefined {
  return value === undefined || value === null ? undefined : copyJson(value);
}

/** A copy of the named fields of `object` that it has. */
function pick(object: JsonObject, fields: readonly string[]): JsonValue {
  const picked: { [key: string]: JsonValue } = {};
  for (const field of fields) if (object[field] !== undefined) picked[field] = copyJson(object[field]);
  return picked;
}

/** A copy of `object` without the named fields. */
function omit(object: JsonObject, fields: readonly string[]): JsonValue {
  const copy = copyJson(object) as { [key: string]: JsonValue };
  for (const field of fields) delete copy[field];
  return copy;
}
