import type { Completion } from '../types/completion.js';
import type { ChatEvent } from '../types/events.js';
import { ReplyDifference, describeDifference, differences } from './replyDiff.js';
import { completionView, eventsView } from './actualView.js';
import { ReplyView, expectedView } from './replyView.js';
import type { TestReply } from '../dialects/writing/TestReply.js';

/**
 * What `expectCompletion` and `expectEvents` throw: a plain `Error` (any test runner reports it)
 * whose message lists every difference, one line each, as `path: expected X, got Y`. `expected` and
 * `actual` hold the two sides as compared (runners that diff them, such as Vitest, Mocha and
 * `node:test`, show that diff too).
 */
export class ReplyMismatchError extends Error {
  override readonly name = 'ReplyMismatchError';
  readonly differences: readonly ReplyDifference[];
  readonly expected: ReplyView;
  readonly actual: ReplyView;

  /** `what` says what was checked, with its verb: `the completion is`, `the events are`. */
  constructor(what: string, found: readonly ReplyDifference[], expected: ReplyView, actual: ReplyView) {
    const count = found.length === 1 ? '1 difference' : `${found.length} differences`;
    super(`${what} not the reply (${count}):\n${found.map((difference) => `  ${describeDifference(difference)}`).join('\n')}`);
    this.differences = found;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * Checks a `Completion` against the reply a test described, and throws a `ReplyMismatchError`
 * naming every difference. Compared, per choice: the text and reasoning (absent is empty), the
 * complete tool calls in order (name; arguments as JSON, or as text where the reply gave `{ raw }`;
 * the id where the reply gave one), the call a `length` finish cut (in `incompleteToolCalls`, where
 * the library puts it), and the finish reason (`stop` when the reply names none, `tool_calls` when
 * the choice made calls); and the id, model and usage fields the reply names. What the reply does
 * not say is not checked.
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 * import { expectCompletion, fakeResponse, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const reply = { choices: [{ text: 'Hi', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }] };
 * const completion = await lastValueFrom(
 *   fromResponse(fakeResponse(providerStream(reply, 'anthropic'))).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()),
 * );
 * expectCompletion(completion, reply);
 * // on a difference: ReplyMismatchError: the completion is not the reply (1 difference):
 * //   choices[0].toolCalls[0].arguments.city: expected "Oslo", got "Bergen"
 * ```
 *
 * @param completion What the pipeline assembled.
 * @param reply What the test says the provider sent.
 */
export function expectCompletion(completion: Completion, reply: TestReply): void {
  const expected = expectedView(reply);
  const actual = completionView(completion, expected);
  const found = differences(expected, actual);
  if (found.length > 0) throw new ReplyMismatchError('the completion is', found, expected, actual);
}

/**
 * Checks the events of a stream (from `assembleChunks`, with or without `groupToolCallsByIndex`)
 * against the reply a test described, as `expectCompletion` checks a completion: the text and
 * reasoning they carry per choice, the calls (the `tool-call` events, or the fragments joined when
 * the events are ungrouped), each choice's `finish`, the `start`'s id and model and the usage the
 * reply names; and that the last event is the stream's end signal (`done`). Throws a
 * `ReplyMismatchError` naming every difference.
 *
 * @example
 * ```ts
 * import { lastValueFrom, toArray } from 'rxjs';
 * import { fromResponse, decodeUtf8, sseFrames, assembleChunks } from 'rxjs-llm-stream';
 * import { expectEvents, fakeResponse, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const reply = { choices: [{ reasoning: 'Short.', text: 'Yes.' }] };
 * const body$ = fromResponse(fakeResponse(providerStream(reply, 'openai-chat')));
 * const events = await lastValueFrom(body$.pipe(decodeUtf8(), sseFrames(), assembleChunks(), toArray()));
 * expectEvents(events, reply);
 * ```
 *
 * @param events The events, in order.
 * @param reply What the test says the provider sent.
 */
export function expectEvents(events: readonly ChatEvent[], reply: TestReply): void {
  const expected = expectedView(reply);
  const actual = eventsView(events, expected);
  const found = differences(expected, actual);
  const last = events[events.length - 1];
  // A stream without its end signal was cut, whatever it carried: the last event says so.
  if (last?.type !== 'done') found.push({ path: `events[${Math.max(events.length - 1, 0)}].type`, expected: 'done', actual: last?.type });
  if (found.length > 0) throw new ReplyMismatchError('the events are', found, expected, actual);
}
