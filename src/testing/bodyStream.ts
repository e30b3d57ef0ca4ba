import type { DialectName } from '../dialects/registry.js';
import { Chunking, cutBody } from './chunking.js';
import type { ProviderStream } from './ProviderStream.js';

/** How `bodyStream` labels the bytes it is given. */
export interface BodyStreamOptions {
  /** The format the bytes are in. Default `'openai-chat'`. */
  readonly dialect?: Exclude<DialectName, 'auto'>;
  /** The response's `content-type`. Default: the one servers of `dialect` send. */
  readonly contentType?: string;
  /** The HTTP status. Default 200. */
  readonly status?: number;
  /** True: after the last chunk the body stays open and silent (a provider that hung). Default false. */
  readonly stalls?: boolean;
  /**
   * Cut the body again, as `providerStream` cuts its own (`'whole'`, `{ every: n }`, `{ random:
   * seed }`, `'inside-characters'`); by default each element of `body` is one chunk.
   */
  readonly chunking?: Chunking;
}

/** The `content-type` servers of each format send with a streamed reply. */
export function contentTypeOf(dialect: Exclude<DialectName, 'auto'>): string {
  if (dialect === 'ollama') return 'application/x-ndjson';
  if (dialect === 'bedrock-converse' || dialect === 'bedrock-invoke') return 'application/vnd.amazon.eventstream';
  return 'text/event-stream';
}

/**
 * A `ProviderStream` of bytes a test already has: a body written by hand, a recording, an error page.
 * Each element of `body` is one chunk, as the transport would deliver it (a string is its UTF-8
 * bytes); a single string or `Uint8Array` is one chunk; `chunking` cuts the whole body anew. The
 * kit's fakes and marble helpers serve it as they serve the streams `providerStream` writes.
 *
 * @example
 * ```ts
 * import { bodyStream, fakeResponse } from 'rxjs-llm-stream/testing';
 *
 * const page = bodyStream('<html>Bad gateway</html>', { contentType: 'text/html', status: 502 });
 * const response = fakeResponse(page); // fromResponse(response) fails with a ProviderError (status 502)
 *
 * const recording = bodyStream(readFileSync('reply.sse'), { chunking: { random: 42 } }); // cut in 1 to 16 bytes
 * ```
 *
 * @param body The chunks, in order.
 * @param options `dialect`, `contentType`, `status`, `stalls`, `chunking`.
 * @returns The stream, its chunks copied (the caller's arrays may change afterwards).
 */
export function bodyStream(body: string | Uint8Array | readonly (string | Uint8Array)[], options: BodyStreamOptions = {}): ProviderStream {
  const encoder = new TextEncoder();
  const pieces = typeof body === 'string' || body instanceof Uint8Array ? [body] : body;
  const bytes = pieces.map((piece) => (typeof piece === 'string' ? encoder.encode(piece) : piece));
  const dialect = options.dialect ?? 'openai-chat';
  return {
    dialect,
    contentType: options.contentType ?? contentTypeOf(dialect),
    status: options.status ?? 200,
    // As given (an empty chunk included: transports deliver those too), unless cut anew.
    chunks: options.chunking === undefined ? bytes.map((piece) => piece.slice()) : cutBody(bytes, options.chunking),
    stalls: options.stalls ?? false,
  };
}
