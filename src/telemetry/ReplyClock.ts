import type { ChatEvent } from '../types/events.js';
import type { ReplyTimings } from '../types/replyTimings.js';

export type { ReplyTimings } from '../types/replyTimings.js';

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
 * clock.event({ type: 'content', choice: 0, text: 'Hi' }, () => 120);
 * clock.end(300).timeToFirstChunkMs; // 120
 * ```
 */
export class ReplyClock {
  readonly #start: number;
  #first: number | null = null;
  #last = 0;
  #chunks = 0;
  #maxGap = -1;
  /**
   * The gaps kept for the median, the first `#kept` of it: every `#stride`-th gap once the first
   * {@link MAX_KEPT_GAPS} filled it. A typed array, grown by doubling: its native numeric sort is
   * what makes the median cheap at the end of a long reply.
   */
  #gaps = new Float64Array(64);
  #kept = 0;
  #stride = 1;
  #skipped = 0;
  #outputTokens: number | null = null;

  /** @param start The time the reply began (the subscription). */
  constructor(start: number) {
    this.#start = start;
  }

  /**
   * Takes one event, reading the clock (`now`) only when it is a chunk: a clock read costs about as
   * much as the rest of the layer. Returns the gap since the chunk before when the event is a chunk
   * after the first, else `-1` (what `time_per_output_chunk` records).
   */
  event(event: ChatEvent, now: () => number): number {
    switch (event.type) {
      case 'content':
      case 'reasoning':
      case 'refusal':
      case 'tool-call-delta':
      case 'audio':
        return this.#chunk(now());
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
      gapP50Ms: this.#kept === 0 ? null : median(this.#gaps.slice(0, this.#kept)),
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
      if (this.#kept === this.#gaps.length) {
        const grown = new Float64Array(this.#gaps.length * 2);
        grown.set(this.#gaps);
        this.#gaps = grown;
      }
      this.#gaps[this.#kept++] = gap;
      // Full: keep every second gap and take every second one from now on, so the sample stays even.
      if (this.#kept >= MAX_KEPT_GAPS) {
        for (let i = 1; i < this.#kept; i += 2) this.#gaps[i >> 1] = this.#gaps[i]!;
        this.#kept >>= 1;
        this.#stride *= 2;
      }
    }
    return gap;
  }
}

/** The median of `values` (the mean of the middle two for an even count); reorders them. */
function median(values: Float64Array): number {
  const middle = values.length >> 1;
  const upper = select(values, middle);
  if (values.length % 2 === 1) return upper;
  // After the selection everything before `middle` is at most `upper`: the lower middle is their largest.
  let lower = values[0]!;
  for (let i = 1; i < middle; i++) if (values[i]! > lower) lower = values[i]!;
  return (lower + upper) / 2;
}

/**
 * The `k`-th smallest of `values` (Hoare's selection, in linear time on average, where a sort of a
 * long reply's gaps cost more than the rest of the layer): reorders `values` so that it sits at `k`,
 * with nothing larger before it and nothing smaller after it.
 */
function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return values[k]!;
}
