/**
 * A new stream id that nobody can guess: 192 bits from the platform's cryptographic random source,
 * as 32 characters of base64url. The id is all a client needs to resume or stop a stream, so it must
 * be as hard to guess as a session token (and an `authorize` hook should still check who asks).
 *
 * @example
 * ```ts
 * import { randomStreamId } from 'rxjs-llm-stream/relay';
 *
 * relay.start(reply, response, { streamId: randomStreamId() });
 * ```
 *
 * @returns The id.
 */
export function randomStreamId(): string {
  const bytes = new Uint8Array(24);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
