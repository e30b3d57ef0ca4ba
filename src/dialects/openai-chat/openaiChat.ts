import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError } from '../../errors/errors.js';
import { JsonValue, Usage } from '../../types/events.js';
import type { Timings } from '../../types/replyParts.js';
import { JsonObject, copyJson, excerpt, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { mergeUsage } from '../../internal/mergeUsage.js';
import { defineDialect } from '../Dialect.js';
import type { KeptVisitor, MetadataPlace } from '../base/JsonDialectParser.js';
import { MAPPED_CALL, OpenAiChatCallReader } from './openaiChatCalls.js';
import { isThoughtSignature } from './thoughtSignature.js';
import { TokenLogprobList, readLegacyLogprobs, readTokenLogprobs } from '../base/tokenLogprobs.js';
import { ChatChoiceState, audioEvent, isAudioExpiryOnly, newSources } from './openaiChatParts.js';
import { describeValue, hasError, isIndex } from '../base/payloadValues.js';
import { readOpenAiUsage, readTimings, readPromptProgress } from '../base/usage.js';

const STRICT_FINISH_REASONS = new Set(['stop', 'tool_calls', 'length', 'function_call']);

/**
 * The fields this dialect reads at each level of a chunk, or knows to carry nothing (`object` names
 * the chunk, `obfuscation` is padding, `role` is always the assistant's). Every other field is kept as
 * `providerMetadata.openai` of the reply (envelope), of the choice (choice and delta) or of the call:
 * `created`, `system_fingerprint` and `service_tier` too, which the `Completion` has no field for.
 */
const MAPPED_ENVELOPE: ReadonlySet<string> = new Set([
  'id',
  'object',
  'model',
  'choices',
  'usage',
  'x_groq',
  'timings',
  'prompt_progress',
  'obfuscation',
]);
// `message`: Perplexity repeats the whole message so far beside each delta (read only when no delta came).
const MAPPED_CHOICE: ReadonlySet<string> = new Set(['index', 'delta', 'logprobs', 'finish_reason', 'text', 'message']);
const MAPPED_DELTA: ReadonlySet<string> = new Set([
  'role',
  'content',
  'reasoning_content',
  'reasoning',
  'refusal',
  'audio',
  'annotations',
  'tool_calls',
  'function_call',
  'executed_tools',
]);

/**
 * The OpenAI Chat Completions stream and its compatible servers (llama.cpp, vLLM, DeepSeek, Groq,
 * OpenRouter, Azure, Ollama `/v1`, Mistral, Gemini's compatible endpoint): `choices[].delta` with
 * `content`, `refusal`, `reasoning_content` or `reasoning`, `audio`, `annotations`, `tool_calls`
 * keyed by index (function and custom calls), `choices[].logprobs`, `finish_reason`, `usage` (also
 * `x_groq.usage`), llama.cpp `timings` and `prompt_progress`, ending with `data: [DONE]`. The legacy
 * Completions stream (`/v1/completions`, `"object": "text_completion"`, OpenAI's and llama.cpp's) is
 * the same envelope with the text in `choices[].text` and no delta: it is read here too.
 *
 * Events of one chunk come in this order: `start` (once), `progress`, then per choice `reasoning`,
 * `content`, `refusal`, `audio`, `source` (one per new annotation), one `tool-call-delta` per
 * fragment, `logprobs`, `finish`; then `usage` and `timings`. A chunk whose `object` names something
 * else and that holds neither choices nor usage is an `unknown` event (with `unknownEvents`).
 *
 * Log probabilities: the Chat shape (`{content, refusal}`, lists of `{token, logprob, bytes,
 * top_logprobs}`) and the legacy one (`{tokens, token_logprobs, top_logprobs, text_offset}`, read
 * as the Chat shape with `bytes` null); empty lists make no event, and an entry that is not a
 * token's log probability is skipped (under `strict`, a `ProtocolError`).
 *
 * Quirks absorbed by default (they lose nothing): a missing `index` on whole calls, a first index
 * that is not 0, every whole call sent at index 0, `id: ""` or `name: ""` on continuations, whole
 * calls in one piece, the last argument piece on the finish chunk, `finish_reason: "stop"` with tool
 * calls (normalized to `tool_calls`, raw value kept), `choices` null or absent, annotations repeated
 * on a later chunk, and an audio reply whose last delta is only its `expires_at` with no finish
 * reason (finished at `[DONE]` with `stop`, as the official SDK takes it). `strict` applies the
 * format exactly.
 *
 * @example
 * ```ts
 * import { decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 *
 * bytes$.pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'openai-chat' }));
 * ```
 */
export class OpenAiChatParser extends OpenAiChatCallReader {
  protected readonly endSignal = '[DONE]';
  protected override readonly provider = 'openai';
  protected override readonly doneFrame = 'end';
  // Like the official SDK, stop reading at [DONE]: nothing after it belongs to this reply.
  protected override readonly afterEnd = 'ignore';
  private started = false;
  /**
   * The first chunk that named the id `""` (Snowflake Cortex, TGI), with its model: the reply's id is
   * `""` unless a later chunk names one, which is said at the end.
   */
  private emptyId: { readonly model: string | null } | false = false;
  private latestPredicted: number | undefined = undefined;
  /** What each choice has had beside its calls: made at the first choice that needs one (most replies: at the finish). */
  private choiceStates: Map<number, ChatChoiceState> | undefined = undefined;
  /**
   * The choices that had output: the first (-1 before any), the later ones in a set made at the second
   * (most replies have one choice), and the last one (so that a chunk of the same choice adds nothing).
   */
  private firstBegun = -1;
  private moreBegun: Set<number> | undefined = undefined;
  private lastBegun = -1;
  /** A chunk said `"usage": null` and no usage came since: a stream that ends now lost its last chunk. */
  private usageOwed = false;
  private usageCame = false;
  /** The urls of the search sources already read (Perplexity repeats them in every chunk): made at the first. */
  private searchSources: Set<string> | undefined = undefined;
  /** The tools Groq ran, by their id, and whether their result came: made at the first. */
  private executedTools: Map<string, { resulted: boolean }> | undefined = undefined;

  // Every chunk of a stream repeats its envelope: the chunks of a shape keep it once, and then cost no call.
  protected override readonly declaresKept = true;

  /** Where `read` keeps what no field names: the envelope, the usage details, each choice, its delta (or whole message) and its calls. */
  protected override visitKept(chunk: JsonObject, visit: KeptVisitor): void {
    visit(chunk, MAPPED_ENVELOPE, REPLY);
    const usage = chunk['usage'];
    if (isJsonObject(usage) && isJsonObject(usage['completion_tokens_details'])) {
      visit(usage['completion_tokens_details'], MAPPED_COMPLETION_DETAILS, REPLY);
    }
    const choices = chunk['choices'];
    if (!Array.isArray(choices)) return;
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      const index = choice['index'];
      const place = choicePlace(isIndex(index) ? index : 0);
      visit(choice, MAPPED_CHOICE, place, choice);
      const rawDelta = choice['delta'];
      const delta = isJsonObject(rawDelta) ? rawDelta : rawDelta == null && isJsonObject(choice['message']) ? choice['message'] : undefined;
      if (delta === undefined) continue;
      visit(delta, MAPPED_DELTA, place, choice);
      const calls = delta['tool_calls'];
      // A call's place is its dense index, which depends on the calls before it.
      if (Array.isArray(calls)) for (const entry of calls) if (isJsonObject(entry)) visit(entry, MAPPED_CALL, undefined);
    }
  }

  protected override errorIn(frame: SseFrame, chunk: JsonObject): LlmStreamError | undefined {
    if (frame.event === 'error' || hasError(chunk) || chunk['object'] === 'error') return this.providerError(chunk);
    // Groq stops a stream it cannot finish with `x_groq.error`, in a chunk that looks like any other.
    const groq = chunk['x_groq'];
    if (isJsonObject(groq) && typeof groq['error'] === 'string' && groq['error'] !== '') {
      return this.providerError(chunk);
    }
    return undefined;
  }

  protected override checkEnded(): void {
    if (!this.started) throw this.protocolError('no chunk carried an id');
  }

  /** The end: a reply whose chunks named only the id `""` starts now, with that id. */
  protected override endStream(): void {
    if (!this.started && this.emptyId !== false) {
      this.started = true;
      this.emit({ type: 'start', id: '', model: this.emptyId.model });
    }
    super.endStream();
  }

  /**
   * Servers that end without `[DONE]` (Perplexity, Hugging Face TGI): the reply is whole when every
   * choice that had output finished (a finish reason came), it named an id, and no usage is owed (a
   * chunk said `"usage": null`, as OpenAI's do when usage comes last, and none came after). A body cut
   * inside a line never gets here (the frame layer refuses it); one cut before a choice finished, or
   * between the finish and the usage, is refused.
   */
  protected override completeWithoutEndSignal(): boolean {
    if (this.firstBegun === -1 || this.usageOwed || (!this.started && this.emptyId === false)) return false;
    for (const choice of this.begunChoices()) if (this.choiceStates?.get(choice)?.finished !== true) return false;
    return true;
  }

  /**
   * `[DONE]`: an audio reply that ended with its expiry and named no finish is finished now (`stop`).
   * So is, unless `strict`, any choice that named no finish (OpenRouter relaying some providers):
   * `[DONE]` says the reply is whole; `stop`, or `tool_calls` when the choice made calls.
   */
  protected override readDone(): void {
    for (const [choice, state] of this.choiceStates ?? []) {
      if (!state.audioComplete) continue;
      state.finished = true;
      this.finish(choice, 'stop');
    }
    if (!this.strict) {
      for (const choice of this.begunChoices()) {
        const state = this.stateOf(choice);
        if (state.finished) continue;
        state.finished = true;
        this.finish(choice, 'stop');
      }
    }
    super.readDone();
  }

  protected read(chunk: JsonObject, frame: SseFrame): void {
    if (isForeign(chunk)) {
      this.unknown(chunk, frame);
      return;
    }
    // Every chunk repeats the id; it is read only until the first one names it.
    if (!this.started) this.readStart(chunk);
    const progress = chunk['prompt_progress'];
    if (progress !== undefined) this.readProgress(progress);
    // Timings are read before the choices: a chunk's reasoning counts its own predicted_n.
    const rawTimings = chunk['timings'];
    const timings = rawTimings !== undefined ? this.readTimingsOf(rawTimings) : undefined;

    const choices = chunk['choices'];
    if (Array.isArray(choices)) {
      for (let position = 0; position < choices.length; position++) this.readChoice(choices[position], position);
    } else if (choices !== undefined && choices !== null) this.checkNoChoices(choices);

    const rawUsage = chunk['usage'];
    const groq = chunk['x_groq'];
    if (groq !== undefined || (rawUsage !== undefined && rawUsage !== null)) this.readUsage(rawUsage, groq);
    // `"usage": null` on a chunk: the server streams usage last (OpenAI's `include_usage`), and owes it.
    else if (rawUsage === null) this.usageOwed ||= !this.usageCame;
    if (timings !== undefined) this.emit({ type: 'timings', timings });
    if (chunk['search_results'] !== undefined || chunk['citations'] !== undefined) this.readSearchSources(chunk);
    if (this.keeping) this.keepUnmapped(chunk, MAPPED_ENVELOPE);
  }

  // The parts of `read`, `readChoice` and `readDelta` that most chunks never reach are methods of their
  // own: those three run for every chunk, and V8 inlines a function only while it is small (460 bytes of
  // bytecode). Inlined, they cost 5% fewer instructions on the benchmark's text stream.

  private readStart(chunk: JsonObject): void {
    const rawId = chunk['id'];
    const id = nonEmptyString(rawId);
    if (id !== undefined) {
      this.started = true;
      this.emit({ type: 'start', id, model: nonEmptyString(chunk['model']) ?? null });
    } else if (rawId === '' && this.emptyId === false && !this.strict) {
      // An id, empty: the completion's at the end, unless a later chunk names one.
      this.emptyId = { model: nonEmptyString(chunk['model']) ?? null };
    }
  }

  private readProgress(progress: unknown): void {
    if (isJsonObject(progress)) this.emit({ type: 'progress', progress: readPromptProgress(progress) });
  }

  private readTimingsOf(raw: unknown): Timings | undefined {
    if (!isJsonObject(raw)) return undefined;
    const timings = readTimings(raw);
    if (timings.predicted_n !== undefined) this.latestPredicted = timings.predicted_n;
    return timings;
  }

  /**
   * Perplexity's sources, on the chunk beside its choices (and repeated by every chunk): each page of
   * `search_results` ({title, url, date}) and each url of `citations` (the older list of the same
   * pages, urls only) is a `url` source of choice 0, each url once, titled when a search result
   * names it. Both lists also stay in `providerMetadata.openai` as they came.
   */
  private readSearchSources(chunk: JsonObject): void {
    const seen = (this.searchSources ??= new Set());
    const results = chunk['search_results'];
    if (Array.isArray(results)) {
      for (const result of results) {
        if (!isJsonObject(result)) continue;
        const url = nonEmptyString(result['url']);
        if (url === undefined || seen.has(url)) continue;
        seen.add(url);
        const title = nonEmptyString(result['title']);
        this.emit({ type: 'source', choice: 0, source: { kind: 'url', url, ...(title === undefined ? {} : { title }) } });
      }
    }
    const citations = chunk['citations'];
    if (Array.isArray(citations)) {
      for (const citation of citations) {
        const url = nonEmptyString(citation);
        if (url === undefined || seen.has(url)) continue;
        seen.add(url);
        this.emit({ type: 'source', choice: 0, source: { kind: 'url', url } });
      }
    }
  }

  /** `choices` that is not a list: only `{}` is absorbed, it carries nothing. */
  private checkNoChoices(choices: unknown): void {
    // An object that holds anything would be choices dropped unread.
    if (this.strict || !isJsonObject(choices) || Object.keys(choices).length > 0) throw this.protocolError('choices is not an array');
  }

  /** `usage` and Groq's `x_groq.usage`, the standard one winning field by field: a `usage` event. */
  private readUsage(raw: unknown, groq: unknown): void {
    let usage: Usage | undefined;
    if (isJsonObject(groq) && isJsonObject(groq['usage'])) usage = readOpenAiUsage(groq['usage']);
    if (raw === null) this.usageOwed ||= usage === undefined && !this.usageCame;
    if (isJsonObject(raw)) {
      this.usageCame = true;
      this.usageOwed = false;
      const standard = readOpenAiUsage(raw);
      // The predicted-output counts are OpenAI's alone: kept as they came, on the reply.
      const details = raw['completion_tokens_details'];
      if (this.keeping && isJsonObject(details)) this.keepUnmapped(details, MAPPED_COMPLETION_DETAILS);
      if (standard !== undefined) usage = usage === undefined ? standard : mergeUsage(usage, standard);
    } else if (raw !== undefined && raw !== null && this.strict) {
      throw this.protocolError('usage is not an object');
    }
    if (usage !== undefined) this.emit({ type: 'usage', usage });
  }

  private readChoice(choice: unknown, position: number): void {
    if (!isJsonObject(choice)) throw this.protocolError(`choices[${position}] is not an object`);
    const rawIndex = choice['index'];
    // The path in the message is built only for the message: this runs for every chunk.
    const index =
      rawIndex === undefined && !this.strict
        ? 0
        : isIndex(rawIndex)
          ? rawIndex
          : this.index(rawIndex, `choices[${position}].index`, 'a choice index');

    if (this.keeping) this.keepUnmapped(choice, MAPPED_CHOICE, choicePlace(index));
    const delta = choice['delta'];
    if (isJsonObject(delta)) {
      this.readDelta(delta, index, position);
      this.readDeltaParts(delta, index, position);
    } else if (delta !== undefined && delta !== null) throw this.protocolError(`choices[${position}].delta is not an object`);
    else this.readWithoutDelta(choice, index, position);
    // Calls guarded here, not only in the readers: a call never made is not inlined, and leaves room for those made.
    const logprobs = choice['logprobs'];
    if (logprobs !== undefined && logprobs !== null) this.readLogprobs(logprobs, index, position);

    const rawFinish = choice['finish_reason'];
    if (rawFinish !== undefined && rawFinish !== null) this.readFinish(rawFinish, index, position);
  }

  /** A choice with no delta: a whole message, or the legacy Completions stream's text. */
  private readWithoutDelta(choice: JsonObject, index: number, position: number): void {
    const message = choice['message'];
    if (isJsonObject(message)) {
      // A whole message and no delta: the reply in one chunk, read as one delta. After output of this
      // choice it is that output repeated whole (Perplexity's last chunk), already read.
      if (!this.begunChoices().includes(index) && !this.strict) {
        this.readDelta(message, index, position);
        this.readDeltaParts(message, index, position);
      }
      return;
    }
    // The legacy Completions stream: the text of the chunk, with no delta around it.
    const text = this.text(choice['text'], `choices[${position}]`, 'text');
    if (text) {
      this.noteOutput(index);
      this.emit({ type: 'content', choice: index, text });
    }
  }

  private readFinish(rawFinish: unknown, index: number, position: number): void {
    if (typeof rawFinish !== 'string' || rawFinish === '') {
      throw this.protocolError(`choices[${position}].finish_reason is ${describeValue(rawFinish)}`);
    }
    if (this.strict && !STRICT_FINISH_REASONS.has(rawFinish)) {
      throw this.protocolError(`unknown finish_reason ${excerpt(rawFinish)}`, 'strict');
    }
    this.stateOf(index).finished = true;
    this.finish(index, rawFinish);
  }

  private readDelta(delta: JsonObject, choice: number, position: number): void {
    const where = deltaPath(position);
    let reasoning = this.text(delta['reasoning_content'], where, 'reasoning_content');
    if (reasoning === undefined) reasoning = this.text(delta['reasoning'], where, 'reasoning');
    // OpenRouter and Snowflake may send the reasoning only as `reasoning_details` entries (looked up once:
    // this runs for every delta).
    const details = delta['reasoning_details'];
    if (reasoning === undefined && details !== undefined) reasoning = reasoningDetailsText(details);
    let content: string | undefined;
    let thinkingSignatures: string[] | undefined;
    let references: string[] | undefined;
    const rawContent = delta['content'];
    if (Array.isArray(rawContent)) {
      // Mistral's reasoning models send content as typed parts: text, and thinking (itself parts).
      const parts = readContentParts(rawContent);
      content = parts.content;
      thinkingSignatures = parts.signatures;
      references = parts.references;
      if (parts.reasoning !== undefined) reasoning = (reasoning ?? '') + parts.reasoning;
    } else {
      content = this.text(rawContent, where, 'content');
    }
    const refusal = this.text(delta['refusal'], where, 'refusal');
    if (reasoning || content || refusal || carriesCallOrAudio(delta)) this.noteOutput(choice);
    if (reasoning || details !== undefined || thinkingSignatures !== undefined)
      this.emitReasoning(choice, reasoning, details, thinkingSignatures);
    if (content) this.emit({ type: 'content', choice, text: content });
    if (refusal) this.emit({ type: 'refusal', choice, text: refusal });
    const extra = delta['extra_content'];
    if (extra !== undefined) this.readExtraContent(extra, choice, content || !reasoning ? 'content' : 'reasoning');
    this.readAudio(delta, choice, where);
    const annotations = delta['annotations'];
    if (annotations !== undefined && annotations !== null) this.readAnnotations(annotations, choice, where);
    if (references !== undefined) this.readReferences(references, choice);
  }

  /** What a delta carries after its texts, audio and sources: calls, executed tools, and what is kept. */
  private readDeltaParts(delta: JsonObject, choice: number, position: number): void {
    const toolCalls = delta['tool_calls'];
    if (toolCalls !== undefined && toolCalls !== null) this.readToolCalls(toolCalls, choice, position);
    const functionCall = delta['function_call'];
    if (functionCall !== undefined && functionCall !== null) this.readFunctionCall(functionCall, choice, position);
    const executed = delta['executed_tools'];
    if (executed !== undefined) this.readExecutedTools(executed, choice);
    if (this.keeping) this.keepUnmapped(delta, MAPPED_DELTA, choicePlace(choice));
  }

  /** A delta's reasoning, then what the next turn must send back of it, after the text it signs. */
  private emitReasoning(choice: number, reasoning: string | undefined, details: unknown, signatures: string[] | undefined): void {
    if (reasoning) {
      this.emit(
        this.latestPredicted === undefined
          ? { type: 'reasoning', choice, text: reasoning }
          : { type: 'reasoning', choice, text: reasoning, reasoningTokens: this.latestPredicted },
      );
    }
    if (details !== undefined) this.emitReasoningDetails(details, choice);
    if (signatures !== undefined) this.emitThinkingSignatures(signatures, choice);
  }

  /** Gemini's thought signature on a delta: it signs the part the delta carried. */
  private readExtraContent(extra: unknown, choice: number, part: 'content' | 'reasoning'): void {
    if (!isThoughtSignature(extra)) return;
    const item = { provider: 'google', kind: 'signature', type: 'extra_content', part, data: copyJson(extra) } as const;
    this.emit({ type: 'opaque-item', choice, item });
  }

  /**
   * OpenRouter's `reasoning_details`: each entry (`reasoning.text` with its `signature`,
   * `reasoning.encrypted` with its `data`, `reasoning.summary`) an opaque item of its own, whole, with
   * its `index` as the block: OpenRouter wants the entries back, an entry's fragments joined by index.
   */
  private emitReasoningDetails(details: unknown, choice: number): void {
    if (!Array.isArray(details)) return;
    for (const detail of details) {
      if (!isJsonObject(detail)) continue;
      const type = typeof detail['type'] === 'string' ? detail['type'] : 'reasoning.unknown';
      const block = detail['index'];
      const item = {
        provider: 'openrouter',
        kind: 'reasoning-detail',
        type,
        part: 'reasoning',
        ...(isIndex(block) ? { block } : {}),
        data: copyJson(detail),
      } as const;
      this.emit({ type: 'opaque-item', choice, item });
    }
  }

  /** Mistral's thinking parts' `signature`s, each after the thinking it signs. */
  private emitThinkingSignatures(signatures: readonly string[], choice: number): void {
    for (const data of signatures) {
      this.emit({
        type: 'opaque-item',
        choice,
        item: { provider: 'mistral', kind: 'signature', type: 'thinking', part: 'reasoning', data },
      });
    }
  }

  /**
   * Groq's `delta.executed_tools` (`ExecutedTool` {index, type, arguments, output?, search_results?,
   * browser_results?, code_results?}): the tools Groq's compound models ran themselves. Each is a
   * provider tool call at its first delta (id `executed-tool-<index>`, `executed-tool-<choice>-<index>`
   * beyond choice 0: the wire has none; name its `type`; input its `arguments`, parsed when they are
   * JSON), and its result at the first delta that carries its `output` (with the search, browser or
   * code results beside it, when any). Never a call for the program.
   */
  private readExecutedTools(tools: unknown, choice: number): void {
    if (!Array.isArray(tools)) return;
    const seen = (this.executedTools ??= new Map());
    for (const tool of tools) {
      if (!isJsonObject(tool) || !isIndex(tool['index'])) continue;
      // The index is the tool's place in its choice: the id names the choice too beyond the first.
      const id = choice === 0 ? `executed-tool-${tool['index']}` : `executed-tool-${choice}-${tool['index']}`;
      let state = seen.get(id);
      if (state === undefined) {
        seen.set(id, (state = { resulted: false }));
        const args = typeof tool['arguments'] === 'string' ? tool['arguments'] : '';
        this.emit({
          type: 'provider-tool-call',
          choice,
          call: { id, name: nonEmptyString(tool['type']) ?? 'executed_tool', type: 'executed_tools', input: parsedOrText(args) },
        });
      }
      const output = tool['output'];
      if (state.resulted || output === undefined || output === null) continue;
      state.resulted = true;
      const details: { [key: string]: JsonValue } = {};
      for (const key of ['search_results', 'browser_results', 'code_results']) {
        if (tool[key] !== undefined && tool[key] !== null) details[key] = copyJson(tool[key]);
      }
      const result: JsonValue = Object.keys(details).length === 0 ? copyJson(output) : { output: copyJson(output), ...details };
      this.emit({ type: 'provider-tool-result', choice, id, result });
    }
  }

  /** `delta.audio`: an `audio` event with the parts this piece had; notes a piece that is only the expiry. */
  private readAudio(delta: JsonObject, choice: number, where: string): void {
    const raw = delta['audio'];
    // No audio here, nor ever before in any choice: nothing to note (and no lookup, on every delta).
    if (raw === undefined && this.choiceStates === undefined) return;
    const audio = raw === undefined ? undefined : this.object(raw, `${where}.audio`);
    const event = audio === undefined ? undefined : audioEvent(audio, choice);
    // Read on every delta, audio or not: only the last one of a choice says how its audio ended.
    const state = audio === undefined && this.choiceStates?.has(choice) !== true ? undefined : this.stateOf(choice);
    if (state === undefined) return;
    state.endedByAudioExpiry = isAudioExpiryOnly(delta, event);
    if (event === undefined) return;
    state.noteAudio(event);
    this.emit(event);
  }

  /** Mistral's reference chunks: a `document` source for each id not emitted before. */
  private readReferences(ids: readonly string[], choice: number): void {
    const seen = this.stateOf(choice).sourceKeys;
    for (const documentId of ids) {
      const key = JSON.stringify(['reference', documentId]);
      if (seen.has(key)) continue;
      seen.add(key);
      this.emit({ type: 'source', choice, source: { kind: 'document', documentId } });
    }
  }

  /** `delta.annotations`: a `source` event for each citation not emitted before; one that names no source kept with the choice. */
  private readAnnotations(annotations: unknown, choice: number, where: string): void {
    if (annotations === undefined || annotations === null) return;
    if (!Array.isArray(annotations)) throw this.protocolError(`${where}.annotations is ${describeValue(annotations)}, not a list`);
    const unread: unknown[] = [];
    for (const source of newSources(annotations, this.stateOf(choice).sourceKeys, unread)) this.emit({ type: 'source', choice, source });
    for (const annotation of unread) this.keepItem(annotation, choicePlace(choice));
  }

  /** `choices[].logprobs`, in the Chat shape or the legacy Completions one: one `logprobs` event. */
  private readLogprobs(raw: unknown, choice: number, position: number): void {
    if (raw === undefined || raw === null) return;
    const where = `choices[${position}].logprobs`;
    if (!isJsonObject(raw)) {
      // Another shape carries no token this dialect could read: skipped, as unknown fields are.
      if (this.strict) throw this.protocolError(`${where} is ${describeValue(raw)}, not an object`, 'strict');
      return;
    }
    const logprobs = raw;
    if (Array.isArray(logprobs['tokens'])) {
      const legacy = this.checked(readLegacyLogprobs(logprobs), `${where}.tokens`);
      if (legacy.length > 0) this.emit({ type: 'logprobs', choice, content: legacy });
      return;
    }
    const rawContent = logprobs['content'];
    const rawRefusal = logprobs['refusal'];
    const content = Array.isArray(rawContent) ? this.checked(readTokenLogprobs(rawContent), `${where}.content`) : [];
    const refusal = Array.isArray(rawRefusal) ? this.checked(readTokenLogprobs(rawRefusal), `${where}.refusal`) : [];
    if (content.length === 0 && refusal.length === 0) return;
    this.emit({
      type: 'logprobs',
      choice,
      ...(content.length === 0 ? {} : { content }),
      ...(refusal.length === 0 ? {} : { refusal }),
    });
  }

  /** The tokens of a list; under `strict`, an entry that is not a token's log probability is a `ProtocolError`. */
  private checked(list: TokenLogprobList, where: string): TokenLogprobList['tokens'] {
    if (list.skipped > 0 && this.strict)
      throw this.protocolError(`${where} holds an entry that is not a token's log probability`, 'strict');
    return list.tokens;
  }

  /** `choice` has output: the end of the stream is whole only once it finished. */
  private noteOutput(choice: number): void {
    if (choice === this.lastBegun) return;
    this.lastBegun = choice;
    if (this.firstBegun === -1) this.firstBegun = choice;
    else if (choice !== this.firstBegun) (this.moreBegun ??= new Set()).add(choice);
  }

  /** The choices that had output, in the order they began. */
  private begunChoices(): number[] {
    return this.firstBegun === -1 ? [] : [this.firstBegun, ...(this.moreBegun ?? [])];
  }

  private stateOf(choice: number): ChatChoiceState {
    const choiceStates = (this.choiceStates ??= new Map());
    let state = choiceStates.get(choice);
    if (state === undefined) choiceStates.set(choice, (state = new ChatChoiceState()));
    return state;
  }
}

