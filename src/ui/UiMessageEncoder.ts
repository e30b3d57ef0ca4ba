import { LlmStreamError, ProtocolError } from '../errors/errors.js';
import { ChatEvent, FinishReason, ToolCall } from '../types/events.js';
import { UiFinishReason, UiMessageChunk } from './uiMessageChunks.js';

/**
 * Options of {@link UiMessageEncoder} and `toUiMessageStream`.
 *
 * @example
 * ```ts
 * import { type UiMessageEncoderOptions } from 'rxjs-llm-stream';
 * import { UiMessageEncoder } from 'rxjs-llm-stream/core';
 *
 * const options: UiMessageEncoderOptions = { messageId: 'msg-1', errorText: () => 'the model is unavailable' };
 * const encoder = new UiMessageEncoder(options);
 * ```
 */
export interface UiMessageEncoderOptions {
  /** The `start` chunk's `messageId`; by default the stream's own id (its `start` event), when it has one. */
  readonly messageId?: string;
  /**
   * The `errorText` sent to the client for a failure. By default this library's error message, and a
   * fixed text for any other error (whose message may name internal hosts).
   */
  readonly errorText?: (error: unknown) => string;
}

const UI_FINISH: Readonly<Record<FinishReason, UiFinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
  other: 'other',
};

/**
 * Where a {@link UiMessageEncoder} stands, as plain JSON: what it must know to encode the events that
 * follow as it would have (the open part, the counters of part and source ids, the tool calls). A
 * relay keeps one now and then with a stream, so that a client resuming near the end of a long reply
 * is encoded from there, not from the first event.
 */
export interface UiMessageEncoderState {
  readonly started: boolean;
  readonly ended: boolean;
  readonly open: { readonly kind: 'text' | 'reasoning' | 'refusal'; readonly id: string } | null;
  readonly partCount: number;
  readonly sourceCount: number;
  readonly finishReason: UiFinishReason | null;
  readonly calls: ReadonlyArray<
    readonly [
      number,
      { readonly toolCallId: string | null; readonly toolName: string | null; readonly started: boolean; readonly pending: string },
    ]
  >;
  readonly usedIds: readonly string[];
  /**
   * The parts sent so far, for a `retract`; `null` once they passed 16 Ki characters (absent in a
   * state of a version before it: the same).
   */
  readonly sent?: readonly SentPart[] | null;
  /** The characters `sent` counts against its cap. */
  readonly sentChars?: number;
}

/**
 * The most characters of a message (its text, reasoning, tool inputs and sources, as sent) that an
 * encoder keeps to send again after a `retract`: the memory of a stream, and the size of the state a
 * relay keeps now and then with it, stay small. Past it the encoder forgets them, and a later
 * `retract` is not shown in the UI message (the completion never has the text taken back).
 */
const MAX_RESENT_CHARS = 16 * 1024;

/**
 * A part the message has been sent, kept so that a `retract` can send the step again without the
 * text it takes back: a text-like part with its text so far, or the chunks of a tool call (its input
 * deltas joined) or of a source.
 */
type SentPart =
  | { readonly kind: 'text' | 'reasoning' | 'refusal'; readonly id: string; readonly text: string; readonly ended: boolean }
  | { readonly kind: 'chunks'; readonly toolCallId: string | null; readonly chunks: readonly UiMessageChunk[] };

/** A {@link SentPart} as the encoder grows it. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type TextPart = Mutable<Extract<SentPart, { kind: 'text' | 'reasoning' | 'refusal' }>>;
type ChunksPart = { readonly kind: 'chunks'; readonly toolCallId: string | null; chunks: UiMessageChunk[] };

/** A copy of a sent part that the encoder may grow, apart from the state it came from or goes to. */
function copySentPart(part: SentPart): TextPart | ChunksPart {
  return part.kind === 'chunks' ? { ...part, chunks: [...part.chunks] } : { ...part };
}

