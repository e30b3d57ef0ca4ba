import { ProtocolError } from '../../errors/errors.js';
import { ChatEvent, JsonValue } from '../../types/events.js';
import { JsonObject, copyJson, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { describeValue } from '../base/payloadValues.js';

/** A call the server ran, until its `functionResponse` comes: its id, and the name a response may answer by. */
interface RunningCall {
  readonly id: string;
  readonly wireId: string | undefined;
  readonly name: string;
}

/**
 * Function calls the Gemini API runs itself: a server-side MCP tool (`Tool.mcpServers`). The API
 * makes the call, finishes the candidate in that same chunk (`STOP`, finishMessage "Model generated
 * function call(s)."), runs the tool, and the stream goes on: the next chunk gives the tool's result
 * as a `functionResponse` part of the same candidate, then come the answer and the last finish.
 * A reply sends `functionResponse` parts for no other reason.
 *
 * So the chunk that finishes a candidate with a whole call in it is held (`finishesWithCall`) and
 * read when the next frame shows what it was (`answered`): when that frame is a chunk whose same
 * candidate has a `functionResponse` part, the held chunk's whole calls of that candidate are the
 * server's (`call`: `provider-tool-call`, type `functionCall`, input its `args`) and its finish was
 * not the last; otherwise, or when the stream ends there, the held chunk reads as any other: calls
 * for the program, and the finish that ends the reply. Each `functionResponse` is the
 * `provider-tool-result` of the call it names (`answer`: the call with its `id`; else the earliest
 * call of its `name` still without a result, one without an id first).
 *
 * @example
 * ```ts
 * const calls = new GeminiServerCalls((event) => events.push(event), (what) => new ProtocolError(what));
 * const held = { candidates: [{ content: { parts: [{ functionCall: { name: 'get_weather', args: {} } }] }, finishReason: 'STOP' }] };
 * GeminiServerCalls.finishesWithCall(held); // true: held until the next frame
 * GeminiServerCalls.answered('{"candidates":[{"content":{"parts":[{"functionResponse":{"name":"get_weather"}}]}}]}'); // Set {0}
 * calls.call({ name: 'get_weather', args: {} }, 0, 'r1', 'parts[0].functionCall'); // provider-tool-call r1-server-call-0
 * calls.answer({ name: 'get_weather', response: { temp: 20 } }, 0, 'parts[0].functionResponse'); // its provider-tool-result: true
 * ```
 */
export class GeminiServerCalls {
  /** Calls the server ran in each candidate so far, for the ids the wire leaves out. */
  private readonly counts = new Map<number, number>();
  /** The calls of each candidate still without their result. */
  private readonly running = new Map<number, RunningCall[]>();

  constructor(
    private readonly emit: (event: ChatEvent) => void,
    private readonly fail: (what: string) => ProtocolError,
  ) {}

  /** Whether a chunk finishes a candidate that makes a whole call in it: the chunk a server-run call comes in. */
  static finishesWithCall(chunk: JsonObject): boolean {
    const candidates = chunk['candidates'];
    if (!Array.isArray(candidates)) return false;
    return candidates.some((candidate) => {
      if (!isJsonObject(candidate) || typeof candidate['finishReason'] !== 'string') return false;
      const parts = isJsonObject(candidate['content']) ? candidate['content']['parts'] : undefined;
      return Array.isArray(parts) && parts.some((part) => isJsonObject(part) && isWholeCall(part['functionCall']));
    });
  }

  /**
   * The candidates a frame's data answers with a `functionResponse` part: those whose calls, in the
   * chunk held before it, the server ran. Data that is not such a chunk answers none.
   */
  static answered(data: string): Set<number> {
    const answered = new Set<number>();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return answered;
    }
    const candidates = isJsonObject(chunk) ? chunk['candidates'] : undefined;
    if (!Array.isArray(candidates)) return answered;
    for (const candidate of candidates as unknown[]) {
      if (!isJsonObject(candidate)) continue;
      const parts = isJsonObject(candidate['content']) ? candidate['content']['parts'] : undefined;
      if (!Array.isArray(parts) || !parts.some((part) => isJsonObject(part) && isJsonObject(part['functionResponse']))) continue;
      // A candidate without an index is the first, as the parser reads it.
      const index = candidate['index'];
      answered.add(typeof index === 'number' ? index : 0);
    }
    return answered;
  }

  /** Whether `part` makes a whole call (a name, arguments that do not stream). */
  static isWholeCall(part: JsonObject): boolean {
    return isWholeCall(part['functionCall']);
  }

  /** A whole `functionCall` the server runs: a `provider-tool-call`, named `${prefix}-server-call-${n}` when the wire names none. */
  call(call: JsonObject, choice: number, prefix: string, where: string): void {
    const n = this.counts.get(choice) ?? 0;
    this.counts.set(choice, n + 1);
    const wireId = nonEmptyString(call['id']);
    const id = wireId ?? `${prefix}-server-call-${n}`;
    const name = nonEmptyString(call['name']) ?? '';
    let running = this.running.get(choice);
    if (running === undefined) this.running.set(choice, (running = []));
    running.push({ id, wireId, name });
    const args = call['args'];
    if (args !== undefined && args !== null && !isJsonObject(args))
      throw this.fail(`${where}.args is ${describeValue(args)}, not an object`);
    const input: JsonValue = isJsonObject(args) ? copyJson(args) : {};
    this.emit({ type: 'provider-tool-call', choice, call: { id, name, type: 'functionCall', input } });
  }

  /**
   * A `functionResponse`: the `provider-tool-result` of the server's call it names. False when it
   * names none (it is then a part this dialect does not read).
   */
  answer(response: unknown, choice: number, where: string): boolean {
    if (!isJsonObject(response)) return false;
    const running = this.running.get(choice);
    if (running === undefined || running.length === 0) return false;
    const id = this.optionalText(response['id'], `${where}.id`);
    const name = this.optionalText(response['name'], `${where}.name`);
    // The id a call carries is the one its response gives back: a response without one answers a call without one first.
    let at = id === undefined ? -1 : running.findIndex((call) => call.wireId === id);
    if (at < 0) at = running.findIndex((call) => call.name === name && call.wireId === undefined);
    if (at < 0 && id === undefined) at = running.findIndex((call) => call.name === name);
    if (at < 0) return false;
    const call = running.splice(at, 1)[0]!;
    const result = response['response'];
    this.emit({
      type: 'provider-tool-result',
      choice,
      id: call.id,
      result: result === undefined || result === null ? {} : copyJson(result),
    });
    return true;
  }

  private optionalText(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.fail(`${where} is ${describeValue(value)}, not text`);
    return nonEmptyString(value);
  }
}

/** A `functionCall` that comes whole: a name, and no sign of arguments that stream (Vertex AI's `partialArgs`). */
function isWholeCall(call: unknown): boolean {
  if (!isJsonObject(call) || nonEmptyString(call['name']) === undefined) return false;
  const more = call['willContinue'];
  const pieces = call['partialArgs'];
  return (
    (more === undefined || more === null || more === false) &&
    (pieces === undefined || pieces === null || (Array.isArray(pieces) && pieces.length === 0))
  );
}