/**
 * A chunk this dialect does not know: its `object` names something other than a chat or text
 * completion chunk, and it holds neither choices nor usage.
 */
function isForeign(chunk: JsonObject): boolean {
  const object = chunk['object'];
  // The `object` of the chunks this dialect reads: Chat's, and the legacy Completions endpoint's.
  // (Compared, not looked up in a set: a set hashes the string, for every chunk.)
  if (typeof object !== 'string' || object === 'chat.completion.chunk' || object === 'text_completion') return false;
  return !Array.isArray(chunk['choices']) && !isJsonObject(chunk['usage']);
}

/**
 * `usage.completion_tokens_details` (`CompletionUsage.CompletionTokensDetails`): the reasoning and
 * audio tokens are the usage's; `text_tokens` is the rest of the completion; what else it counts
 * (`accepted_prediction_tokens`, `rejected_prediction_tokens`, of a predicted output) is kept on the reply.
 */
const MAPPED_COMPLETION_DETAILS: ReadonlySet<string> = new Set(['reasoning_tokens', 'audio_tokens', 'text_tokens']);

/**
 * The text of OpenRouter's `reasoning_details` (`reasoning.text` entries' `text`, `reasoning.summary`
 * entries' `summary`), or undefined when they hold none (`reasoning.encrypted` carries no text).
 */
