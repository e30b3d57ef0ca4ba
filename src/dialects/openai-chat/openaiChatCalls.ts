import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { isThoughtSignature } from './thoughtSignature.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue, isIndex } from '../base/payloadValues.js';

/** The id given to a legacy `function_call`, which has none on the wire. */
const LEGACY_FUNCTION_CALL_ID = 'function_call';

/** The fields of a tool-call fragment this dialect reads; any other is kept as the call's provider metadata. */
export const MAPPED_CALL: ReadonlySet<string> = new Set(['index', 'id', 'type', 'function', 'custom']);

/** How one choice's tool-call fragments map to dense call indices. */
class ToolCallIndex {
  readonly byProviderIndex = new Map<number, number>();
  readonly byId = new Map<string, number>();
  /** The id of each dense call, once a fragment named it. */
  readonly ids = new Map<number, string>();
  last = -1;
  highestProviderIndex = -1;
}

/** One fragment of `delta.tool_calls[]`, read. */
interface Fragment {
  readonly providerIndex: number | undefined;
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly text: string;
  readonly custom: boolean;
}

/**
 * The tool-call half of the `openai-chat` dialect: `delta.tool_calls[]` fragments, function calls
 * (`function: {name, arguments}`) and custom ones (`type: "custom"`, `custom: {name, input}`, whose
 * input is raw text), numbered densely per choice. In OpenAI's format the `index` names a call;
 * servers that leave it out, or that send every whole call at index 0, are read as well (see
 * `callIndex`).
 */
export abstract class OpenAiChatCallReader extends JsonDialectParser {
  /** Made at the first call: most replies make none, and a gateway holds thousands of streams open. */
  private toolCalls: Map<number, ToolCallIndex> | undefined = undefined;

  /** Reads `choices[position].delta.tool_calls` of `choice`. */
  protected readToolCalls(toolCalls: unknown, choice: number, position: number): void {
    if (Array.isArray(toolCalls)) {
      for (let k = 0; k < toolCalls.length; k++) this.readToolCall(toolCalls[k], choice, position, k);
    } else if (toolCalls !== undefined && toolCalls !== null) {
      throw this.protocolError(`choices[${position}].delta.tool_calls is not an array`);
    }
  }

  /**
   * Reads `choices[position].delta.function_call`, the format before `tool_calls` (one call per
   * choice: `{name, arguments}` pieces, finish `function_call`). It has no id, and its answer is sent
   * back by name: the call gets the id `function_call`.
   */
  protected readFunctionCall(raw: unknown, choice: number, position: number): void {
    if (raw === undefined || raw === null) return;
    const where = `choices[${position}].delta.function_call`;
    if (!isJsonObject(raw)) throw this.protocolError(`${where} is not an object`);
    const name = nonEmptyString(raw['name']);
    const text = this.text(raw['arguments'], where, 'arguments') ?? '';
    const fragment: Fragment = { providerIndex: undefined, id: LEGACY_FUNCTION_CALL_ID, name, text, custom: false };
    const index = this.callIndex(this.callsOf(choice), choice, fragment, position, 0);
    const type = 'tool-call-delta';
    const id = LEGACY_FUNCTION_CALL_ID;
    this.emit(name === undefined ? { type, choice, index, id, arguments: text } : { type, choice, index, id, name, arguments: text });
  }

  private readToolCall(entry: unknown, choice: number, position: number, k: number): void {
    const fragment = this.fragment(entry, position, k);
    const calls = this.callsOf(choice);
    const index = this.callIndex(calls, choice, fragment, position, k);
    this.emitFragment(fragment, choice, index);
    const extra = (entry as JsonObject)['extra_content'];
    if (extra !== undefined) this.readCallExtraContent(extra, choice, index);
    // Checked by `fragment`: an object. Kept after the fragment's event, for the call it names.
    if (this.keeping) this.keepUnmapped(entry as JsonObject, MAPPED_CALL, { choice, call: index });
  }

  /** Gemini's thought signature on a call goes back on that call: an opaque item of the call. */
  private readCallExtraContent(extra: unknown, choice: number, index: number): void {
    if (!isThoughtSignature(extra)) return;
    const item = {
      provider: 'google',
      kind: 'signature',
      type: 'extra_content',
      part: 'tool-call',
      call: index,
      data: copyJson(extra),
    } as const;
    this.emit({ type: 'opaque-item', choice, item });
  }

  private emitFragment(fragment: Fragment, choice: number, index: number): void {
    const { id, name, text } = fragment;
    const type = 'tool-call-delta';
    // Every fragment of a custom call carries `custom` (its `input` piece), and says so.
    if (fragment.custom) {
      this.emit({
        type,
        choice,
        index,
        ...(id === undefined ? {} : { id }),
        ...(name === undefined ? {} : { name }),
        arguments: text,
        kind: 'custom',
      });
      return;
    }
    // `id` and `name` appear only as this piece had them: absent, not undefined-valued. Written out
    // per shape: spreading optional parts would build throwaway objects for every fragment.
    if (id === undefined) {
      this.emit(name === undefined ? { type, choice, index, arguments: text } : { type, choice, index, name, arguments: text });
    } else {
      this.emit(name === undefined ? { type, choice, index, id, arguments: text } : { type, choice, index, id, name, arguments: text });
    }
  }

