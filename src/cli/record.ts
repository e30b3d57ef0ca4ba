import { writeFile } from 'node:fs/promises';
import { EMPTY, Observable } from 'rxjs';
import { StreamRecording } from '../recording/StreamRecording.js';
import { serializeRecording } from '../recording/recordingFile.js';
import { checkedBody } from '../io/checkedBody.js';
import { chunkReading } from '../io/fromReadableStream.js';
import { webChunks } from '../io/readChunks.js';
import { messageOf } from '../io/transportFailure.js';
import { recordStream } from '../recording/recordStream.js';
import { redactCredentials } from '../recording/redactCredentials.js';
import { fetchFollowingRedirects } from './fetchFollowingRedirects.js';
import { RenderOptions, framingOfRecording, render } from './replay.js';

/** What `rxjs-llm-stream record` was asked to do. */
export interface RecordRequest {
  readonly url: string;
  /** The file the recording is written to. */
  readonly out: string;
  /** The HTTP method: `POST` when there is a body, else `GET`, unless given. */
  readonly method?: string;
  /** Request headers, in order (a name may repeat). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The request body (JSON). */
  readonly data?: string;
  /** Print one JSON line per event instead of text. */
  readonly json: boolean;
}

/** Options of {@link record}. */
export interface RecordOptions extends RenderOptions, Omit<RecordRequest, 'url' | 'json' | 'headers'> {
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  /** Where the closing line ("recorded … to FILE") goes (default: `write`). */
  readonly log?: (text: string) => void;
  /** The clock of the arrival times (default `performance.now`). */
  readonly clock?: () => number;
}

/**
 * The usage lines of `record`, for the command's help text.
 *
 * @example
 * ```ts
 * process.stdout.write(`usage:\n${RECORD_USAGE}\n`);
 * ```
 */
export const RECORD_USAGE = `  rxjs-llm-stream record <url> --out FILE [--method POST] [--header 'name: value']... [--data JSON] [--json]
      fetches a live stream, prints it as replay does and writes every chunk with its arrival
      time to FILE (JSON lines), with the response's status and headers (never credentials or
      cookies; request headers are never written; keys in the URL are REDACTED); replay FILE plays
      it again, errors included. Secret headers never follow a redirect to another origin`;

/**
 * Reads the arguments of `record` (those after the word `record`). Throws an `Error` whose message
 * says what is wrong: a missing URL or `--out`, a header without a colon, `--data` that is not JSON.
 *
 * @example
 * ```ts
 * const url = 'https://api.openai.com/v1/chat/completions';
 * parseRecordArguments([url, '--out', 'reply.rec.jsonl', '-H', 'authorization: Bearer sk-…', '--data', body]);
 * // { url, out: 'reply.rec.jsonl', headers: [['authorization', 'Bearer sk-…']], data: body, json: false }
 * ```
 */
