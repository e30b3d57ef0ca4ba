/**
 * The recording file format: JSON lines, a header line, then one line per chunk with its arrival
 * time and its bytes in base64. What a recording holds, how it is written, and how it is read back
 * (strictly: a bad line is a `ProtocolError` naming it).
 */
import { ProtocolError } from '../errors/errors.js';
import { isJsonObject } from '../internal/json.js';
import { decodeBase64, encodeBase64 } from '../internal/base64.js';
import { StreamRecording } from './StreamRecording.js';
import { redactCredentials } from './redactCredentials.js';

/** The `format` of the header line of a recording file. */
export const RECORDING_FORMAT = 'rxjs-llm-stream/recording';

/** The version of the recording file format this library writes and reads. */
export const RECORDING_VERSION = 1;

/** Milliseconds kept to the microsecond: `performance.now()` gives more digits than anyone needs. */
const roundTime = (t: number): number => Math.round(t * 1000) / 1000;

/**
 * A recording as text, in the recording file format (JSON lines, UTF-8):
 *
 * ```
 * {"format":"rxjs-llm-stream/recording","version":1,"recordedAt":"2026-01-01T12:00:00.000Z","source":"https://…",
 *  "contentType":"text/event-stream","status":200,"headers":{"content-type":"text/event-stream"}}   (one line in the file)
 * {"t":0,"b":"ZGF0YTogeyJpZCI6…"}
 * {"t":12.5,"b":"…"}
 * ```
 *
 * The first line is the header (`source`, `contentType`, `status` and `headers` only when known;
 * `headers` never holds credentials or cookies, and `source` and the URLs in header values are
 * written with their credentials redacted: user info removed, `?key=`, `?code=`, `?token=`, ... as
 * `REDACTED`); then one line per chunk, in arrival order: `t`, milliseconds since the first chunk (to the microsecond), and `b`,
 * the chunk's bytes in standard base64, so any bytes survive, invalid UTF-8 and characters split
 * between chunks included; for an error status, the chunks are the error body. Every line ends
 * with `\n`. Nothing else is written: no request headers, no request body, so no API key ends up
 * in a file.
 *
 * @example
 * ```ts
 * import { serializeRecording } from 'rxjs-llm-stream';
 *
 * await writeFile('reply.rec.jsonl', serializeRecording(recording));
 * ```
 *
 * @param recording The recording to write.
 * @returns The file's text.
 */
export function serializeRecording(recording: StreamRecording): string {
  const header: Record<string, unknown> = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: recording.recordedAt,
  };
  // A source given with its key (`?key=`, `user:password@`) is written without it.
  if (recording.source !== undefined) header['source'] = redactCredentials(recording.source);
  if (recording.contentType !== undefined) header['contentType'] = recording.contentType;
  if (recording.status !== undefined) header['status'] = recording.status;
  if (recording.headers !== undefined) header['headers'] = recording.headers;
  const lines = [JSON.stringify(header)];
  for (const chunk of recording.chunks) lines.push(JSON.stringify({ t: roundTime(chunk.t), b: encodeBase64(chunk.bytes) }));
  return `${lines.join('\n')}\n`;
}

/**
 * True when `text` starts like a recording file: its first line is a JSON object whose `format` is
 * `rxjs-llm-stream/recording`. Tells a recording from a raw `.sse` or `.ndjson` body (whose first
 * line is never such an object) without parsing the rest.
 *
 * @example
 * ```ts
 * import { isRecordingText, parseRecording } from 'rxjs-llm-stream';
 *
 * const recording = isRecordingText(text) ? parseRecording(text) : undefined;
 * ```
 *
 * @param text The file's text, or its beginning (at least the first line).
 * @returns True for a recording file of any version.
 */
export function isRecordingText(text: string): boolean {
  const end = text.indexOf('\n');
  const first = (end === -1 ? text : text.slice(0, end)).trim();
  if (!first.startsWith('{')) return false;
  try {
    const header: unknown = JSON.parse(first);
    return isJsonObject(header) && header['format'] === RECORDING_FORMAT;
  } catch {
    return false;
  }
}

/**
 * Reads a recording file (see {@link serializeRecording} for the format). Lines may end in LF or
 * CRLF; blank lines are skipped; unknown fields are ignored, so a later writer can add some.
 * Anything else is a `ProtocolError` naming the line (`position.line`, 1-based): a header that is
 * missing, of another format or version, without a valid `recordedAt`, or with a `status` that is
 * not an HTTP status code or `headers` that are not an object of strings; a chunk line that is not
 * a JSON object, whose `t` is not a finite number >= 0, or whose `b` is not standard base64.
 *
 * @example
 * ```ts
 * import { parseRecording, replayRecording, decodeUtf8, sseFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * const recording = parseRecording(await readFile('reply.rec.jsonl', 'utf8'));
 * const completion$ = replayRecording(recording).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion());
 * ```
 *
 * @param text The file's text.
 * @returns The recording.
 */
export function parseRecording(text: string): StreamRecording {
  const fail = (line: number, what: string): never => {
    throw new ProtocolError(`recording line ${line}: ${what}`, { reason: 'invalid-recording', position: { line } });
  };
  const readJson = (line: number, source: string): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      return fail(line, 'not JSON');
    }
    return isJsonObject(value) ? value : fail(line, 'not a JSON object');
  };
  let recording: StreamRecording | undefined;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const source = lines[index]!.endsWith('\r') ? lines[index]!.slice(0, -1) : lines[index]!;
    if (source.trim() === '') continue;
    const value = readJson(line, source);
    if (recording === undefined) {
      if (value['format'] !== RECORDING_FORMAT) fail(line, `not a recording header (format must be "${RECORDING_FORMAT}")`);
      if (value['version'] !== RECORDING_VERSION)
        fail(line, `unsupported recording version ${JSON.stringify(value['version'])} (this reader knows ${RECORDING_VERSION})`);
      const recordedAt = value['recordedAt'];
      if (typeof recordedAt !== 'string' || Number.isNaN(Date.parse(recordedAt))) fail(line, '"recordedAt" must be an ISO 8601 date');
      for (const name of ['source', 'contentType']) {
        if (value[name] !== undefined && typeof value[name] !== 'string') fail(line, `"${name}" must be a string`);
      }
      const status = value['status'];
      if (status !== undefined && !(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 999)) {
        fail(line, '"status" must be an HTTP status code');
      }
      const headers = value['headers'];
      if (headers !== undefined && !(isJsonObject(headers) && Object.values(headers).every((v) => typeof v === 'string'))) {
        fail(line, '"headers" must be an object of strings');
      }
      recording = new StreamRecording({
        recordedAt: recordedAt as string,
        ...(typeof value['source'] === 'string' ? { source: value['source'] } : {}),
        ...(typeof value['contentType'] === 'string' ? { contentType: value['contentType'] } : {}),
        ...(typeof status === 'number' ? { status } : {}),
        ...(headers === undefined ? {} : { headers: headers as Record<string, string> }),
      });
      continue;
    }
    const t = value['t'];
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) fail(line, '"t" must be a number of milliseconds >= 0');
    const b = value['b'];
    const bytes = typeof b === 'string' ? decodeBase64(b) : undefined;
    if (bytes === undefined) fail(line, '"b" must be the chunk\'s bytes in standard base64');
    recording.append(bytes!, t as number);
  }
  return recording ?? fail(1, 'empty: a recording starts with its header line');
}
