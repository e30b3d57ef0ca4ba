import type { ProviderStream } from '../../src/testing/ProviderStream';
import type { TestReply } from '../../src/testing/TestReply';

// STAND-IN, to be deleted: the recipes import `providerStream` from here until the kit's own
// (`providerStream` in rxjs-llm-stream/testing, written beside the kit's edges) is merged. Then each
// `from './providerStream.standIn.js'` / `'../providerStream.standIn.js'` becomes
// `from 'rxjs-llm-stream/testing'` and this file goes.
//
// It writes what the recipes need and nothing else: one openai-chat choice (a role chunk, the text
// a word at a time, each call's first fragment and then its arguments four characters at a time, the
// finish, `[DONE]`), one chunk per event or the whole body in one, and three faults with the outcome
// the kit's stream carries.

type Fault = 'cut-mid-line' | 'cut-in-arguments' | 'stall';

/** The error a fault ends in, and what its `partial` shows (the kit's `stream.fault`). */
interface StandInFault {
  readonly kind: Fault;
  readonly error: 'StreamClosedEarlyError' | 'StreamIdleError';
  readonly reason: string;
  readonly partial: { readonly content: string | null; readonly choices: readonly { readonly content: string | null }[] };
}

/** One event: its payload, and the text it carries. */
interface Written {
  readonly data: string;
  readonly text: string;
  readonly firstArguments?: boolean;
}

const pieces = (text: string, size: number): string[] => text.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];

function events(reply: TestReply): Written[] {
  const choice = reply.choices[0] ?? {};
  const chunk = (delta: object, finish: string | null = null): string =>
    JSON.stringify({
      id: reply.id ?? 'chatcmpl-test',
      object: 'chat.completion.chunk',
      model: reply.model ?? 'test-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const written: Written[] = [{ data: chunk({ role: 'assistant', content: '' }), text: '' }];
  for (const word of (choice.text ?? '').match(/\S*\s*/g)?.filter((w) => w !== '') ?? [])
    written.push({ data: chunk({ content: word }), text: word });
  (choice.toolCalls ?? []).forEach((call, index) => {
    const text = 'raw' in (call.arguments as object) ? (call.arguments as { raw: string }).raw : JSON.stringify(call.arguments);
    const id = call.id ?? `call_${index}`;
    written.push({
      data: chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      text: '',
    });
    pieces(text, 4).forEach((piece, k) =>
      written.push({
        data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
        text: '',
        firstArguments: k === 0 && text.length > 4,
      }),
    );
  });
  const finish = choice.finishReason ?? ((choice.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
  written.push({ data: chunk({}, finish), text: '' }, { data: '[DONE]', text: '' });
  return written;
}

const partialOf = (kept: readonly Written[]): StandInFault['partial'] => {
  const content = kept.map((event) => event.text).join('');
  return { content, choices: [{ content }] };
};

/** The kit's `providerStream(reply, 'openai-chat', { fault })`, as far as the recipes use it. */
export function providerStream(
  reply: TestReply,
  format: 'openai-chat',
  options: { fault?: Fault; chunking?: 'events' | 'whole' } = {},
): ProviderStream & { fault?: StandInFault } {
  const all = events(reply);
  const bytes = (event: Written): string => `data: ${event.data}\n\n`;
  const middle = Math.floor((all.length - 1) / 2);
  let body = all.map(bytes);
  let fault: StandInFault | undefined;
  let stalls = false;
  if (options.fault === 'cut-mid-line') {
    body = [...all.slice(0, middle).map(bytes), bytes(all[middle]!).slice(0, 20)];
    fault = { kind: 'cut-mid-line', error: 'StreamClosedEarlyError', reason: 'mid-line', partial: partialOf(all.slice(0, middle)) };
  } else if (options.fault === 'cut-in-arguments') {
    const cut = all.findIndex((event) => event.firstArguments === true) + 1;
    body = all.slice(0, cut).map(bytes);
    fault = { kind: 'cut-in-arguments', error: 'StreamClosedEarlyError', reason: 'no-end-signal', partial: partialOf(all.slice(0, cut)) };
  } else if (options.fault === 'stall') {
    body = all.slice(0, middle + 1).map(bytes);
    stalls = true;
    fault = { kind: 'stall', error: 'StreamIdleError', reason: 'idle', partial: partialOf(all.slice(0, middle + 1)) };
  }
  return {
    dialect: format,
    contentType: 'text/event-stream; charset=utf-8',
    status: 200,
    chunks: (options.chunking === 'whole' ? [body.join('')] : body).map((text) => new TextEncoder().encode(text)),
    stalls,
    ...(fault === undefined ? {} : { fault }),
  };
}