  /**
   * A fragment's index, id, name and text: `function.arguments`, or `custom.input` for a custom call.
   * It is `choices[position].delta.tool_calls[k]`, a path built only for an error message: this runs
   * for every fragment.
   */
  private fragment(entry: unknown, position: number, k: number): Fragment {
    if (!isJsonObject(entry)) throw this.protocolError(`${toolCallPath(position, k)} is not an object`);
    const rawIndex = entry['index'];
    let providerIndex: number | undefined;
    if (rawIndex === undefined || rawIndex === null) {
      if (this.strict) throw this.protocolError(`${toolCallPath(position, k)} has no index`, 'strict');
    } else {
      providerIndex = isIndex(rawIndex) ? rawIndex : this.index(rawIndex, `${toolCallPath(position, k)}.index`, 'a tool-call index');
    }
    const customBody = entry['custom'];
    const custom = entry['type'] === 'custom' || (customBody !== undefined && customBody !== null);
    const field = custom ? 'custom' : 'function';
    const body = entry[field];
    if (body !== undefined && body !== null && !isJsonObject(body))
      throw this.protocolError(`${toolCallPath(position, k)}.${field} is not an object`);
    const id = nonEmptyString(entry['id']);
    const name = body ? nonEmptyString(body['name']) : undefined;
    const raw = body ? body[custom ? 'input' : 'arguments'] : undefined;
    let text: string;
    if (typeof raw === 'string') text = raw;
    else if (raw === undefined || raw === null) text = '';
    // Some servers send whole calls with the arguments as an object: serialize, never concatenate.
    // A custom call's input is text the model wrote: anything else would be text made up here.
    else if (typeof raw === 'object' && !custom) text = this.serialize(raw, `${toolCallPath(position, k)}.function.arguments`);
    else
      throw this.protocolError(`${toolCallPath(position, k)}.${custom ? 'custom.input' : 'function.arguments'} is ${describeValue(raw)}`);
    return { providerIndex, id, name, text, custom };
  }

  private callsOf(choice: number): ToolCallIndex {
    const toolCalls = (this.toolCalls ??= new Map());
    let calls = toolCalls.get(choice);
    if (calls === undefined) {
      calls = new ToolCallIndex();
      toolCalls.set(choice, calls);
    }
    return calls;
  }

  /**
   * Finds the dense index of the call a fragment belongs to. In OpenAI's format the `index` names
   * the call: a known index continues its call, an unseen one starts a new call even when its id
   * was seen before (two calls may share an id). One quirk is absorbed: servers that send every
   * whole call at index 0 give each a new id, so a known index whose call has another id starts a
   * new call. Without an index (Mistral, Gemini's compatible endpoint), a non-empty id seen before
   * continues its call, and otherwise a named fragment starts a new call and a nameless one
   * continues the latest.
   */
  private callIndex(calls: ToolCallIndex, choice: number, fragment: Fragment, position: number, k: number): number {
    const { providerIndex, id, name } = fragment;
    let index: number | undefined;
    if (providerIndex !== undefined) {
      index = calls.byProviderIndex.get(providerIndex);
      if (index === undefined) this.checkNotSkipping(calls, providerIndex, position, k);
      else if (id !== undefined && calls.ids.has(index) && calls.ids.get(index) !== id) index = undefined;
    } else if (id !== undefined) {
      index = calls.byId.get(id);
    } else if (name === undefined) {
      if (calls.last < 0)
        throw this.protocolError(`${toolCallPath(position, k)} belongs to no call: it has no index, id or name`, 'invalid-tool-call');
      index = calls.last;
    }
    if (index === undefined) index = this.newCall(choice);
    if (providerIndex !== undefined && calls.byProviderIndex.get(providerIndex) !== index) {
      calls.byProviderIndex.set(providerIndex, index);
      if (providerIndex > calls.highestProviderIndex) calls.highestProviderIndex = providerIndex;
    }
    if (id !== undefined) {
      if (!calls.ids.has(index)) calls.ids.set(index, id);
      if (!calls.byId.has(id)) calls.byId.set(id, index);
    }
    calls.last = index;
    return index;
  }

  /** An unseen provider index must be the next one; only the first may be sparse (a gateway's `index: 1`), unless strict. */
  private checkNotSkipping(calls: ToolCallIndex, providerIndex: number, position: number, k: number): void {
    const expected = calls.highestProviderIndex + 1;
    const firstMayBeSparse = !this.strict && calls.highestProviderIndex < 0;
    if (providerIndex > expected && !firstMayBeSparse) {
      throw this.protocolError(
        `${toolCallPath(position, k)}.index ${providerIndex} skips ahead: the next call would be ${expected}`,
        'invalid-tool-call',
      );
    }
  }
}

/** Where a tool-call fragment sits in its chunk, for error messages. */
function toolCallPath(position: number, k: number): string {
  return `choices[${position}].delta.tool_calls[${k}]`;
}
