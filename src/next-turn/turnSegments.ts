import type { OpaqueItem, ProviderToolCall } from '../types/replyParts.js';
import type { AssistantReply } from './AssistantReply.js';

/**
 * A piece of a turn in the order it arrived: reasoning or content text with the items that sign it
 * (the items of its part that came where it ends), an item of its own (a redacted block, a
 * compaction, a signature with no text before it), or a tool the provider ran.
 */
export type TurnSegment = TextSegment | { readonly kind: 'provider-tool'; readonly call: ProviderToolCall };

/** A segment of text or an opaque item: what a turn is cut into when the provider's tools are not placed. */
export type TextSegment =
  | { readonly kind: 'reasoning' | 'content'; readonly text: string; readonly signedBy: readonly OpaqueItem[] }
  | { readonly kind: 'item'; readonly item: OpaqueItem };

/** Options of `turnSegments`. */
export interface TurnSegmentOptions {
  /**
   * Place the tools the provider ran among the segments, each where it came (for a provider whose
   * next request takes them back: Anthropic's server tools, Gemini's `toolCall` and code execution).
   * The text they stand between is then cut at each.
   */
  readonly providerTools?: boolean;
}

interface OpenSegment {
  readonly kind: 'reasoning' | 'content';
  readonly text: string;
  readonly signedBy: OpaqueItem[];
}

/**
 * The reasoning and content of choice 0 cut where its opaque items of `provider` arrived, in arrival
 * order, with each item placed by its `at`: an item of the reasoning or the content signs the text of
 * its part since the item before it (a `span` says where that text starts when an unsigned block came
 * before it), any other item stands at its place. Where both texts grew between two items, the
 * reasoning comes first (a model thinks before it answers). The calls' items are not among them: they
 * go with their calls. With `providerTools`, each tool the provider ran stands at its `at`: after
 * the text and the opaque items that came before it.
 *
 * @example
 * ```ts
 * // reasoning 'ab', a signature at { reasoning: 2, content: 0 }, then content 'ok':
 * turnSegments(reply, 'anthropic');
 * // [{ kind: 'reasoning', text: 'ab', signedBy: [signature] }, { kind: 'content', text: 'ok', signedBy: [] }]
 * ```
 */
export function turnSegments(
  reply: AssistantReply,
  provider: string,
  options: TurnSegmentOptions & { readonly providerTools: true },
): TurnSegment[];
export function turnSegments(reply: AssistantReply, provider: string): TextSegment[];
export function turnSegments(reply: AssistantReply, provider: string, options: TurnSegmentOptions = {}): TurnSegment[] {
  const reasoning = reply.reasoning ?? '';
  const content = reply.content ?? '';
  const segments: (OpenSegment | TurnSegment)[] = [];
  const cursor = { reasoning: 0, content: 0 };
  const advance = (kind: 'reasoning' | 'content', to: number): OpenSegment | undefined => {
    const text = (kind === 'reasoning' ? reasoning : content).slice(cursor[kind], to);
    if (to <= cursor[kind]) return undefined;
    cursor[kind] = to;
    const segment: OpenSegment = { kind, text, signedBy: [] };
    segments.push(segment);
    return segment;
  };
  // In the order they came among the items (a result can come before its call, and so list it first).
  const tools = options.providerTools === true ? [...(reply.providerToolCalls ?? [])].sort((a, b) => a.at.items - b.at.items) : [];
  let placed = 0;
  /** Places the tools that came before the item numbered `items`, each after the text before it. */
  const placeTools = (items: number): void => {
    for (; placed < tools.length && tools[placed]!.at.items <= items; placed++) {
      const call = tools[placed]!;
      advance('reasoning', Math.min(call.at.reasoning, reasoning.length));
      advance('content', Math.min(call.at.content, content.length));
      segments.push({ kind: 'provider-tool', call });
    }
  };
  const items = reply.opaqueItems ?? [];
  for (let number = 0; number < items.length; number++) {
    placeTools(number);
    const item = items[number]!;
    if (item.provider !== provider || item.part === 'tool-call') continue;
    const span = item.part === 'content' || item.part === 'reasoning' ? item.span : undefined;
    // Text of the part before the block the item signs is a block of its own, unsigned.
    if (span !== undefined && item.part !== 'turn') advance(item.part, Math.min(span.start, item.at[item.part]));
    const reasoningBlock = advance('reasoning', Math.min(item.at.reasoning, reasoning.length));
    const contentBlock = advance('content', Math.min(item.at.content, content.length));
    const signs = item.kind !== 'redacted-reasoning';
    const signed = !signs ? undefined : item.part === 'reasoning' ? reasoningBlock : item.part === 'content' ? contentBlock : undefined;
    const last = segments[segments.length - 1];
    if (signed !== undefined) signed.signedBy.push(item);
    else if (signs && last !== undefined && last.kind === item.part && lastEndsAt(last, item, cursor)) {
      // A second item over the same text (OpenRouter's entries of one block, a signature after a span).
      (last as OpenSegment).signedBy.push(item);
    } else segments.push({ kind: 'item', item });
  }
  placeTools(Infinity);
  advance('reasoning', reasoning.length);
  advance('content', content.length);
  return segments;
}

function lastEndsAt(last: TurnSegment, item: OpaqueItem, cursor: { reasoning: number; content: number }): boolean {
  return (
    (last.kind === 'reasoning' || last.kind === 'content') &&
    (item.part === 'reasoning' || item.part === 'content') &&
    item.at[item.part] === cursor[item.part]
  );
}
