import type { TestReply } from '../../src/dialects/writing/TestReply';
import type { ProviderFormat } from '../../src/dialects/writing/wire';
import { providerStream } from '../../src/testing/writeProviderStream';
import type { ToolLoopEvent } from '../../src/tool-loop/ToolLoopEvent';

/** A reply's whole body in `format`, as one chunk. */
export function wholeBody(reply: TestReply, format: ProviderFormat = 'openai-chat'): Uint8Array {
  return providerStream(reply, format, { chunking: 'whole' }).chunks[0]!;
}

/** A reply of one call per entry (`[name, arguments]`), with the usage given. */
export function callsReply(calls: readonly (readonly [string, unknown])[], usage?: TestReply['usage']): TestReply {
  return {
    choices: [{ toolCalls: calls.map(([name, args]) => ({ name, arguments: args as never })) }],
    ...(usage === undefined ? {} : { usage }),
  };
}

/** A reply of text alone: the last step of a loop. */
export function textReply(text: string): TestReply {
  return { choices: [{ text }] };
}

/** What a test reads of a loop event: its type, step and what it is about (reply events left out by `summaries`). */
export function summary(event: ToolLoopEvent<unknown>): string {
  switch (event.type) {
    case 'step-start':
    case 'step-finish':
      return `${event.type} ${event.step}`;
    case 'event':
      return `event ${event.step} ${event.event.type}`;
    case 'approval-request':
      return `approval-request ${event.step} ${event.call.id}`;
    case 'tool-result':
      return `tool-result ${event.step} ${event.call.id} ${JSON.stringify(event.result.output)}`;
    case 'tool-error':
      return `tool-error ${event.step} ${event.call.id} ${event.reason}`;
    case 'loop-finish':
      return `loop-finish ${event.reason}`;
  }
}
