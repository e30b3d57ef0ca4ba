import { Observable, SchedulerLike, Subscription, asyncScheduler } from 'rxjs';
import { SseFrame } from '../frames/SseParser.js';
import { isErrorFrame } from '../dialects/base/finalFrames.js';
import { DIALECTS } from '../dialects/registry.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { LONGEST_DELAY } from '../internal/idleWatch.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/** Options of `resumeFrames`. */
export interface ResumeFramesOptions {
  /**
   * How many reconnections in a row may fail to deliver a new frame before giving up (default 3;
   * `0` never reconnects). A connection that delivers a new frame starts the count again, so a long
   * reply over a link that drops now and then is not cut off by its third drop.
   */
  readonly maxAttempts?: number;
  /**
   * The wait before reconnecting, in milliseconds, when the server never sent `retry:` (default
   * 1000). The server's `retry` always wins: it knows its own load.
   */
  readonly delayMs?: number;
  /**
   * Each further reconnection in a row waits this many times longer (default 1: a constant wait,
   * as `EventSource` does). With 2, the waits are 1×, 2×, 4× the base.
   */
  readonly backoff?: number;
  /**
   * True for the frame that ends the stream; after it, an end of the connection is the stream's
   * own end and nothing is resumed. Default: {@link isFinalFrame}, which knows every dialect's end.
   * Pass your own for a format of your own.
   */
  readonly isFinal?: (frame: SseFrame) => boolean;
  /** Where the reconnection timer runs: `asyncScheduler` by default, a `TestScheduler` in marble tests. */
  readonly scheduler?: SchedulerLike;
}

/** The end tests the dialects declare, asked in turn by {@link isFinalFrame}. */
const DIALECT_ENDS: ReadonlyArray<(frame: SseFrame) => boolean> = Object.values(DIALECTS).flatMap((dialect) =>
  dialect.isFinal === undefined ? [] : [dialect.isFinal],
);

/**
 * The default end-of-stream test of `resumeFrames`: true for the frame after which a stream is
 * over, whether it completed or the provider reported an error. It asks each dialect's own end
 * test (`DialectFactory.isFinal`), so it knows every format `assembleChunks` reads:
 *
 * - `data: [DONE]` (OpenAI Chat Completions and every server that copies it, typed events);
 * - Anthropic's `message_stop`, and the OpenAI Responses terminal events `response.completed`,
 *   `response.incomplete` and `response.failed`, by their `event:` name or, when a proxy dropped
 *   the `event:` line, by the payload's `type`;
 * - Gemini's chunk in which every candidate has its `finishReason`, Ollama's `"done": true` line,
 *   llama.cpp `/completion`'s `"stop": true` chunk, Cohere's `message-end`, the Bedrock replies'
 *   ends, this library's own `event: done`;
 * - an error the provider sent in the stream (`event: error`, a payload of `type` `error`, or one
 *   with a non-null top-level `error`): the stream ends there, and asking again would not help.
 *
 * Each test parses only a payload that mentions its words, so the test costs little on ordinary
 * deltas.
 *
 * @example
 * ```ts
 * import { isFinalFrame, resumeFrames } from 'rxjs-llm-stream';
 *
 * // A server of your own that ends with `event: bye`:
 * resumeFrames(connect, { isFinal: (frame) => frame.event === 'bye' || isFinalFrame(frame) });
 * ```
 *
 * @param frame A frame as `sseFrames` gives it.
 * @returns True when the stream ends with this frame.
 */
export function isFinalFrame(frame: SseFrame): boolean {
  return isErrorFrame(frame) || DIALECT_ENDS.some((isFinal) => isFinal(frame));
}

/**
 * A failure of the connection rather than of the reply: errors from outside this library (a reset,
 * `fetch failed`, a socket timeout), a body cut mid-character or mid-line
 * (`StreamClosedEarlyError`), a stall caught by `idleTimeout` (`StreamIdleError`). A
 * `ProviderError` or `ProtocolError` is the server's answer, and asking again would not change it.
 */
function isTransportFailure(error: unknown): boolean {
  if (!isLlmStreamError(error)) return true;
  return error.name === 'StreamClosedEarlyError' || error.name === 'StreamIdleError';
}

/** How one connection ended. */
type Ending = { readonly error: unknown } | { readonly complete: true };

