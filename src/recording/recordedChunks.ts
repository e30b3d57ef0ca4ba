// What a recording holds besides the class that holds it: apart, so that the recording and its file
// format both name them and neither imports the other for it.

/** One chunk as it arrived: its bytes and when, in milliseconds since the first chunk. */
export interface RecordedChunk {
  /** Milliseconds since the first chunk of the recording (the first is usually 0). */
  readonly t: number;
  /** The chunk's bytes (a copy, owned by the recording). */
  readonly bytes: Uint8Array;
}

/** What a recording knows about itself, besides its chunks. */
export interface StreamRecordingInit {
  /** When the recording was made, as an ISO 8601 date (default: now). */
  readonly recordedAt?: string;
  /** Where the stream came from (a URL), if known. */
  readonly source?: string;
  /** The response's content type, if known (it tells SSE from NDJSON on replay). */
  readonly contentType?: string;
  /**
   * The response's HTTP status, if known. A recording with a status replays as the response did
   * live: a non-2xx status (the chunks are then the error body) is the same `ProviderError`, an
   * unexpected content type the same `ProtocolError`.
   */
  readonly status?: number;
  /**
   * The response's headers, names in lower case. Credentials and cookies are never kept (see
   * `isCredentialHeader`): a recording is made to be shared.
   */
  readonly headers?: Readonly<Record<string, string>>;
}
