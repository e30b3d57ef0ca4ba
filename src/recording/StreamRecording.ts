import type { RecordedChunk, StreamRecordingInit } from './recordedChunks.js';
import { redactCredentials } from './redactCredentials.js';

/**
 * True for a header whose value is a credential or a cookie (`set-cookie`, `authorization`,
 * `x-api-key`, a `...-token`, a session id), which a recording never keeps. Rate-limit counts such
 * as `x-ratelimit-remaining-tokens` are not credentials and are kept.
 *
 * @example
 * ```ts
 * import { isCredentialHeader } from 'rxjs-llm-stream';
 *
 * isCredentialHeader('Set-Cookie'); // true
 * isCredentialHeader('x-ratelimit-remaining-tokens'); // false
 * ```
 */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name);
}

const CREDENTIAL_HEADER = new RegExp(
  '^(set-cookie2?|cookie|authorization|proxy-authorization|x-amz-security-token)$' +
    '|api-?key|(^|-)key$|(^|-)auth(-|$)|secret|password|passwd|credential|session|(^|-)(auth-)?token$',
  'i',
);

/**
 * The raw pieces of one streamed body, as they arrived: each chunk's bytes and its arrival time.
 * Filled by `recordStream`, saved with `serializeRecording`, read back with
 * `parseRecording` and played again with `replayRecording`: a stream recorded once
 * becomes a repeatable test.
 *
 * @example
 * ```ts
 * import { StreamRecording, recordStream, serializeRecording, decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 *
 * const recording = new StreamRecording({ source: url, contentType: 'text/event-stream' });
 * bytes$.pipe(recordStream(recording), decodeUtf8(), sseFrames()).subscribe({
 *   complete: () => writeFile('reply.rec.jsonl', serializeRecording(recording)),
 * });
 * ```
 */
export class StreamRecording {
  /** When the recording was made (ISO 8601). */
  recordedAt: string;
  /** Where the stream came from, if known. */
  source: string | undefined;
  /** The response's content type, if known. */
  contentType: string | undefined;
  /** The response's HTTP status, if known. */
  status: number | undefined;
  /** The response's headers (lower-case names), credentials and cookies left out. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  private readonly recorded: RecordedChunk[] = [];

  constructor(init: StreamRecordingInit = {}) {
    this.recordedAt = init.recordedAt ?? new Date().toISOString();
    this.source = init.source;
    this.contentType = init.contentType;
    if (init.status !== undefined && !(Number.isInteger(init.status) && init.status >= 100 && init.status <= 999)) {
      throw new RangeError(`StreamRecording: status must be an HTTP status code, got ${String(init.status)}`);
    }
    this.status = init.status;
    this.headers = init.headers === undefined ? undefined : keptHeaders(init.headers);
  }

  /** The chunks in arrival order. */
  get chunks(): readonly RecordedChunk[] {
    return this.recorded;
  }

  /** The number of bytes recorded. */
  get byteLength(): number {
    let length = 0;
    for (const chunk of this.recorded) length += chunk.bytes.length;
    return length;
  }

  /**
   * Adds a chunk that arrived `t` milliseconds after the first. The bytes are copied: a source may
   * reuse its buffer for the next chunk (Node streams from a pool, readers with a BYOB buffer).
   */
  append(bytes: Uint8Array, t: number): void {
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      throw new RangeError(`StreamRecording.append: t must be a finite number >= 0, got ${String(t)}`);
    }
    this.recorded.push({ t, bytes: bytes.slice() });
  }

  /** All the bytes, joined. */
  bytes(): Uint8Array {
    const all = new Uint8Array(this.byteLength);
    let offset = 0;
    for (const chunk of this.recorded) {
      all.set(chunk.bytes, offset);
      offset += chunk.bytes.length;
    }
    return all;
  }
}

/**
 * The headers a recording keeps: names in lower case, credentials and cookies dropped, and the
 * credentials in URLs a value holds (a signed `location`, a `link` with `?sig=`) redacted.
 */
function keptHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && !isCredentialHeader(name)) kept[name.toLowerCase()] = redactCredentials(value);
  }
  return kept;
}
