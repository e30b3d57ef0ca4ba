import type { DialectName } from '../dialects/registry.js';
import type { FaultOutcome } from './FaultOutcome.js';

/**
 * The bytes a provider would send for a reply, cut into the chunks a transport would deliver: what
 * the kit's fakes (`fetch`, `Response`, `Readable`) and marble helpers serve.
 *
 * @example
 * ```ts
 * const stream: ProviderStream = providerStream(reply, 'openai-chat', { chunking: { every: 64 } });
 * stream.chunks.length; // the body in 64-byte pieces
 * ```
 */
export interface ProviderStream {
  /** The format the bytes are in. */
  readonly dialect: Exclude<DialectName, 'auto'>;
  /** The response's `content-type` (`text/event-stream`, `application/x-ndjson`, `application/vnd.amazon.eventstream`). */
  readonly contentType: string;
  /** The HTTP status the response carries: 200 unless a fault made it an error answer. */
  readonly status: number;
  /** The body, in order, as the transport delivers it. Joined, they are the whole body. */
  readonly chunks: readonly Uint8Array[];
  /**
   * Set by the `stall` fault: after the last chunk the body stays open and silent instead of
   * ending, as a provider that hung would leave it.
   */
  readonly stalls: boolean;
  /**
   * Response headers the provider sends beside `content-type` that a reader may look at (the AI SDK's
   * `x-vercel-ai-ui-message-stream: v1`); absent when there are none.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Set by a fault: the error the library promises for it and what that error's `partial` shows, so
   * a test can expect both (`expect(err.partial).toMatchObject(stream.fault.partial)`).
   */
  readonly fault?: FaultOutcome;
}
