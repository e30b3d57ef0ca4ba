import {
  AudioEvent,
  JsonValue,
  Logprobs,
  ReplyExtraParts,
  LogprobsEvent,
  ProviderToolCall,
  ProviderToolCallEvent,
  ProviderToolResultEvent,
  Source,
  TokenLogprob,
} from '../types/events.js';
import { TextBuilder } from '../internal/TextBuilder.js';

/** The parts this holds, as a completion or a snapshot shows them (the cut calls are the calls' own). */
export type ReplyExtrasView = Omit<ReplyExtraParts, 'incompleteToolCalls'>;

/** One provider-run tool as far as it has arrived: its call, then its result. */
interface ProviderTool {
  call: ProviderToolCall | undefined;
  result: { readonly value: JsonValue } | undefined;
}

/**
 * The parts of one choice's reply beside its text and calls: log probabilities (the per-chunk arrays
 * joined in order), sources (accumulated in arrival order), audio (base64 pieces and transcript
 * joined) and the tools the provider ran (each call joined with its result by id). Made only for a
 * choice that has any, so a plain reply pays nothing for them.
 *
 * Log probabilities come per token, and a snapshot may be taken after every event: the view holds
 * them through a getter that copies the tokens seen by then only when read, so a snapshot costs the
 * same however many tokens came before it.
 *
 * @example
 * ```ts
 * import { ReplyExtras } from 'rxjs-llm-stream';
 *
 * const extras = new ReplyExtras();
 * extras.apply({ type: 'source', choice: 0, source: { kind: 'url', url: 'https://example.com' } });
 * extras.view().sources; // [{ kind: 'url', url: 'https://example.com' }]
 * ```
 */
export class ReplyExtras {
  private content: TokenLogprob[] | null = null;
  private refusal: TokenLogprob[] | null = null;
  private readonly sources: Source[] = [];
  private audio: { id: string | null; data: TextBuilder; transcript: TextBuilder; expiresAt: number | null } | undefined = undefined;
  private readonly tools = new Map<string, ProviderTool>();
  private cached: ReplyExtrasView | undefined = undefined;

  /** Folds in one event of the kinds this holds. */
  apply(event: LogprobsEvent | AudioEvent | ProviderToolCallEvent | ProviderToolResultEvent | { type: 'source'; source: Source }): void {
    this.cached = undefined;
    switch (event.type) {
      case 'logprobs':
        if (event.content !== undefined) appendAll((this.content ??= []), event.content);
        if (event.refusal !== undefined) appendAll((this.refusal ??= []), event.refusal);
        return;
      case 'source':
        this.sources.push(event.source);
        return;
      case 'audio': {
        const audio = (this.audio ??= { id: null, data: new TextBuilder(), transcript: new TextBuilder(), expiresAt: null });
        if (event.id !== undefined) audio.id = event.id;
        if (event.data !== undefined) audio.data.append(event.data);
        if (event.transcript !== undefined) audio.transcript.append(event.transcript);
        if (event.expiresAt !== undefined) audio.expiresAt = event.expiresAt;
        return;
      }
      case 'provider-tool-call':
        this.tool(event.call.id).call = event.call;
        return;
      case 'provider-tool-result':
        this.tool(event.id).result = { value: event.result };
        return;
    }
  }

  /** What a completion shows of these parts: only those that came. The same object until one changes. */
  view(): ReplyExtrasView {
    if (this.cached !== undefined) return this.cached;
    const view: { -readonly [K in keyof ReplyExtrasView]: ReplyExtrasView[K] } = {};
    if (this.content !== null || this.refusal !== null) {
      const content = this.content;
      const refusal = this.refusal;
      const contentLength = content?.length ?? 0;
      const refusalLength = refusal?.length ?? 0;
      let copy: Logprobs | undefined;
      Object.defineProperty(view, 'logprobs', {
        enumerable: true,
        get: (): Logprobs =>
          (copy ??= {
            content: content === null ? null : content.slice(0, contentLength),
            refusal: refusal === null ? null : refusal.slice(0, refusalLength),
          }),
      });
    }
    if (this.sources.length > 0) view.sources = this.sources.slice();
    if (this.audio !== undefined) {
      const { id, data, transcript, expiresAt } = this.audio;
      view.audio = { id, data: data.value ?? '', transcript: transcript.value ?? '', expiresAt };
    }
    if (this.tools.size > 0) {
      const calls: ProviderToolCall[] = [];
      for (const tool of this.tools.values()) {
        if (tool.call === undefined) continue; // a result whose call never came shows with it, if it comes
        calls.push(tool.result === undefined ? tool.call : { ...tool.call, result: tool.result.value });
      }
      if (calls.length > 0) view.providerToolCalls = calls;
    }
    return (this.cached = view);
  }

  private tool(id: string): ProviderTool {
    let tool = this.tools.get(id);
    if (tool === undefined) this.tools.set(id, (tool = { call: undefined, result: undefined }));
    return tool;
  }
}

/** Appends every item: `push(...items)` would overflow the stack on a very long array. */
/**
 * `target` with the parts of `view` added, getters kept as getters: a spread would read the log
 * probabilities' getter and copy every token now.
 */
export function withExtras<T extends object>(target: T, view: ReplyExtrasView): T & ReplyExtrasView {
  return Object.defineProperties(target, Object.getOwnPropertyDescriptors(view)) as T & ReplyExtrasView;
}

function appendAll<T>(to: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) to.push(items[i]!);
}