export function parseRecordArguments(args: readonly string[]): RecordRequest {
  let url: string | undefined;
  let out: string | undefined;
  let method: string | undefined;
  let data: string | undefined;
  let json = false;
  const headers: [string, string][] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--out' || arg === '-o') out = value();
    else if (arg === '--method' || arg === '-X') method = value().toUpperCase();
    else if (arg === '--header' || arg === '-H') {
      const header = value();
      const colon = header.indexOf(':');
      // Not quoted back: a header typed without its colon is often `authorization Bearer sk-…`.
      if (colon <= 0) throw new Error(`--header needs 'name: value' (the header given has no colon before its value)`);
      headers.push([header.slice(0, colon).trim(), header.slice(colon + 1).trim()]);
    } else if (arg === '--data' || arg === '-d') {
      data = value();
      try {
        JSON.parse(data);
      } catch {
        // Caught here, before the request: a shell that ate a quote would otherwise cost a call.
        throw new Error(`--data is not JSON: ${data.length > 60 ? `${data.slice(0, 60)}…` : data}`);
      }
    } else if (arg === '--json') json = true;
    else if (url === undefined && !arg.startsWith('-')) url = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (url === undefined) throw new Error('record needs a URL');
  if (!/^https?:\/\//i.test(url)) throw new Error(`record needs an http(s) URL, got ${redactCredentials(url)}`);
  if (!URL.canParse(url)) throw new Error(`record needs a valid URL, got ${redactCredentials(url)}`);
  if (out === undefined) throw new Error('record needs --out FILE');
  return { url, out, headers, json, ...(method === undefined ? {} : { method }), ...(data === undefined ? {} : { data }) };
}

/**
 * The URL without its user info, and the `authorization` header that carries it instead (HTTP Basic,
 * as `curl` sends it): `fetch` refuses a URL with user info, and would print it whole in its error.
 */
function withoutUserInfo(url: URL): { url: URL; authorization: string | undefined } {
  if (url.username === '' && url.password === '') return { url, authorization: undefined };
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  const decoded = (part: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const credentials = Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString('base64');
  return { url: bare, authorization: `Basic ${credentials}` };
}

/**
 * `rxjs-llm-stream record`: sends the request with the platform `fetch`, prints the reply live
 * through the pipeline (as `replay` does, with the framing the content type names), and writes
 * every chunk that arrived, with its arrival time, to `options.out`, also when the stream fails
 * (that is when a recording is most wanted). Resolves to the exit code: 0 for a completion, 1 for
 * a stream error or a request that got no response.
 *
 * The file records the URL with its credentials redacted (`redactCredentials`: user info, `?key=`,
 * `?code=`, `?token=`, ...), the status and the response headers (credentials and cookies left out),
 * and the body as it came, an error body included: replayed, a 429 is the same `ProviderError` as
 * live. The request's headers and body are never written, and what it prints is redacted the same
 * way. User info in the URL is sent as HTTP Basic `authorization` (unless one is given). Redirects
 * are followed, but a secret header (`authorization`, `cookie`, `x-api-key`, `api-key`,
 * `x-goog-api-key`, any name with `key`, `token`, `secret` or `auth`) never goes to another origin.
 *
 * @example
 * ```ts
 * const code = await record('http://127.0.0.1:8080/v1/chat/completions', {
 *   out: 'reply.rec.jsonl',
 *   data: JSON.stringify({ model, messages, stream: true }),
 *   write: (text) => process.stdout.write(text),
 * });
 * ```
 */
export async function record(url: string, options: RecordOptions): Promise<number> {
  // Everything this prints goes through the redaction: a message of the platform may quote a URL.
  const log = (text: string): void => (options.log ?? options.write)(redactCredentials(text));
  let response: Response;
  try {
    // Built in here: a URL that does not parse, or a header value with a line end, is a failure
    // that is reported as the others are.
    const target = withoutUserInfo(new URL(url));
    const headers = new Headers();
    for (const [name, value] of options.headers ?? []) {
      try {
        headers.append(name, value);
      } catch {
        // The platform's message quotes the value, which is often a key.
        throw new Error(`the header ${JSON.stringify(name.slice(0, 60))} has an invalid name or value (a line end?)`);
      }
    }
    if (target.authorization !== undefined && !headers.has('authorization')) headers.set('authorization', target.authorization);
    if (options.data !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    // Redirects are followed here, not by `fetch`, which would forward `x-api-key` to another origin.
    response = await fetchFollowingRedirects(target.url.href, {
      method: options.method ?? (options.data === undefined ? 'GET' : 'POST'),
      headers,
      ...(options.data === undefined ? {} : { body: options.data }),
    });
  } catch (error) {
    const cause = messageOf((error as { cause?: unknown } | undefined)?.cause);
    log(`no response from ${url}: ${messageOf(error) ?? String(error)}${cause === undefined ? '' : ` (${cause})`}\n`);
    return 1;
  }
  const contentType = response.headers.get('content-type') ?? undefined;
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (responseHeaders[name] = value));
  const recording = new StreamRecording({
    source: redactCredentials(url),
    status: response.status,
    headers: responseHeaders,
    ...(contentType === undefined ? {} : { contentType }),
  });
  // The body is recorded as it came, before the checks `fromResponse` makes, so that an error body
  // is kept too; the same checks then run on what was recorded, as they will on its replay.
  const body$ = response.body === null ? EMPTY : webChunks(response.body, chunkReading({}, 'record'));
  const recorded$ = body$.pipe(recordStream(recording, options.clock === undefined ? {} : { clock: options.clock }));
  const bytes$: Observable<Uint8Array> = checkedBody({ status: response.status, contentType }, recorded$);
  let code: number;
  try {
    code = await render(bytes$, { ...options, framing: options.framing ?? framingOfRecording(recording) ?? 'sse' });
  } finally {
    await writeFile(options.out, serializeRecording(recording));
  }
  log(
    `recorded ${recording.chunks.length} chunk${recording.chunks.length === 1 ? '' : 's'} ` +
      `(${recording.byteLength} bytes) to ${options.out}\n`,
  );
  return code;
}
