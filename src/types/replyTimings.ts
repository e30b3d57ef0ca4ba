/**
 * How a reply came in over time, for apps with or without OpenTelemetry: what `measureReply` and
 * `withGenAiTelemetry` hand to `onTimings` once the reply ended (whole, cut, failed or cancelled), and
 * what `measureReply` puts on the reply itself (`Completion.replyTimings`, through `finalizeCompletion`).
 * Times are milliseconds of the clock the operator was given (`performance.now()` by default).
 *
 * A chunk is an event that carries output: `content`, `reasoning`, `refusal`, `tool-call-delta` or
 * `audio`. The stream's bookkeeping (`start`, `usage`, `finish`, `done`, metadata) and a server's
 * pings (which make no event) are not chunks: a stream that pings and says nothing has no first chunk.
 *
 * @example
 * ```ts
 * import type { ReplyTimings } from 'rxjs-llm-stream';
 *
 * const show = (t: ReplyTimings) => `${t.timeToFirstChunkMs ?? '-'} ms to the first chunk, ${t.outputTokensPerSecond ?? '-'} tokens/s`;
 * ```
 */
export interface ReplyTimings {
  /** From the subscription (the request, for a cold source) to the first chunk; `null` when none came. */
  readonly timeToFirstChunkMs: number | null;
  /** How many chunks came. */
  readonly chunks: number;
  /**
   * The median gap between two chunks in a row; `null` with fewer than two chunks. Exact up to
   * 4,096 gaps (`MAX_KEPT_GAPS`); past that, the median of an even subsample of them (every second,
   * then every fourth, ...): the memory a reply holds for it is capped.
   */
  readonly gapP50Ms: number | null;
  /** The longest gap between two chunks in a row (exact); `null` with fewer than two chunks. */
  readonly gapMaxMs: number | null;
  /** From the subscription to the end (complete, error or unsubscribe). */
  readonly durationMs: number;
  /** The output tokens the provider reported (`usage.completionTokens`); `null` when it reported none. */
  readonly outputTokens: number | null;
  /**
   * `outputTokens` over the time from the first chunk to the end, per second; `null` without output
   * tokens, without a chunk, or when that time is zero.
   */
  readonly outputTokensPerSecond: number | null;
}