function reasoningDetailsText(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  let text = '';
  for (const detail of details) {
    if (!isJsonObject(detail)) continue;
    if (detail['type'] === 'reasoning.text' && typeof detail['text'] === 'string') text += detail['text'];
    else if (detail['type'] === 'reasoning.summary' && typeof detail['summary'] === 'string') text += detail['summary'];
  }
  return text === '' ? undefined : text;
}

function readContentParts(parts: readonly unknown[]): {
  content?: string;
  reasoning?: string;
  signatures?: string[];
  references?: string[];
} {
  let content = '';
  let reasoning = '';
  let signatures: string[] | undefined;
  let references: string[] | undefined;
  for (const part of parts) {
    if (!isJsonObject(part)) continue;
    if (part['type'] === 'text' && typeof part['text'] === 'string') content += part['text'];
    else if (part['type'] === 'thinking' && Array.isArray(part['thinking'])) {
      for (const inner of part['thinking']) {
        if (isJsonObject(inner) && typeof inner['text'] === 'string') reasoning += inner['text'];
      }
      // A ThinkChunk's signature: what Mistral wants back with the thinking it signs.
      const signature = part['signature'];
      if (typeof signature === 'string' && signature !== '') (signatures ??= []).push(signature);
    } else if (part['type'] === 'reference' && Array.isArray(part['reference_ids'])) {
      // A ReferenceChunk: the ids of the documents the text before it cites; not text.
      for (const id of part['reference_ids']) {
        if ((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id))) (references ??= []).push(String(id));
      }
    }
  }
  return {
    ...(content ? { content } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(signatures ? { signatures } : {}),
    ...(references ? { references } : {}),
  };
}

