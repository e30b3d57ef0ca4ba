import { ProtocolError, ProtocolReason } from '../../errors/errors.js';
import { ChatEvent, JsonValue } from '../../types/events.js';
import { JsonObject, finiteNumber, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { PartialArgsWriter, PieceValue, parsePath } from './geminiPartialArgs.js';
import { describeValue } from '../base/payloadValues.js';

/** What the parts need of the parser: its events, its call numbering, its errors. */
export interface PartsHost {
  emit(event: ChatEvent): void;
  /** The dense index of a new call of `choice`. */
  newCall(choice: number): number;
  /** The id of a call the wire left without one. */
  callId(choice: number, index: number): string;
  serialize(value: unknown, where: string): string;
  fail(what: string, reason?: ProtocolReason): ProtocolError;
  /**
   * Keeps what a call's part and its `functionCall` carry beside the fields read, as the call's:
   * asked once per part, while the call is open, so that the call closes with them.
   */
  keepCallFields(part: JsonObject, call: JsonObject, choice: number, index: number): void;
}

/** A call whose arguments still stream: the id and name it opened with, and its text so far. */
interface OpenCall {
  readonly index: number;
  readonly id: string | undefined;
  readonly name: string;
  readonly args: PartialArgsWriter;
}

/**
 * The parts of a Gemini reply that are calls: `functionCall` (a call the program runs, whole or, on
 * Vertex AI with `streamFunctionCallArguments`, streamed) and code execution (`executableCode`,
 * then its `codeExecutionResult`: a tool the provider ran itself, never a function call).
 *
 * A streamed call opens with its name and `willContinue: true`; the parts that follow carry
 * `partialArgs` (each value at a JSON Path) and say `willContinue: true` until the last, which says
 * nothing or `false`, or is an empty `functionCall: {}`. Its arguments are written as JSON text while
 * they arrive (`PartialArgsWriter`): `tool-call-delta` events with that text, then `tool-call-end`.
 * A call the token limit cuts is left open, and the `length` finish keeps it as incomplete.
 */
export class GeminiParts {
  /** The call still streaming in each candidate. */
  private readonly open = new Map<number, OpenCall>();
  /** Code runs so far, for the ids the wire leaves out, and those of each candidate still without a result. */
  private codeRuns = 0;
  private readonly awaitingResult = new Map<number, string[]>();
  /** Where the part whose pieces are being written sits, for the messages of the writers. */
  private reading = '';

  constructor(private readonly host: PartsHost) {}

  /** How many calls still stream their arguments, for the message of a stream that stopped. */
  get openCount(): number {
    return this.open.size;
  }

  /** A candidate finished: a call still open stays as it was cut. */
  finished(choice: number): void {
    this.open.delete(choice);
    this.awaitingResult.delete(choice);
  }

  /** The `functionCall` of `part`: the events of the call it makes or continues, and the fields kept on that call. */
  functionCall(part: JsonObject, choice: number, where: string): void {
    const call = part['functionCall'];
    if (!isJsonObject(call)) throw this.host.fail(`${where} is not an object`);
    const more = call['willContinue'];
    if (more !== undefined && more !== null && typeof more !== 'boolean') {
      throw this.host.fail(`${where}.willContinue is ${describeValue(more)}, not a boolean`);
    }
    const pieces = call['partialArgs'];
    if (pieces !== undefined && pieces !== null && !Array.isArray(pieces)) throw this.host.fail(`${where}.partialArgs is not an array`);
    const open = this.open.get(choice);
    if (open !== undefined) return this.continueCall(open, part, call, choice, where);
    const name = nonEmptyString(call['name']);
    if (name === undefined) {
      throw this.host.fail(`${where}.name is ${describeValue(call['name'])}, not a function name`, 'invalid-tool-call');
    }
    if (more === true || (Array.isArray(pieces) && pieces.length > 0)) return this.openCall(part, call, name, choice, where);
    this.wholeCall(part, call, name, choice, where);
  }

  /** A call that comes whole: its arguments are an object, serialized once, and it closes at once. */
  private wholeCall(part: JsonObject, call: JsonObject, name: string, choice: number, where: string): void {
    const args = call['args'];
    if (args !== undefined && args !== null && !isJsonObject(args))
      throw this.host.fail(`${where}.args is ${describeValue(args)}, not an object`);
    const index = this.host.newCall(choice);
    const id = nonEmptyString(call['id']) ?? this.host.callId(choice, index);
    this.host.emit({ type: 'tool-call-delta', choice, index, id, name, arguments: this.host.serialize(args ?? {}, `${where}.args`) });
    this.host.keepCallFields(part, call, choice, index);
    this.host.emit({ type: 'tool-call-end', choice, index });
  }

  /** The first part of a streamed call: its name, maybe its first pieces. */
  private openCall(part: JsonObject, call: JsonObject, name: string, choice: number, where: string): void {
    const index = this.host.newCall(choice);
    const wireId = nonEmptyString(call['id']);
    // The writer's errors name the part being read, which is not always the one that opened the call.
    const open: OpenCall = { index, id: wireId, name, args: new PartialArgsWriter((what) => this.host.fail(`${this.reading}: ${what}`)) };
    this.open.set(choice, open);
    const text = open.args.begin() + this.pieces(open, call, where);
    this.host.emit({ type: 'tool-call-delta', choice, index, id: wireId ?? this.host.callId(choice, index), name, arguments: text });
    this.host.keepCallFields(part, call, choice, index);
    if (call['willContinue'] !== true) this.close(open, choice, '');
  }

  /** A later part of the call still open: more pieces, and the end unless it says it goes on. */
  private continueCall(open: OpenCall, part: JsonObject, call: JsonObject, choice: number, where: string): void {
    const name = nonEmptyString(call['name']);
    const id = nonEmptyString(call['id']);
    if ((name !== undefined && name !== open.name) || (id !== undefined && open.id !== undefined && id !== open.id)) {
      throw this.host.fail(
        `${where} starts a call while call ${open.index} (${open.name}) still streams its arguments`,
        'invalid-tool-call',
      );
    }
    const text = this.pieces(open, call, where);
    if (call['willContinue'] === true) {
      if (text !== '') this.host.emit({ type: 'tool-call-delta', choice, index: open.index, arguments: text });
      this.host.keepCallFields(part, call, choice, open.index);
    } else {
      this.host.keepCallFields(part, call, choice, open.index);
      this.close(open, choice, text);
    }
  }

  private close(open: OpenCall, choice: number, text: string): void {
    this.open.delete(choice);
    this.host.emit({ type: 'tool-call-delta', choice, index: open.index, arguments: text + open.args.end() });
    this.host.emit({ type: 'tool-call-end', choice, index: open.index });
  }

  /** The text of a part's `args` members (written whole) and `partialArgs` pieces, in order. */
  private pieces(open: OpenCall, call: JsonObject, where: string): string {
    this.reading = where;
    let text = '';
    const args = call['args'];
    if (isJsonObject(args)) {
      for (const key of Object.keys(args)) {
        text += open.args.put([key], { kind: 'json', json: this.host.serialize(args[key], `${where}.args`) });
      }
    } else if (args !== undefined && args !== null) {
      throw this.host.fail(`${where}.args is ${describeValue(args)}, not an object`);
    }
    const pieces = call['partialArgs'];
    if (!Array.isArray(pieces)) return text;
    for (let k = 0; k < pieces.length; k++) {
      const piece = pieces[k];
      const at = `${where}.partialArgs[${k}]`;
      if (!isJsonObject(piece)) throw this.host.fail(`${at} is not an object`);
      const path = typeof piece['jsonPath'] === 'string' ? parsePath(piece['jsonPath']) : undefined;
      if (path === undefined) throw this.host.fail(`${at}.jsonPath is ${describeValue(piece['jsonPath'])}, not a JSON Path to one value`);
      const value = this.pieceValue(piece, at);
      if (value !== undefined) text += open.args.put(path, value);
    }
    return text;
  }

  /** A piece's value (`stringValue`, `numberValue`, `boolValue`, `nullValue`); undefined when it has none. */
  private pieceValue(piece: JsonObject, where: string): PieceValue | undefined {
    const string = piece['stringValue'];
    if (string !== undefined && string !== null) {
      if (typeof string !== 'string') throw this.host.fail(`${where}.stringValue is ${describeValue(string)}, not text`);
      return { kind: 'string', text: string, more: piece['willContinue'] === true };
    }
    const number = piece['numberValue'];
    if (number !== undefined && number !== null) {
      if (finiteNumber(number) === undefined) throw this.host.fail(`${where}.numberValue is ${describeValue(number)}, not a finite number`);
      return { kind: 'json', json: JSON.stringify(number) };
    }
    const bool = piece['boolValue'];
    if (bool !== undefined && bool !== null) {
      if (typeof bool !== 'boolean') throw this.host.fail(`${where}.boolValue is ${describeValue(bool)}, not a boolean`);
      return { kind: 'json', json: String(bool) };
    }
    // `NullValue` is written `null` by proto3 JSON, `"NULL_VALUE"` by the SDKs' types: the key says it.
    return Object.prototype.hasOwnProperty.call(piece, 'nullValue') ? { kind: 'json', json: 'null' } : undefined;
  }

  /** `executableCode`: code the provider runs itself (`provider-tool-call`, name `code_execution`). */
  executableCode(code: unknown, choice: number, where: string): void {
    if (!isJsonObject(code)) throw this.host.fail(`${where} is not an object`);
    const input: { [key: string]: JsonValue } = {};
    const language = this.string(code['language'], `${where}.language`);
    if (language !== undefined) input['language'] = language;
    input['code'] = this.string(code['code'], `${where}.code`) ?? '';
    const id = nonEmptyString(code['id']) ?? `code-execution-${this.codeRuns}`;
    this.codeRuns++;
    let waiting = this.awaitingResult.get(choice);
    if (waiting === undefined) this.awaitingResult.set(choice, (waiting = []));
    waiting.push(id);
    this.host.emit({ type: 'provider-tool-call', choice, call: { id, name: 'code_execution', type: 'executableCode', input } });
  }

  /**
   * `codeExecutionResult`: the result of the code with its `id`, or else of the earliest code of
   * the candidate still without one (Google: a result always follows its code).
   */
  codeExecutionResult(result: unknown, choice: number, where: string): void {
    if (!isJsonObject(result)) throw this.host.fail(`${where} is not an object`);
    const value: { [key: string]: JsonValue } = {};
    const outcome = this.string(result['outcome'], `${where}.outcome`);
    if (outcome !== undefined) value['outcome'] = outcome;
    const output = this.string(result['output'], `${where}.output`);
    if (output !== undefined) value['output'] = output;
    const waiting = this.awaitingResult.get(choice) ?? [];
    const named = nonEmptyString(result['id']);
    const at = named === undefined ? 0 : waiting.indexOf(named);
    let id = named;
    if (at >= 0 && at < waiting.length) id = waiting.splice(at, 1)[0];
    if (id === undefined) id = `code-execution-${this.codeRuns++}`;
    this.host.emit({ type: 'provider-tool-result', choice, id, result: value });
  }

  private string(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.host.fail(`${where} is ${describeValue(value)}, not text`);
    return value;
  }
}
