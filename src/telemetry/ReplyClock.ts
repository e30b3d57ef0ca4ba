import type { ChatEvent } from '../types/events.js';

/**
 * How a reply came in over time, for apps with or without OpenTelemetry: what `measureReply` and
 * `withGenAiTelemetry` hand to `onTimings` once the reply ended (whole, cut, failed or cancelled).
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
   * {@link MAX_KEPT_GAPS} gaps; past that, the median of an even subsample of them (every second,
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

/** How many gaps a reply keeps exactly for the median before it thins them out. */
export const MAX_KEPT_GAPS = 4096;

/**
 * The pure core of the timings: told each event and the time it came, it keeps the first chunk's
 * time, the gaps between chunks (a capped sample, see {@link ReplyTimings.gapP50Ms}) and the
 * longest gap, and the output tokens of the last usage report.
 *
 * @example
 * ```ts
 * import { ReplyClock } from 'rxjs-llm-stream/core';
 *
 * const clock = new ReplyClock(0);
 * clock.event({ type: 'content', choice: 0, text: 'Hi' }, 120);
 * clock.end(300).timeToFirstChunkMs; // 120
 * ```
 */
export class ReplyClock {
  readonly #start: number;
  #first: number | null = null;
  #last = 0;
  #chunks = 0;
  #maxGap = -1;
  /** The gaps kept for the median: every `#stride`-th gap once the first {@link MAX_KEPT_GAPS} filled it. */
  #gaps: number[] = [];
  #stride = 1;
  #skipped = 0;
  #outputTokens: number | null = null;

  /** @param start The time the reply began (the subscription). */
  constructor(start: number) {
    this.#start = start;
  }

  /**
   * Takes one event at time `now`; returns the gap since the chunk before when the event is a chunk
   * after the first, else `-1` (what `time_per_output_chunk` records).
   */
  event(event: ChatEvent, now: number): number {
    switch (event.type) {
      case 'content':
      case 'reasoning':
      case 'refusal':
      case 'tool-call-delta':
      case 'audio':
        return this.#chunk(now);
      case 'usage':
        if (event.usage.completionTokens !== null) this.#outputTokens = event.usage.completionTokens;
        return -1;
      default:
        return -1;
    }
  }

  /** Whether a chunk has come. */
  get started(): boolean {
    return this.#first !== null;
  }

  /** Milliseconds from the start to the first chunk, `null` before it. */
  get timeToFirstChunk(): number | null {
    return this.#first === null ? null : this.#first - this.#start;
  }

  /** The figures as of `now`, the reply's end. */
  end(now: number): ReplyTimings {
    const first = this.#first;
    const tokens = this.#outputTokens;
    const generating = first === null ? 0 : now - first;
    return {
      timeToFirstChunkMs: first === null ? null : first - this.#start,
      chunks: this.#chunks,
      gapP50Ms: this.#gaps.length === 0 ? null : median(this.#gaps),
      gapMaxMs: this.#maxGap < 0 ? null : this.#maxGap,
      durationMs: now - this.#start,
      outputTokens: tokens,
      outputTokensPerSecond: tokens === null || generating <= 0 ? null : tokens / (generating / 1000),
    };
  }

  #chunk(now: number): number {
    this.#chunks++;
    if (this.#first === null) {
      this.#first = now;
      this.#last = now;
      return -1;
    }
    const gap = now - this.#last;
    this.#last = now;
    if (gap > this.#maxGap) this.#maxGap = gap;
    if (++this.#skipped >= this.#stride) {
      this.#skipped = 0;
      this.#gaps.push(gap);
      // Full: keep every second gap and take every second one from now on, so the sample stays even.
      if (this.#gaps.length >= MAX_KEPT_GAPS) {
        this.#gaps = this.#gaps.filter((_, i) => i % 2 === 1);
        this.#stride *= 2;
      }
    }
    return gap;
  }
}

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