/** A text-like part open now: its kind on the wire and its id. */
type OpenPart = { readonly kind: 'text' | 'reasoning' | 'refusal'; readonly id: string };

/** A call of choice 0: its id on the wire, its name, and whether its `tool-input-start` was sent. */
interface CallState {
  toolCallId: string | undefined;
  toolName: string | undefined;
  started: boolean;
  /** Argument text that arrived before the id and name were known. */
  pending: string;
}

/** The default `errorText`: this library's messages say what failed; other errors' messages may leak. */
function defaultErrorText(error: unknown): string {
  return error instanceof LlmStreamError ? error.message : 'the stream failed';
}

/**
 * The pure core of `toUiMessageStream`: turns `ChatEvent`s (after `groupToolCallsByIndex`) into the
 * chunks of the AI SDK's UI message stream. Choice 0 only (the UI protocol has one message); other
 * choices are left out. One message of one step: `start` and `start-step` before anything else;
 * text, reasoning and refusal text as parts opened before their deltas and closed when another part
 * begins or the step ends (refusal text is a text part of its own); each tool call as
 * `tool-input-start`, `tool-input-delta`s and `tool-input-available` with the parsed input (a custom
 * call's input is its raw text, `inputEncoding: 'text'`); a call cut by the token limit as
 * `tool-input-error`; url sources as `source-url`; a `retract` (text taken back) as `reset-step`, which
 * removes the step's parts (ai 7; ai 6's schema refuses it, as it refuses the AI SDK 7 server's own),
 * followed by those parts again without the text taken back (so the encoder keeps what it sent, up
 * to 16 Ki characters: past that a retract is not shown, and the completion alone drops the text);
 * `finish-details` as a `message-metadata` chunk, `{ finishDetails }`; an `image-preview` as a
 * transient `data-image-preview` (its call's id, `{index, data, format}`: the client's `onData`, never
 * the message); at the end, `finish-step` and `finish` with the finish reason in the UI's spelling
 * (`tool-calls`, `content-filter`). Usage, timings, log
 * probabilities, audio and provider-run tools have no chunk of their own and are left out.
 *
 * @example
 * ```ts
 * import { UiMessageEncoder } from 'rxjs-llm-stream/core';
 *
 * const encoder = new UiMessageEncoder();
 * encoder.encode({ type: 'content', choice: 0, text: 'Hi' });
 * // [{type:'start'}, {type:'start-step'}, {type:'text-start', id:'text-1'}, {type:'text-delta', id:'text-1', delta:'Hi'}]
 * encoder.encode({ type: 'done' }); // text-end, finish-step, finish
 * ```
 */
export class UiMessageEncoder {
  private started = false;
  private ended = false;
  private open: OpenPart | undefined = undefined;
  private partCount = 0;
  private sourceCount = 0;
  private finishReason: UiFinishReason | undefined = undefined;
  private readonly calls = new Map<number, CallState>();
  private readonly usedIds = new Set<string>();
  /**
   * Every part of the message so far, in order. The message is one step, and the UI protocol takes
   * text back only by removing a step's parts (`reset-step`): to retract, the encoder sends them again.
   */
  private sent: Array<TextPart | ChunksPart> | undefined = [];
  /** What `sent` holds, in characters (see {@link MAX_RESENT_CHARS}). */
  private sentChars = 0;
  /** The entry of `sent` of the open part. */
  private openSent: TextPart | undefined = undefined;

  /**
   * @param options The message id and the error text.
   * @param state Where to stand: a `state` an encoder gave before (its events are not encoded again).
   */
  constructor(
    private readonly options: UiMessageEncoderOptions = {},
    state?: UiMessageEncoderState,
  ) {
    if (state === undefined) return;
    this.started = state.started;
    this.ended = state.ended;
    this.open = state.open === null ? undefined : { ...state.open };
    this.partCount = state.partCount;
    this.sourceCount = state.sourceCount;
    this.finishReason = state.finishReason ?? undefined;
    for (const [index, call] of state.calls) {
      this.calls.set(index, { ...call, toolCallId: call.toolCallId ?? undefined, toolName: call.toolName ?? undefined });
    }
    for (const id of state.usedIds) this.usedIds.add(id);
    this.sent = state.sent?.map(copySentPart);
    this.sentChars = state.sentChars ?? 0;
    const open = this.open;
    this.openSent =
      open === undefined ? undefined : (this.sent?.find((part) => part.kind !== 'chunks' && part.id === open.id) as TextPart | undefined);
  }

