import type { JsonValue, ProviderToolCall } from '../../types/replyParts.js';
import type { ReplyPart } from './ReplyPart.js';

/** One provider-run tool as far as it has arrived: its call, then its result. */
interface ProviderTool {
  call: ProviderToolCall | undefined;
  result: { readonly value: JsonValue } | undefined;
}

/**
 * `providerToolCalls`: the tools the provider ran itself, each call joined with its result by id, in
 * the order their first event came, each with where its first report came in the turn (`at`, set by
 * the fold that feeds this part). A result whose call never came shows with it, if it comes.
 *
 * @example
 * ```ts
 * const tools = providerToolCallsPart.start();
 * providerToolCallsPart.fold(tools, { type: 'provider-tool-result', choice: 0, id: 'srv_1', result: 'ok' });
 * ```
 */
export const providerToolCallsPart: ReplyPart<'providerToolCalls', Map<string, ProviderTool>> = {
  field: 'providerToolCalls',
  events: ['provider-tool-call', 'provider-tool-result'],
  start: () => new Map(),
  fold(tools, event) {
    if (event.type === 'provider-tool-call') {
      // A second report of a call replaces what it was given, not where it came.
      const tool = toolOf(tools, event.call.id);
      tool.call = { ...event.call, at: tool.call?.at ?? event.at ?? NOWHERE };
    } else if (event.type === 'provider-tool-result') toolOf(tools, event.id).result = { value: event.result };
  },
  show(tools, view) {
    const calls: ProviderToolCall[] = [];
    for (const tool of tools.values()) {
      if (tool.call === undefined) continue;
      calls.push(tool.result === undefined ? tool.call : { ...tool.call, result: tool.result.value });
    }
    if (calls.length > 0) view.providerToolCalls = calls;
  },
};

/** The place of a call whose event had none (the fold gives every event one; a part folded by hand may not). */
const NOWHERE = { reasoning: 0, content: 0, items: 0, calls: 0 } as const;

function toolOf(tools: Map<string, ProviderTool>, id: string): ProviderTool {
  let tool = tools.get(id);
  if (tool === undefined) tools.set(id, (tool = { call: undefined, result: undefined }));
  return tool;
}