/**
 * A stream of SSE frames that survives dropped connections, as `EventSource` does, for servers
 * that support it: when the connection fails or ends before the stream's end, it connects again
 * with the last event id, so the server can send only what is missing.
 *
 * `connect(lastEventId)` opens one connection and returns its frames; it is called with
 * `undefined` first and with the last id seen on each reconnection. The caller decides how the id
 * travels: a `Last-Event-ID` header, a `starting_after` parameter, a resume URL.
 *
 * - **When it reconnects.** The connection errors with a transport failure (an error from outside
 *   this library, or `StreamClosedEarlyError` / `StreamIdleError` from the byte and frame layers)
 *   or completes before the final frame (`isFinal`, default {@link isFinalFrame}: `[DONE]`,
 *   `message_stop`, `response.completed|incomplete|failed`, an in-stream error), **and** the server
 *   has set SSE ids: the last frame carries a non-empty `id`. A server that sets no ids is never
 *   reconnected: asking again would send the prompt again and bill it twice; its error (or early
 *   end) passes through as is. Neither is a `ProviderError` or `ProtocolError`, ever.
 * - **When.** After the server's `retry` (the last one any frame carried), else `delayMs`, times
 *   `backoff` for each further attempt in a row.
 * - **Duplicates.** A frame whose id was already delivered on an earlier connection is skipped, so
 *   a server that replays from the start (or from a little before the id) still gives each frame
 *   once. Frames that share an id on the same connection (the id persists until the server sets
 *   another) all pass. Frames before the first `id:` line of a new connection cannot be checked
 *   and pass too.
 * - **Giving up.** After `maxAttempts` reconnections in a row without a new frame, the stream ends
 *   the way the first failure of that run would have ended it without this operator: with its
 *   error (the original, not the last attempt's), or by completing, so that `assembleChunks` says
 *   what is missing.
 *
 * Unsubscribing closes the current connection and cancels a pending reconnection.
 *
 * Intuition: `EventSource`'s reconnection, over any transport, minus its habit of asking again
 * after a stream that ended properly.
 *
 * ```
 * connect(undefined): --1--2--X               (X: the connection is reset)
 * connect('2'):                 (wait)--3--[DONE]|
 * out:                --1--2----------3--[DONE]|
 * ```
 *
 * @example
 * ```ts
 * import { fromFetch } from 'rxjs/fetch';
 * import { resumeFrames, fromResponse, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const completion$ = resumeFrames((lastEventId) =>
 *   fromFetch(url, {
 *     headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
 *     selector: (response) => fromResponse(response),
 *   }).pipe(decodeUtf8(), sseFrames()),
 * ).pipe(assembleChunks(), finalizeCompletion());
 * ```
 *
 * @param connect Opens one connection, given the last event id (`undefined` the first time).
 * @param options `maxAttempts`, `delayMs`, `backoff`, `isFinal`, `scheduler`.
 * @returns The frames of the stream, each once, across connections.
 */
export function resumeFrames(
  connect: (lastEventId: string | undefined) => Observable<SseFrame>,
  options: ResumeFramesOptions = {},
): Observable<SseFrame> {
  const maxAttempts = options.maxAttempts ?? 3;
  const delayMs = options.delayMs ?? 1000;
  const backoff = options.backoff ?? 1;
  const isFinal = options.isFinal ?? isFinalFrame;
  const scheduler = options.scheduler ?? asyncScheduler;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 0) {
    throw new TypeError(`resumeFrames: maxAttempts must be a whole number, got ${String(maxAttempts)}`);
  }
  if (!(delayMs >= 0) || !Number.isFinite(delayMs))
    throw new TypeError(`resumeFrames: delayMs must be a finite number >= 0, got ${String(delayMs)}`);
  if (!(backoff >= 1) || !Number.isFinite(backoff))
    throw new TypeError(`resumeFrames: backoff must be a finite number >= 1, got ${String(backoff)}`);

  return new Observable<SseFrame>((subscriber) => {
    // Per subscription, so that a resubscribe (retry, repeat) starts a new stream from scratch.
    /** Each id delivered, with the number of the connection that first delivered it. */
    const deliveredOn = new Map<string, number>();
    let connections = 0;
    let resumeId: string | undefined;
    let retryMs: number | undefined;
    let finalSeen = false;
    /** Reconnections since the last new frame, and how the first failure of that run ended. */
    let attempts = 0;
    let firstFailure: Ending | undefined;
    let timer: Subscription | undefined;
    subscriber.add(() => {
      timer?.unsubscribe();
      timer = undefined;
    });

    const end = (ending: Ending): void => {
      if ('error' in ending) subscriber.error(ending.error);
      else subscriber.complete();
    };

    const settle = (ending: Ending): void => {
      if ('error' in ending && !isTransportFailure(ending.error)) return end(ending);
      if (finalSeen || resumeId === undefined) return end(ending);
      firstFailure ??= ending;
      if (attempts >= maxAttempts) return end(firstFailure);
      attempts++;
      const wait = Math.min((retryMs ?? delayMs) * backoff ** (attempts - 1), LONGEST_DELAY);
      timer = scheduler.schedule(() => {
        timer = undefined;
        open();
      }, wait);
    };

    const open = (): void => {
      const connection = ++connections;
      // Whether this connection has set an id: a fresh parser gives `''` until the server repeats
      // one, which must not erase the resume point (EventSource keeps it across reconnections);
      // `''` after an id on the same connection is the server clearing it with an empty `id:`.
      let idSetHere = false;
      let frames$: Observable<SseFrame>;
      try {
        frames$ = connect(resumeId);
      } catch (error) {
        settle({ error });
        return;
      }
      subscribeLinked(frames$, subscriber, {
        next(frame) {
          if (frame.retry !== undefined) retryMs = frame.retry;
          if (frame.id !== '') {
            idSetHere = true;
            const firstDeliveredOn = deliveredOn.get(frame.id);
            // Delivered by an earlier connection: a replay. The resume point stays where it was.
            if (firstDeliveredOn !== undefined && firstDeliveredOn < connection) return;
            if (firstDeliveredOn === undefined) deliveredOn.set(frame.id, connection);
            resumeId = frame.id;
          } else if (idSetHere) {
            resumeId = undefined;
          }
          let final: boolean;
          try {
            final = isFinal(frame);
          } catch (error) {
            // A bug in the caller's test, not a transport failure: never a reason to reconnect.
            subscriber.error(error);
            return;
          }
          if (final) finalSeen = true;
          attempts = 0;
          firstFailure = undefined;
          subscriber.next(frame);
        },
        error: (error) => settle({ error }),
        complete: () => settle({ complete: true }),
      });
    };

    open();
  });
}