  /** Where this encoder stands, as plain JSON: give it to a new encoder to go on from here. */
  get state(): UiMessageEncoderState {
    return {
      started: this.started,
      ended: this.ended,
      open: this.open === undefined ? null : { ...this.open },
      partCount: this.partCount,
      sourceCount: this.sourceCount,
      finishReason: this.finishReason ?? null,
      calls: [...this.calls].map(([index, call]) => [
        index,
        { toolCallId: call.toolCallId ?? null, toolName: call.toolName ?? null, started: call.started, pending: call.pending },
      ]),
      usedIds: [...this.usedIds],
      sent: this.sent?.map(copySentPart) ?? null,
      sentChars: this.sentChars,
    };
  }

  /** Whether the stream's chunks are all written (after `done`, `end` or `fail`). */
  get isEnded(): boolean {
    return this.ended;
  }

  /** The chunks for one event (none once the stream is ended). */
  encode(event: ChatEvent): UiMessageChunk[] {
    if (this.ended) return [];
    const out: UiMessageChunk[] = [];
    this.begin(out, event.type === 'start' ? event.id : '');
    if (event.type === 'done') {
      this.finishChunks(out);
      return out;
    }
    if (!('choice' in event) || event.choice !== 0) return out;
    switch (event.type) {
      case 'content':
        this.textDelta(out, 'text', event.text);
        break;
      case 'reasoning':
        this.textDelta(out, 'reasoning', event.text);
        break;
      case 'refusal':
        this.textDelta(out, 'refusal', event.text);
        break;
      case 'tool-call-delta': {
        if (event.call === undefined) throw new ProtocolError('toUiMessageStream reads tool calls after groupToolCallsByIndex()');
        const call = this.call(event.index);
        call.toolCallId ??= event.call.id ?? undefined;
        call.toolName ??= event.call.name ?? undefined;
        call.pending += event.arguments;
        if (call.toolCallId !== undefined && call.toolName !== undefined) this.startCall(out, event.index, call, event.kind === 'custom');
        break;
      }
      case 'tool-call':
        this.closeCall(out, event.call);
        break;
      case 'tool-call-incomplete': {
        const call = this.call(event.call.index);
        call.toolCallId ??= event.call.id ?? undefined;
        call.toolName ??= event.call.name ?? '';
        this.startCall(out, event.call.index, call, event.call.kind === 'custom');
        const { toolCallId = '', toolName = '' } = call;
        this.sendCallChunk(out, {
          type: 'tool-input-error',
          toolCallId,
          toolName,
          input: event.call.arguments,
          errorText: 'cut by the token limit',
        });
        break;
      }
      case 'source':
        if (event.source.url !== undefined) {
          const title = event.source.title;
          const sourceId = `source-${++this.sourceCount}`;
          const chunk: UiMessageChunk = { type: 'source-url', sourceId, url: event.source.url, ...(title === undefined ? {} : { title }) };
          out.push(chunk);
          this.sent?.push({ kind: 'chunks', toolCallId: null, chunks: [chunk] });
          this.grow(event.source.url.length + (title?.length ?? 0));
        }
        break;
      case 'retract':
        this.retract(out, event.content, event.reasoning);
        break;
      case 'image-preview': {
        // Live only, each replacing the one before in the UI: transient, so the message (which an app
        // stores) never holds a preview; the finished image is the provider tool's result.
        const { index, data, format } = event;
        out.push({
          type: 'data-image-preview',
          id: event.id,
          data: { index, data, ...(format === undefined ? {} : { format }) },
          transient: true,
        });
        break;
      }
      case 'finish-details':
        // The UI message has no finish details of its own: its metadata, which the client merges.
        out.push({ type: 'message-metadata', messageMetadata: { finishDetails: { ...event.details } } });
        break;
      case 'finish':
        this.finishReason = UI_FINISH[event.reason];
        break;
      default:
      // Nothing of these goes to the UI message.
    }
    return out;
  }

