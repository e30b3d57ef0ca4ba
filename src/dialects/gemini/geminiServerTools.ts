import { ProtocolError } from '../../errors/errors.js';
import { ChatEvent, JsonValue } from '../../types/events.js';
import { copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { describeValue } from '../base/payloadValues.js';

/**
 * The parts of a Gemini reply that are server-side tools (`Part.toolCall`, then `Part.toolResponse`:
 * Google Search, URL context, Maps, file search run by Google when tools are combined): never a
 * function call, but parts the client must send back on the next turn, each with its response. Each
 * `toolCall` is a `provider-tool-call` (named by its `toolType`, type `toolCall`, input its `args`)
 * and each `toolResponse` the `provider-tool-result` of the call with its `id`, or else of the
 * earliest call of the candidate still without one; both in the order they came.
 *
 * @example
 * ```ts
 * const tools = new GeminiServerTools((event) => events.push(event), (what) => new ProtocolError(what));
 * tools.toolCall({ id: 't1', toolType: 'GOOGLE_SEARCH_WEB', args: { queries: ['rxjs'] } }, 0, 'parts[0].toolCall');
 * tools.toolResponse({ id: 't1', toolType: 'GOOGLE_SEARCH_WEB', response: { results: [] } }, 0, 'parts[1].toolResponse');
 * ```
 */
export class GeminiServerTools {
  /** Calls so far, for the ids the wire leaves out, and those of each candidate still without a response. */
  private calls = 0;
  private readonly awaiting = new Map<number, string[]>();

  constructor(
    private readonly emit: (event: ChatEvent) => void,
    private readonly fail: (what: string) => ProtocolError,
  ) {}

  /** A candidate finished: no response can follow for its calls. */
  finished(choice: number): void {
    this.awaiting.delete(choice);
  }

  /** `Part.toolCall` (`ToolCall {id?, toolType?, args?}`): a tool Google runs. */
  toolCall(call: unknown, choice: number, where: string): void {
    if (!isJsonObject(call)) throw this.fail(`${where} is not an object`);
    const id = this.optionalText(call['id'], `${where}.id`) ?? `server-tool-${this.calls}`;
    this.calls++;
    const name = this.optionalText(call['toolType'], `${where}.toolType`) ?? 'TOOL_TYPE_UNSPECIFIED';
    let waiting = this.awaiting.get(choice);
    if (waiting === undefined) this.awaiting.set(choice, (waiting = []));
    waiting.push(id);
    const input: JsonValue = call['args'] === undefined || call['args'] === null ? {} : copyJson(call['args']);
    this.emit({ type: 'provider-tool-call', choice, call: { id, name, type: 'toolCall', input } });
  }

  /** `Part.toolResponse` (`ToolResponse {id?, toolType?, response?}`): what the tool gave back. */
  toolResponse(response: unknown, choice: number, where: string): void {
    if (!isJsonObject(response)) throw this.fail(`${where} is not an object`);
    const waiting = this.awaiting.get(choice) ?? [];
    const named = this.optionalText(response['id'], `${where}.id`);
    const at = named === undefined ? 0 : waiting.indexOf(named);
    let id = named;
    if (at >= 0 && at < waiting.length) id = waiting.splice(at, 1)[0];
    if (id === undefined) id = `server-tool-${this.calls++}`;
    const result: JsonValue = response['response'] === undefined || response['response'] === null ? {} : copyJson(response['response']);
    this.emit({ type: 'provider-tool-result', choice, id, result });
  }

  private optionalText(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.fail(`${where} is ${describeValue(value)}, not text`);
    return nonEmptyString(value);
  }
}
