import { LlmStreamError, LlmStreamErrorOptions } from '../errors/errors.js';

/**
 * Why a relay dropped a client (`SlowClientError.reason`): `over-cap` (more bytes waited for it than the cap allows),
 * `stalled` (it took nothing for longer than the stall timeout).
 */
export type SlowClientReason = 'over-cap' | 'stalled';

/** Options of {@link SlowClientError}. */
export interface SlowClientErrorOptions extends LlmStreamErrorOptions<SlowClientReason> {
  /** The bytes that were waiting for the client when it was dropped. */
  readonly bufferedBytes: number;
  /** The id of the last event written to the client (`undefined` before the first). */
  readonly lastEventId: string | undefined;
}

/**
 * A relay dropped a client that could not keep up: more bytes waited for it than the relay's cap, or it took nothing
 * for longer than the stall timeout (a background tab, a half-open connection). Its connection was closed and its source
 * cancelled; what a store holds for the stream stays, so the client can resume from `lastEventId`.
 *
 * @example
 * ```ts
 * import { SlowClientError } from 'rxjs-llm-stream/relay';
 *
 * if (err instanceof SlowClientError) console.warn(`dropped a client (${err.reason}) with ${err.bufferedBytes} bytes waiting`);
 * ```
 */
export class SlowClientError extends LlmStreamError {
  override readonly name = 'SlowClientError';
  readonly reason: SlowClientReason;
  readonly bufferedBytes: number;
  readonly lastEventId: string | undefined;

  constructor(message: string, options: SlowClientErrorOptions) {
    super(message, options);
    this.reason = options.reason ?? 'over-cap';
    this.bufferedBytes = options.bufferedBytes;
    this.lastEventId = options.lastEventId;
  }
}