  /** The source completed: the chunks that close the message (none when `done` already did). */
  end(): UiMessageChunk[] {
    if (this.ended) return [];
    const out: UiMessageChunk[] = [];
    this.begin(out, '');
    this.finishChunks(out);
    return out;
  }

  /** The source failed: the open part closed, then an `error` chunk; nothing follows. */
  fail(error: unknown): UiMessageChunk[] {
    if (this.ended) return [];
    const out: UiMessageChunk[] = [];
    this.begin(out, '');
    this.closePart(out);
    this.ended = true;
    out.push({ type: 'error', errorText: (this.options.errorText ?? defaultErrorText)(error) });
    return out;
  }

  private begin(out: UiMessageChunk[], streamId: string): void {
    if (this.started) return;
    this.started = true;
    const messageId = this.options.messageId ?? (streamId === '' ? undefined : streamId);
    out.push(messageId === undefined ? { type: 'start' } : { type: 'start', messageId }, { type: 'start-step' });
  }

  private textDelta(out: UiMessageChunk[], kind: OpenPart['kind'], delta: string): void {
    if (delta === '') return;
    if (this.open?.kind !== kind) {
      this.closePart(out);
      this.open = { kind, id: `${kind === 'reasoning' ? 'reasoning' : 'text'}-${++this.partCount}` };
      out.push({ type: kind === 'reasoning' ? 'reasoning-start' : 'text-start', id: this.open.id });
      if (this.sent !== undefined) this.sent.push((this.openSent = { kind, id: this.open.id, text: '', ended: false }));
    }
    out.push({ type: kind === 'reasoning' ? 'reasoning-delta' : 'text-delta', id: this.open.id, delta });
    if (this.openSent === undefined) return;
    this.openSent.text += delta;
    this.grow(delta.length);
  }

  /** Counts what `sent` took in; past {@link MAX_RESENT_CHARS} forgets it all. */
  private grow(chars: number): void {
    this.sentChars += chars;
    if (this.sentChars <= MAX_RESENT_CHARS) return;
    this.sent = undefined;
    this.openSent = undefined;
  }

  private closePart(out: UiMessageChunk[]): void {
    if (this.open === undefined) return;
    out.push({ type: this.open.kind === 'reasoning' ? 'reasoning-end' : 'text-end', id: this.open.id });
    if (this.openSent !== undefined) this.openSent.ended = true;
    this.open = undefined;
    this.openSent = undefined;
  }

  /**
   * Takes back the last `content` characters of the text parts and `reasoning` of the reasoning
   * parts: `reset-step` removes the step's parts (the whole message, one step), then the parts are
   * sent again as they stand now, with their ids; a part left empty is not sent again.
   */
  private retract(out: UiMessageChunk[], content: number, reasoning: number): void {
    // Forgotten (a long message): the text stays in the UI message, as no chunk can take it back.
    if (this.sent === undefined || (content <= 0 && reasoning <= 0)) return;
    for (let i = this.sent.length - 1; i >= 0 && (content > 0 || reasoning > 0); i--) {
      const part = this.sent[i]!;
      if (part.kind === 'chunks' || part.kind === 'refusal') continue;
      const cut = Math.min(part.kind === 'text' ? content : reasoning, part.text.length);
      part.text = part.text.slice(0, part.text.length - cut);
      this.sentChars -= cut;
      if (part.kind === 'text') content -= cut;
      else reasoning -= cut;
    }
    this.sent = this.sent.filter((part) => part.kind === 'chunks' || part.text !== '');
    if (this.openSent !== undefined && this.openSent.text === '') {
      this.open = undefined;
      this.openSent = undefined;
    }
    out.push({ type: 'reset-step' });
    for (const part of this.sent) {
      if (part.kind === 'chunks') {
        out.push(...part.chunks);
        continue;
      }
      const reasoningPart = part.kind === 'reasoning';
      out.push(
        { type: reasoningPart ? 'reasoning-start' : 'text-start', id: part.id },
        { type: reasoningPart ? 'reasoning-delta' : 'text-delta', id: part.id, delta: part.text },
      );
      if (part.ended) out.push({ type: reasoningPart ? 'reasoning-end' : 'text-end', id: part.id });
    }
  }

