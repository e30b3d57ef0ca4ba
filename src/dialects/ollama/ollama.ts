import { SseFrame } from '../../frames/SseParser.js';
import { TokenLogprob } from '../../types/events.js';
import { JsonObject, finiteNumber, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { defineDialect } from '../Dialect.js';
import { payloadMentioning } from '../base/finalFrames.js';
import { JsonDialectParser } from '../base/JsonDialectParser.js';
import { describeValue } from '../base/payloadValues.js';
import { buildUsage } from '../base/usage.js';

/**
 * The fields this dialect reads at each level of a line, or knows to carry nothing. Every other field
 * is kept as `providerMetadata.ollama` of the reply (line), of the choice (message) or of the call:
 * the `done` line's `total_duration`, `load_duration`, `prompt_eval_duration` and `eval_duration`,
 * `/api/generate`'s `context` (the tokens to send back for the next turn), and whatever a newer server
 * adds.
 *
 * `created_at` is the time each line was written: it changes on every line and says nothing of the
 * reply that the line's own place in the stream does not, so it is known and carries nothing (kept,
 * its last value would be the time of the `done` line, sent again with every line of the stream).
 */
const MAPPED_LINE: ReadonlySet<string> = new Set([
  'model',
  'created_at',
  'message',
  'response',
  'thinking',
  'logprobs',
  'done',
  'done_reason',
  'prompt_eval_count',
  'eval_count',
]);
/** `message`: `role` is always the assistant's. */
const MAPPED_MESSAGE: ReadonlySet<string> = new Set(['role', 'content', 'thinking', 'tool_calls']);
/** An entry of `message.tool_calls`: `type` is always `function`, the one kind of call Ollama makes. */
const MAPPED_CALL: ReadonlySet<string> = new Set(['id', 'type', 'function']);
/**
 * A call's `function`: `index` is the call's position in the message's list, which the dense index the
 * dialect gives every call replaces.
 */
const MAPPED_FUNCTION: ReadonlySet<string> = new Set(['index', 'name', 'arguments']);

/**
 * Ollama's native stream, `/api/chat` and `/api/generate`: newline-delimited JSON (framed by
 * `ndjsonFrames`, one frame per line), each line
 * `{model, created_at, message: {role, content, thinking?, tool_calls?}, done, done_reason?, ...}`
 * (`/api/generate` has `response` and `thinking` at the top level instead of `message`). There is no
 * `[DONE]` and no response id: the line with `"done": true` ends the reply and carries the
 * `done_reason` and the token counts.
 *
 * `thinking` is reasoning, `content` (or `response`) is answer text, and each entry of `tool_calls` is
 * one whole call whose `function.arguments` is an object: a `tool-call-delta` with the arguments
 * serialized, then `tool-call-end`. Calls are numbered densely in order of arrival, across lines.
 * `logprobs` (sent when the request asks for them: `[{token, logprob, bytes?, top_logprobs?}]` per
 * line, the tokens of that line) is a `logprobs` event in OpenAI's shape (`bytes` null when absent).
 *
 * Events of one line come in this order: `start` (at the first line that names a model, with id
 * `''`: the format has no id), `reasoning`, `content`, `logprobs`, per call `tool-call-delta` and
 * `tool-call-end`; on the `done` line then `finish`, `usage` and `done`. A line with neither
 * `message`, `response` nor `done` is, with `unknownEvents`, an `unknown` event. Lines after the
 * `done` line are ignored (under `strict`, a `ProtocolError`).
 *
 * Fields this dialect does not read are kept as `providerMetadata.ollama` where they arrived: of the
 * reply (a line's, as the `done` line's durations), of the choice (`message`'s) or of the call (its
 * entry's and its `function`'s); `created_at`, the time of each line, is not kept.
 *
 * Call ids: a call without an `id` (older servers send none) gets `ollama-call-${index}`, `index` being its
 * dense position, which is stable for the stream.
 *
 * Finish: `done_reason` `stop` is `stop`, or `tool_calls` when the reply made calls (Ollama has no
 * tool-call reason); `length` is `length`; `load`, `unload` and unknown values are `other`; a `done`
 * line without `done_reason` (old servers) counts as `stop`. Usage: `prompt_eval_count` is the prompt,
 * `eval_count` the completion (thinking included), the total their sum when both came. An
 * `{"error": "..."}` line is a `ProviderError`.
 *
 * @example
 * ```ts
 * import { decodeUtf8, ndjsonFrames, assembleChunks, ollama } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), ndjsonFrames(), assembleChunks({ dialect: ollama }));
 * ```
 */
export class OllamaParser extends JsonDialectParser {
  protected readonly endSignal = 'a "done": true line';
  protected override readonly provider = 'ollama';
  protected override readonly endedBy = 'the "done": true line';
  protected override readonly unit = 'line';
  private started = false;

  protected read(line: JsonObject, frame: SseFrame): void {
    if (line['message'] === undefined && line['response'] === undefined && line['done'] === undefined) {
      this.unknown(line, frame);
      return;
    }
    this.readLine(line);
  }

  private readLine(line: JsonObject): void {
    // The format names no id: the stream identifies itself by its model, whenever that first appears.
    const model = nonEmptyString(line['model']);
    if (!this.started && model !== undefined) {
      this.started = true;
      this.emit({ type: 'start', id: '', model });
    }
    const message = line['message'];
    if (isJsonObject(message)) {
      this.readText(message['thinking'], 'message.thinking', 'reasoning');
      this.readText(message['content'], 'message.content', 'content');
      const calls = message['tool_calls'];
      if (Array.isArray(calls)) {
        for (let k = 0; k < calls.length; k++) this.readToolCall(calls[k], `message.tool_calls[${k}]`);
      } else if (calls !== undefined && calls !== null) {
        throw this.protocolError('message.tool_calls is not an array');
      }
      this.keepUnmapped(message, MAPPED_MESSAGE, { choice: 0 });
    } else if (message !== undefined && message !== null) {
      throw this.protocolError('message is not an object');
    }
    // `/api/generate` puts the text at the top level.
    this.readText(line['thinking'], 'thinking', 'reasoning');
    this.readText(line['response'], 'response', 'content');
    this.readLogprobs(line['logprobs']);

    // Kept before the done line ends the stream, with the done line's durations.
    this.keepUnmapped(line, MAPPED_LINE);
    const done = line['done'];
    if (done === true) this.readDoneLine(line);
    else if (done !== false && done !== undefined && done !== null) {
      throw this.protocolError(`done is ${describeValue(done)}, not a boolean`);
    }
  }

  private readText(value: unknown, where: string, type: 'reasoning' | 'content'): void {
    const text = this.text(value, where);
    if (text) this.emit({ type, choice: 0, text });
  }

  /** `logprobs`: the tokens of this line, each with its alternatives, copied out of the payload. */
  private readLogprobs(value: unknown): void {
    const entries = this.array(value, 'logprobs');
    if (entries === undefined || entries.length === 0) return;
    const content: TokenLogprob[] = [];
    for (let k = 0; k < entries.length; k++) {
      const where = `logprobs[${k}]`;
      const top = this.array(this.object(entries[k], where)?.['top_logprobs'], `${where}.top_logprobs`) ?? [];
      content.push({
        ...this.logprob(entries[k], where),
        top_logprobs: top.map((other, i) => this.logprob(other, `${where}.top_logprobs[${i}]`)),
      });
    }
    this.emit({ type: 'logprobs', choice: 0, content });
  }

  /** One token's `token`, `logprob` and `bytes` (a copy; null when the server sent none). */
  private logprob(value: unknown, where: string): { token: string; logprob: number; bytes: number[] | null } {
    const entry = this.object(value, where);
    if (entry === undefined) throw this.protocolError(`${where} is ${describeValue(value)}, not an object`);
    const token = entry['token'];
    if (typeof token !== 'string') throw this.protocolError(`${where}.token is ${describeValue(token)}, not text`);
    const logprob = finiteNumber(entry['logprob']);
    if (logprob === undefined) throw this.protocolError(`${where}.logprob is ${describeValue(entry['logprob'])}, not a number`);
    const bytes = this.array(entry['bytes'], `${where}.bytes`);
    const copy = bytes?.map((byte) => finiteNumber(byte));
    if (copy?.includes(undefined)) throw this.protocolError(`${where}.bytes is not an array of numbers`);
    return { token, logprob, bytes: (copy as number[] | undefined) ?? null };
  }

  /** An array field, or undefined when null or absent. */
  private array(value: unknown, where: string): readonly unknown[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw this.protocolError(`${where} is ${describeValue(value)}, not an array`);
    return value;
  }

  private readToolCall(entry: unknown, where: string): void {
    if (!isJsonObject(entry)) throw this.protocolError(`${where} is not an object`);
    const fn = entry['function'];
    if (!isJsonObject(fn)) throw this.protocolError(`${where}.function is ${describeValue(fn)}, not an object`);
    const name = nonEmptyString(fn['name']);
    if (name === undefined)
      throw this.protocolError(`${where}.function.name is ${describeValue(fn['name'])}, not a function name`, 'invalid-tool-call');
    const raw = fn['arguments'];
    let args: string;
    // Ollama sends the arguments as an object: serialize it once, never concatenate.
    if (isJsonObject(raw)) args = this.serialize(raw, `${where}.function.arguments`);
    else if (raw === undefined || raw === null) args = '{}';
    // An OpenAI-style string is the same arguments as text; only `strict` refuses it.
    else if (typeof raw === 'string' && !this.strict) args = raw;
    else throw this.protocolError(`${where}.function.arguments is ${describeValue(raw)}, not an object`);
    const index = this.newCall(0);
    const id = nonEmptyString(entry['id']) ?? `ollama-call-${index}`;
    this.emit({ type: 'tool-call-delta', choice: 0, index, id, name, arguments: args });
    // Kept once the call exists and before it ends: groupToolCallsByIndex's `tool-call` carries it too.
    this.keepUnmapped(entry, MAPPED_CALL, { choice: 0, call: index });
    this.keepUnmapped(fn, MAPPED_FUNCTION, { choice: 0, call: index });
    this.emit({ type: 'tool-call-end', choice: 0, index });
  }

  /** The last line: its `done_reason`, its counts, the end. */
  private readDoneLine(line: JsonObject): void {
    const rawReason = line['done_reason'];
    let raw: string;
    if (rawReason === undefined || rawReason === null) raw = 'stop';
    else if (typeof rawReason === 'string' && rawReason !== '') raw = rawReason;
    else throw this.protocolError(`done_reason is ${describeValue(rawReason)}`);
    this.finish(0, raw);

    const prompt = finiteNumber(line['prompt_eval_count']);
    const completion = finiteNumber(line['eval_count']);
    const total = prompt !== undefined && completion !== undefined ? prompt + completion : undefined;
    const usage = buildUsage(prompt, completion, total);
    if (usage !== undefined) this.emit({ type: 'usage', usage });
    this.endStream();
  }
}

/** The end of an Ollama stream: the line with `"done": true`. */
function isFinal(frame: SseFrame): boolean {
  return payloadMentioning(frame, '"done"')?.['done'] === true;
}

/**
 * The `ollama` dialect: Ollama's native `/api/chat` and `/api/generate` streams (frame them with
 * `ndjsonFrames`).
 *
 * @example
 * ```ts
 * import { decodeUtf8, ndjsonFrames, assembleChunks, finalizeCompletion, ollama } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), ndjsonFrames(), assembleChunks({ dialect: ollama }), finalizeCompletion());
 * ```
 */
export const ollama = defineDialect({
  name: 'ollama',
  create: (emit, options) => new OllamaParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => typeof payload['done'] === 'boolean' && ('message' in payload || 'response' in payload),
});
