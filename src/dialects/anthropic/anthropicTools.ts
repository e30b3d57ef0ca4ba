import { ProtocolError } from '../../errors/errors.js';
import { FinishReason, JsonValue } from '../../types/events.js';
import { JsonObject, copyJson, excerpt, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { JsonDialectParser, MetadataPlace } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';

/** The block types of the tools Anthropic runs itself: its server tools, and the MCP connector's. */
const PROVIDER_TOOLS: ReadonlySet<string> = new Set(['server_tool_use', 'mcp_tool_use']);

/**
 * The fields this dialect reads in the block of a tool Anthropic runs and in a tool result block
 * (`type` names the kind); every other field is kept as `providerMetadata.anthropic` of the choice
 * (these are no calls of the client's): an `mcp_tool_use` block's `server_name`, an `mcp_tool_result`
 * block's `is_error`, a call's `caller`. Inside a result's `content`, copied whole, nothing is kept apart.
 */
const MAPPED_PROVIDER_TOOL: ReadonlySet<string> = new Set(['type', 'id', 'name', 'input']);
const MAPPED_TOOL_RESULT: ReadonlySet<string> = new Set(['type', 'tool_use_id', 'content']);

/** The reply's one choice: where a block keeps what it carries, unless it is a client's call. */
export const CHOICE: MetadataPlace = { choice: 0 };

/** A tool Anthropic runs itself, as its block streams: its input text so far. */
export interface ProviderToolBlock {
  readonly kind: 'provider_tool';
  /** The block's own type (`server_tool_use`, `mcp_tool_use`). */
  readonly type: string;
  open: boolean;
  readonly id: string;
  readonly name: string;
  /** The `input` of the block's start (a copy), taken when no delta brought any text. */
  readonly startInput: JsonValue;
  /** The `input_json_delta` pieces, joined. */
  input: string;
}

/**
 * The tools Anthropic runs on its side (web search, web fetch, code execution, tool search, MCP
 * connector tools): never calls for the client. A `server_tool_use` or `mcp_tool_use` block streams
 * its input as `input_json_delta` pieces like a client call, and becomes one `provider-tool-call` at
 * its `content_block_stop`, with the input parsed (`""` is the block start's `input`, as for a client
 * call). Every `*_tool_result` block with a `tool_use_id` (`web_search_tool_result`,
 * `code_execution_tool_result`, `mcp_tool_result`, ...) arrives whole and becomes a
 * `provider-tool-result` carrying a copy of its `content`.
 *
 * An input that does not parse can only be the end of a reply the token limit cut: nothing may follow
 * it but the finish. At a finish that normalizes to `length` the call is kept with its input as the
 * text that arrived (a string; it has no result: it never ran), since dropping it would lose what the
 * model wrote; at any other finish, or at another block, it is a `ProtocolError`.
 */
export abstract class AnthropicToolParser extends JsonDialectParser {
  /** A server tool whose input did not parse, until the finish says whether the token limit cut it. */
  private cut: { readonly block: ProviderToolBlock; readonly error: ProtocolError } | undefined = undefined;

  protected isProviderTool(type: string): boolean {
    return PROVIDER_TOOLS.has(type);
  }

  protected startProviderTool(type: string, block: JsonObject, where: string): ProviderToolBlock {
    const id = nonEmptyString(block['id']);
    if (id === undefined) throw this.protocolError(`${where} (${type}) has no id`, 'invalid-tool-call');
    const name = nonEmptyString(block['name']);
    if (name === undefined) throw this.protocolError(`${where} (${type}) has no name`, 'invalid-tool-call');
    const startInput = copyJson(this.blockInput(block, where) ?? {});
    this.keepUnmapped(block, MAPPED_PROVIDER_TOOL, CHOICE);
    return { kind: 'provider_tool', type, open: true, id, name, startInput, input: '' };
  }

  protected endProviderTool(block: ProviderToolBlock): void {
    const text = block.input;
    if (text.trim() === '') return this.emitProviderCall(block, block.startInput);
    let input: JsonValue;
    try {
      input = JSON.parse(text) as JsonValue;
    } catch (cause) {
      const what = `the input of ${block.type} ${excerpt(block.id)} (${block.name}) is not valid JSON: ${excerpt(text)}`;
      const error = new ProtocolError(`frame ${this.frameCount}: ${what}`, {
        reason: 'invalid-tool-call',
        cause,
        position: { event: this.frameCount },
      });
      this.cut = { block, error };
      return;
    }
    this.emitProviderCall(block, input);
  }

  /** A `*_tool_result` block with a `tool_use_id`: its `provider-tool-result`. False for any other block. */
  protected readToolResult(type: string, block: JsonObject): boolean {
    if (!type.endsWith('_tool_result')) return false;
    const id = nonEmptyString(block['tool_use_id']);
    if (id === undefined) return false;
    this.emit({ type: 'provider-tool-result', choice: 0, id, result: copyJson(block['content']) });
    this.keepUnmapped(block, MAPPED_TOOL_RESULT, CHOICE);
    return true;
  }

  /** A block after a server tool whose input did not parse: that input was broken, not cut. */
  protected refuseAfterCut(): void {
    if (this.cut !== undefined) throw this.cut.error;
  }

  /** At the finish: a server tool whose input did not parse is kept as text at `length`, else refused. */
  protected settleCutProviderTool(reason: FinishReason): void {
    const cut = this.cut;
    if (cut === undefined) return;
    if (reason !== 'length') throw cut.error;
    this.cut = undefined;
    this.emitProviderCall(cut.block, cut.block.input);
  }

  /** A block's `input`: an object, or undefined when null or absent; anything else is a `ProtocolError`. */
  protected blockInput(block: JsonObject, where: string): JsonObject | undefined {
    const input = block['input'];
    if (input === undefined || input === null) return undefined;
    if (!isJsonObject(input)) throw this.protocolError(`${where}.input is ${describeValue(input)}, not an object`);
    return input;
  }

  private emitProviderCall(block: ProviderToolBlock, input: JsonValue): void {
    this.emit({ type: 'provider-tool-call', choice: 0, call: { id: block.id, name: block.name, type: block.type, input } });
  }
}
