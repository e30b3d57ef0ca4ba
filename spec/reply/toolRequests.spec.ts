import { from, toArray } from 'rxjs';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { ChatEvent, ToolRequest } from '../../src/types/events';
import { collectSync } from '../support/collect';
import { readReply, sseOf } from '../support/pipeline';

// `toolRequests`: the calls that wait for the program's answer or approval and are not plain function
// calls, kept apart from `toolCalls` (what the program runs) and `providerToolCalls` (what the
// provider ran). The requests are written by hand in the `ToolRequest` shape.

const APPROVAL: ToolRequest = {
  id: 'mcpr_1',
  type: 'mcp_approval_request',
  kind: 'approval',
  name: 'create_issue',
  input: { server_label: 'github', arguments: '{"title":"Bug"}' },
};
const PATCH: ToolRequest = {
  id: 'call_ap',
  type: 'apply_patch_call',
  kind: 'client-tool',
  name: null,
  input: { operation: { type: 'delete_file', path: 'old.ts' } },
};

/** This library's own stream (`chat-events`): one `event:`-named SSE event per event, as `toMessageEvents` writes them. */
function chatEventsText(events: readonly ChatEvent[]): string {
  const written = collectSync(from(events).pipe(toMessageEvents(), toArray())).values[0]!;
  return written.map((message) => `event: ${message.type}\nid: ${message.id}\ndata: ${message.data}\n\n`).join('');
}

describe('toolRequests', () => {
  it('folds the requests of each choice in arrival order, choice 0 at the top level', () => {
    const tracker = new CompletionTracker();
    const events: ChatEvent[] = [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'tool-request', choice: 0, request: APPROVAL },
      { type: 'tool-request', choice: 1, request: PATCH },
      { type: 'tool-request', choice: 0, request: PATCH },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
      { type: 'finish', choice: 1, reason: 'stop', raw: 'completed' },
      { type: 'done' },
    ];
    for (const event of events) tracker.apply(event);
    const completion = tracker.complete();
    expect(completion.toolRequests).toEqual([APPROVAL, PATCH]);
    expect(completion.choices[0]!.toolRequests).toEqual([APPROVAL, PATCH]);
    expect(completion.choices[1]!.toolRequests).toEqual([PATCH]);
    expect(completion.toolCalls).toEqual([]);
  });

  it('is absent from a reply that made none', () => {
    const tracker = new CompletionTracker();
    for (const event of [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'content', choice: 0, text: 'Hi' },
      { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
      { type: 'done' },
    ] as ChatEvent[])
      tracker.apply(event);
    expect(tracker.complete()).not.toHaveProperty('toolRequests');
  });

  it('is a whole reply when it is all the stream carried, and its finish stays stop (chat-events)', () => {
    const { completion, error } = readReply(
      sseOf(
        [
          { type: 'start', id: 'r1', model: 'm' },
          { type: 'tool-request', choice: 0, request: APPROVAL },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
          { type: 'done' },
        ],
        true,
      ),
      'chat-events',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ id: 'r1', finishReason: 'stop', toolCalls: [], toolRequests: [APPROVAL] });
  });

  it('crosses the relay: a Responses reply read, written as chat-events and read again, keeps its requests and namespaces', () => {
    // A Responses reply (openai 7.x types: ResponseFunctionToolCall with `namespace`, an
    // `apply_patch_call`) as the server reads it...
    const event = (type: string, n: number, extra: Record<string, unknown>): Record<string, unknown> => ({
      type,
      sequence_number: n,
      ...extra,
    });
    const response = (status: string): Record<string, unknown> => ({
      id: 'resp_1',
      object: 'response',
      status,
      model: 'gpt-5',
      output: [],
    });
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'search', namespace: 'crm', arguments: '{"q":"Ada"}' };
    const patch = { id: 'apc_1', type: 'apply_patch_call', call_id: 'call_ap', status: 'completed', operation: PATCH.input };
    const upstream = sseOf(
      [
        event('response.created', 0, { response: response('in_progress') }),
        event('response.output_item.done', 1, { output_index: 0, item: call }),
        event('response.output_item.done', 2, { output_index: 1, item: { ...patch, operation: { type: 'delete_file', path: 'old.ts' } } }),
        event('response.completed', 3, { response: response('completed') }),
      ],
      true,
    );
    const server = readReply(upstream, 'openai-responses');
    expect(server.error).toBeUndefined();
    // ...and as a client of the relay reads it back.
    const { completion, error } = readReply(chatEventsText(server.events), 'chat-events');
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ index: 0, id: 'call_1', name: 'search', namespace: 'crm', arguments: '{"q":"Ada"}', args: { q: 'Ada' } }],
      toolRequests: [PATCH],
    });
  });
});
