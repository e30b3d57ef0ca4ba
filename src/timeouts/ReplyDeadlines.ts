import type { IdleReason } from '../errors/errors.js';

/**
 * The limits of `replyTimeouts`, in milliseconds; a limit left out (or `Infinity`) is not applied.
 *
 * @example
 * ```ts
 * import type { ReplyTimeoutLimits } from 'rxjs-llm-stream';
 *
 * const limits: ReplyTimeoutLimits = { firstContent: 60_000, betweenContent: 20_000, total: 600_000 };
 * ```
 */
export interface ReplyTimeoutLimits {
  /** The longest wait from the start for the first content event (the model's think time included). */
  readonly firstContent?: number;
  /** The longest wait between content events; before the first one too when `firstContent` is not given. */
  readonly betweenContent?: number;
  /** The longest the whole reply may take, from the start to its end. */
  readonly total?: number;
}

/** The next limit to run out: when, which, and how many milliseconds it allowed. */
export interface ReplyDeadline {
  readonly at: number;
  readonly reason: Exclude<IdleReason, 'idle'>;
  readonly ms: number;
}

/**
 * The deadlines of one reply, kept without timers: the operator asks for the next one, and the
 * reply's content events move the content deadline on. Times are the caller's clock (a scheduler's
 * `now()`), so the same core serves real and virtual time.
 */
export class ReplyDeadlines {
  private lastContentAt: number | undefined;
  /** Content events seen. */
  contentEvents = 0;
  /** Events seen, content or not. */
  events = 0;

  constructor(
    private readonly limits: ReplyTimeoutLimits,
    private readonly startedAt: number,
  ) {}

  /** Records an event at `now`; `content` says whether it counts as content. */
  record(now: number, content: boolean): void {
    this.events++;
    if (!content) return;
    this.contentEvents++;
    this.lastContentAt = now;
  }

  /** The earliest deadline still ahead or passed, or `undefined` when no limit applies. */
  next(): ReplyDeadline | undefined {
    const { firstContent, betweenContent, total } = this.limits;
    let content: ReplyDeadline | undefined;
    if (this.lastContentAt === undefined) {
      if (firstContent !== undefined && firstContent !== Infinity) {
        content = { at: this.startedAt + firstContent, reason: 'first-content', ms: firstContent };
      } else if (betweenContent !== undefined && betweenContent !== Infinity) {
        content = { at: this.startedAt + betweenContent, reason: 'between-content', ms: betweenContent };
      }
    } else if (betweenContent !== undefined && betweenContent !== Infinity) {
      content = { at: this.lastContentAt + betweenContent, reason: 'between-content', ms: betweenContent };
    }
    const whole: ReplyDeadline | undefined =
      total === undefined || total === Infinity ? undefined : { at: this.startedAt + total, reason: 'total', ms: total };
    if (content === undefined) return whole;
    if (whole === undefined) return content;
    return whole.at < content.at ? whole : content;
  }

  /** The message of the error for `deadline`, saying what had arrived. */
  describe(deadline: ReplyDeadline): string {
    const seen = `${this.events} event${this.events === 1 ? '' : 's'}`;
    switch (deadline.reason) {
      case 'first-content':
        return `no content arrived within ${deadline.ms} ms of the start (firstContent; ${seen} arrived, none of them content)`;
      case 'between-content':
        return this.contentEvents === 0
          ? `no content arrived within ${deadline.ms} ms of the start (betweenContent; ${seen} arrived, none of them content)`
          : `no content arrived for ${deadline.ms} ms after content event ${this.contentEvents} (betweenContent; ${seen} in all)`;
      case 'total':
        return `the reply ran past its total limit of ${deadline.ms} ms (${seen}, ${this.contentEvents} of them content)`;
    }
  }
}