  /** Sends a chunk of the tool call it names, and keeps it with the call's other chunks (input deltas joined). */
  private sendCallChunk(out: UiMessageChunk[], chunk: Extract<UiMessageChunk, { toolCallId: string }>): void {
    out.push(chunk);
    if (this.sent === undefined) return;
    let part: ChunksPart | undefined;
    for (let i = this.sent.length - 1; i >= 0 && part === undefined; i--) {
      const candidate = this.sent[i]!;
      if (candidate.kind === 'chunks' && candidate.toolCallId === chunk.toolCallId) part = candidate;
    }
    if (part === undefined) this.sent.push((part = { kind: 'chunks', toolCallId: chunk.toolCallId, chunks: [] }));
    const last = part.chunks[part.chunks.length - 1];
    if (chunk.type === 'tool-input-delta' && last?.type === 'tool-input-delta') {
      part.chunks[part.chunks.length - 1] = { ...last, inputTextDelta: last.inputTextDelta + chunk.inputTextDelta };
    } else part.chunks.push(chunk);
    // A delta counts its text; another chunk its JSON (an input made available can be large).
    this.grow(chunk.type === 'tool-input-delta' ? chunk.inputTextDelta.length : JSON.stringify(chunk).length);
  }

  private call(index: number): CallState {
    let call = this.calls.get(index);
    if (call === undefined) this.calls.set(index, (call = { toolCallId: undefined, toolName: undefined, started: false, pending: '' }));
    return call;
  }

  /** Sends the call's `tool-input-start` once, then the argument text that waited for it. */
  private startCall(out: UiMessageChunk[], index: number, call: CallState, custom: boolean): void {
    if (!call.started) {
      this.closePart(out);
      call.started = true;
      // Ids must tell the calls apart in the message: a missing or repeated one is made unique.
      let id = call.toolCallId === undefined || call.toolCallId === '' ? `call-${index}` : call.toolCallId;
      if (this.usedIds.has(id)) id = `${id}-${index}`;
      this.usedIds.add(id);
      call.toolCallId = id;
      const toolName = call.toolName ?? '';
      this.sendCallChunk(
        out,
        custom
          ? { type: 'tool-input-start', toolCallId: id, toolName, inputEncoding: 'text' }
          : { type: 'tool-input-start', toolCallId: id, toolName },
      );
    }
    if (call.pending !== '') {
      this.sendCallChunk(out, { type: 'tool-input-delta', toolCallId: call.toolCallId ?? '', inputTextDelta: call.pending });
      call.pending = '';
    }
  }

  private closeCall(out: UiMessageChunk[], closed: ToolCall): void {
    const call = this.call(closed.index);
    call.toolCallId ??= closed.id;
    call.toolName ??= closed.name;
    this.startCall(out, closed.index, call, closed.kind === 'custom');
    this.sendCallChunk(out, { type: 'tool-input-available', toolCallId: call.toolCallId ?? '', toolName: closed.name, input: closed.args });
  }

  private finishChunks(out: UiMessageChunk[]): void {
    this.closePart(out);
    this.ended = true;
    out.push(
      { type: 'finish-step' },
      this.finishReason === undefined ? { type: 'finish' } : { type: 'finish', finishReason: this.finishReason },
    );
  }
}
