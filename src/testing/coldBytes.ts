import { Observable, SchedulerAction, SchedulerLike, asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ResponseCheckOptions, checkedBody } from '../io/checkedBody.js';
import { BytesRead, transportFailure } from '../io/transportFailure.js';
import type { ProviderStream } from './ProviderStream.js';

/**
 * When the chunks of a stream arrive, in the scheduler's time (virtual milliseconds inside
 * `testScheduler.run`):
 *
 * - a marble string, each letter the next chunk in order: `'-a-b--(cd)|'` (`-` a frame, `( )` one
 *   frame for several, `|` the end, `#` the connection failing, `10ms ` a time progression). A `|`
 *   comes after every chunk; before a `#`, or in marbles that never end, the rest never arrive;
 * - `{ every: n }`: one chunk every `n` (the first at `n`), the end with the last;
 * - `{ over: d }`: the chunks spread evenly over `d`, the last (and the end) at `d`.
 */
export type ChunkTiming = string | { readonly every: number } | { readonly over: number };

/** Options of `coldBytes`. */
export interface ColdBytesOptions extends ResponseCheckOptions {
  /** The clock: `asyncScheduler` by default, which `testScheduler.run` makes virtual. */
  readonly scheduler?: SchedulerLike;
  /** The platform's error behind a `#` (default undici's `TypeError: terminated`, a reset connection). */
  readonly error?: unknown;
}

/** One moment of the stream: the chunks due then, and whether it ends (`complete`) or fails (`error`) there. */
interface Step {
  readonly frame: number;
  readonly chunks: Uint8Array[];
  end?: 'complete' | 'error';
}

/** The marble characters that have no place in a cold body: a subscription point, an unsubscription. */
const NOT_COLD = /[\^!]/;

/** The steps of a marble string, checked against the stream it places. */
function marbleSteps(stream: ProviderStream, marbles: string): Step[] {
  if (NOT_COLD.test(marbles)) throw new TypeError(`coldBytes: a cold body has no subscription marks (^ or !): '${marbles}'`);
  const steps: Step[] = [];
  let next = 0;
  for (const { frame, notification } of TestScheduler.parseMarbles(marbles, undefined, undefined, false, true)) {
    let step = steps[steps.length - 1];
    if (step === undefined || step.frame !== frame) steps.push((step = { frame, chunks: [] }));
    if (notification.kind === 'N') {
      const chunk = stream.chunks[next++];
      if (chunk !== undefined) step.chunks.push(chunk);
    } else step.end = notification.kind === 'C' ? 'complete' : 'error';
  }
  // Fewer chunks are fine before a `#` (the rest never arrive) or where the marbles never end (the
  // rest are still to come); a `|` ends the stream, so it must come after all of them.
  const ends = steps.some((step) => step.end === 'complete');
  if (next > stream.chunks.length || (ends && next < stream.chunks.length)) {
    const placed = `${next} chunk${next === 1 ? '' : 's'}${ends ? ' before its end' : ''}`;
    throw new TypeError(`coldBytes: '${marbles}' places ${placed}, the stream has ${stream.chunks.length}`);
  }
  if (stream.stalls && ends) {
    throw new TypeError(`coldBytes: the stream stalls, so '${marbles}' cannot end it with |`);
  }
  return steps;
}

/** The steps of chunks at even intervals: chunk k at `at(k)`, the end with the last. */
function evenSteps(stream: ProviderStream, at: (k: number) => number): Step[] {
  const steps: Step[] = stream.chunks.map((chunk, k) => ({ frame: at(k), chunks: [chunk] }));
  if (stream.stalls) return steps;
  const last = steps[steps.length - 1];
  if (last === undefined) return [{ frame: 0, chunks: [], end: 'complete' }];
  last.end = 'complete';
  return steps;
}

function stepsOf(stream: ProviderStream, timing: ChunkTiming): Step[] {
  if (typeof timing === 'string') return marbleSteps(stream, timing);
  const count = stream.chunks.length;
  const span = 'every' in timing ? timing.every : timing.over;
  if (!(Number.isFinite(span) && span >= 0))
    throw new TypeError(`coldBytes: the timing must be a number of milliseconds, got ${String(span)}`);
  return 'every' in timing ? evenSteps(stream, (k) => span * (k + 1)) : evenSteps(stream, (k) => Math.round((span * (k + 1)) / count));
}

/**
 * A provider stream as a cold `Observable<Uint8Array>` whose chunks arrive when `timing` says, for
 * marble tests: what `fromResponse` would give for the stream's response. Its status and content
 * type are checked as `fromResponse` checks them (an error status is a `ProviderError` with the body
 * it carried, a content type that is not a stream's a `ProtocolError`), a `#` is the connection
 * failing (a `StreamClosedEarlyError` whose `cause` is `options.error`), and a stream that stalls
 * never ends: put `idleTimeout(ms)` after it to see the `StreamIdleError`, in virtual time.
 *
 * Each subscription starts the timing afresh from its own start, with copies of the chunks.
 *
 * ```
 * stream.chunks:  [c0, c1, c2]
 * coldBytes(stream, '-a--b-c|'):  -c0--c1-c2|
 * coldBytes(stream, { every: 2 }): --c0-c1-(c2|)
 * ```
 *
 * @example
 * ```ts
 * import { map } from 'rxjs';
 * import { TestScheduler } from 'rxjs/testing';
 * import { decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 * import { bodyStream, coldBytes } from 'rxjs-llm-stream/testing';
 *
 * const stream = bodyStream(['data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n']);
 * new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ expectObservable }) => {
 *   const completion$ = coldBytes(stream, '--a--b|').pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion());
 *   expectObservable(completion$.pipe(map((c) => c.content))).toBe('------(c|)', { c: 'Hi' });
 * });
 * ```
 *
 * @param stream The chunks, status, content type and stall of a reply.
 * @param timing A marble string, `{ every }` or `{ over }`. Default `{ every: 1 }`.
 * @param options `scheduler`, `error` (behind `#`), `contentTypes` (as `fromResponse` takes it).
 * @returns The body as `fromResponse` would deliver it, in the scheduler's time.
 */
export function coldBytes(
  stream: ProviderStream,
  timing: ChunkTiming = { every: 1 },
  options: ColdBytesOptions = {},
): Observable<Uint8Array> {
  // Checked once now, so that a marble string that does not fit the stream fails where it is written.
  stepsOf(stream, timing);
  const scheduler = options.scheduler ?? asyncScheduler;
  const body$ = new Observable<Uint8Array>((subscriber) => {
    // Parsed again for each subscription: inside `testScheduler.run` a frame is 1 ms, outside 10.
    const steps = stepsOf(stream, timing);
    const read: BytesRead = { chunks: 0, bytes: 0 };
    const deliver = function (this: SchedulerAction<number>, index = 0): void {
      const step = steps[index]!;
      for (const chunk of step.chunks) {
        read.chunks++;
        read.bytes += chunk.length;
        subscriber.next(chunk.slice());
      }
      if (step.end === 'complete') subscriber.complete();
      else if (step.end === 'error') subscriber.error(transportFailure(options.error ?? new TypeError('terminated'), read));
      else if (index + 1 < steps.length) this.schedule(index + 1, steps[index + 1]!.frame - step.frame);
    };
    if (steps.length > 0) subscriber.add(scheduler.schedule(deliver, steps[0]!.frame, 0));
  });
  return checkedBody({ status: stream.status, contentType: stream.contentType }, body$, options);
}