/** The `openai-chat` dialect's factory, for `assembleChunks({ dialect: openaiChat })` and composition. */
export const openaiChat = defineDialect({
  name: 'openai-chat',
  create: (emit, options) => new OpenAiChatParser(emit, options),
  isFinal: isFinal,
  recognizes: (payload) => payload['object'] === 'chat.completion.chunk' || Array.isArray(payload['choices']),
});

/** The place of what the reply as a whole keeps. */
const REPLY: MetadataPlace = {};

/** The place of a choice's kept fields, made once per index: a chunk allocates none. */
const CHOICE_PLACES: MetadataPlace[] = [];
function choicePlace(choice: number): MetadataPlace {
  return choice < 64 ? (CHOICE_PLACES[choice] ??= { choice }) : { choice };
}

/** `choices[0].delta`, made once per position: field paths are joined only for an error message. */
const DELTA_PATHS: string[] = [];
/** Whether a delta carries a tool call or audio: output, as text is. */
function carriesCallOrAudio(delta: JsonObject): boolean {
  return delta['tool_calls'] != null || delta['function_call'] != null || delta['audio'] != null;
}

function deltaPath(position: number): string {
  return (DELTA_PATHS[position] ??= `choices[${position}].delta`);
}

/** The end of an OpenAI Chat stream: `data: [DONE]`. */
function isFinal(frame: SseFrame): boolean {
  return frame.data === '[DONE]';
}

/** Arguments parsed when they are JSON, else the text as it came. */
function parsedOrText(text: string): JsonValue {
  if (text === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
