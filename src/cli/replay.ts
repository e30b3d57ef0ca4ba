import { Observable, SchedulerLike, concatMap, delay, from, of, tap, lastValueFrom, throwError } from 'rxjs';
import { assembleChunks } from '../reply/assembleChunks.js';

import { SseFrame } from '../frames/SseParser.js';
import { StreamRecording } from '../recording/StreamRecording.js';
import { isRecordingText, parseRecording } from '../recording/recordingFile.js';
import { replayRecording } from '../recording/replayRecording.js';
import { decodeUtf8 } from '../frames/decodeUtf8.js';
import { ProtocolError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { jsonErrorObject, providerErrorFromBody } from '../errors/errorBody.js';
import { isJsonObject } from '../internal/json.js';
import { ChatEvent, Completion, CompletionSnapshot } from '../types/events.js';
import { finalizeCompletion } from '../reply/finalizeCompletion.js';
import { groupToolCallsByIndex } from '../reply/groupToolCallsByIndex.js';
import { ndjsonFrames } from '../frames/ndjsonFrames.js';
import { sseFrames } from '../frames/sseFrames.js';
import { seededRandom } from '../internal/seededRandom.js';

/** How a body is cut into frames: server-sent events, or newline-delimited JSON (Ollama's native API). */
export type Framing = 'sse' | 'ndjson';

/** How to print a stream. */
export interface RenderOptions {
  /** Print each event as one JSON line instead of rendering text. */
  readonly json?: boolean;
  /** Colour reasoning, tool calls and errors with ANSI codes (for a terminal). */
  readonly color?: boolean;
  /** `'sse'` (the default) or `'ndjson'`. */
  readonly framing?: Framing;
  /** Where output goes. */
  readonly write: (text: string) => void;
}

/** How to cut and pace the bytes of a replay. */
export interface ReplayOptions extends RenderOptions {
  /**
   * Fixed chunk size in bytes. Absent: random sizes from 1 to 24 for a raw body, the recorded chunks
   * for a recording.
   */
  readonly chunkSize?: number;
  /** Largest random pause between chunks, in milliseconds (0: no pauses). */
  readonly maxDelayMs?: number;
  /** Seed of the random chunking, so that a replay can be repeated exactly. */
  readonly seed?: number;
  /**
   * For a recording: `'original'` waits out the recorded gaps; `'none'` (the default) replays at
   * once. A raw body has no times, so `'original'` is an error there.
   */
  readonly timing?: 'original' | 'none';
  /** Where the recorded gaps are waited out (tests pass a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
  /**
   * The input's file name: a raw body named `.ndjson` or `.jsonl` is NDJSON unless `framing` says
   * otherwise. A recording's own content type comes first (recordings are often named `.jsonl`).
   */
  readonly fileName?: string;
}

/** A snapshot without its `choices` list when that only repeats the single choice at the top. */
function briefly(partial: CompletionSnapshot | undefined): unknown {
  if (partial === undefined || partial.choices.length > 1) return partial;
  const { choices: _choices, ...rest } = partial;
  return rest;
}

/** The recording cut into chunks and paced as the options say. */
export function replayBytes(bytes: Uint8Array, options: Pick<ReplayOptions, 'chunkSize' | 'maxDelayMs' | 'seed'>): Observable<Uint8Array> {
  const next = seededRandom(options.seed ?? 1);
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length;) {
    const size = options.chunkSize ?? 1 + Math.floor(next() * 24);
    pieces.push(bytes.subarray(start, start + size));
    start += size;
  }
  const maxDelay = options.maxDelayMs ?? 0;
  const source = from(pieces);
  return maxDelay === 0 ? source : source.pipe(concatMap((piece) => of(piece).pipe(delay(Math.floor(next() * maxDelay)))));
}

/**
 * The framing a recording's content type (or, failing that, its source's file name) names: NDJSON
 * for `application/x-ndjson`, `application/ndjson`, `application/jsonl` or a `.ndjson`/`.jsonl`
 * source; `undefined` when neither says.
 *
 * @example
 * ```ts
 * framingOfRecording(new StreamRecording({ contentType: 'application/x-ndjson' })); // 'ndjson'
 * ```
 */
export function framingOfRecording(recording: StreamRecording): Framing | undefined {
  const type = recording.contentType?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== '') return /ndjson|jsonl/.test(type) ? 'ndjson' : 'sse';
  if (recording.source !== undefined && /\.(ndjson|jsonl)(\?|#|$)/i.test(recording.source)) return 'ndjson';
  return undefined;
}

/** The first bytes of a body, as text, enough to read a recording's header line. */
function startOf(bytes: Uint8Array): string {
  const end = bytes.indexOf(0x0a);
  return new TextDecoder().decode(bytes.subarray(0, end === -1 ? bytes.length : end));
}

/**
 * Replays a stream through the whole pipeline, printing text as it arrives (reasoning dim, tool
 * calls in cyan) and then the completion, or the error and what was saved. Resolves to the exit
 * code: 0 for a completion, 1 for a stream error.
 *
 * `bytes` is either a raw body (`.sse`, `.ndjson`) or a recording file written by `record` (told
 * apart by its first line; see `serializeRecording`). A raw body is SSE unless `framing` or its
 * `fileName` says NDJSON. A recording replays its own chunks, with its recorded gaps under
 * `timing: 'original'`, and in the framing its content type names (unless `framing` is given); `chunkSize`
 * re-cuts it, and `maxDelayMs` or `seed` replay its bytes as a raw body would be. A malformed
 * recording rejects with the `ProtocolError` that names its line.
 *
 * @example
 * ```ts
 * const code = await replay(readFileSync('reply.rec.jsonl'), { timing: 'original', write: (text) => process.stdout.write(text) });
 * ```
 */
export async function replay(bytes: Uint8Array, options: ReplayOptions): Promise<number> {
  if (isRecordingText(startOf(bytes))) {
    const recording = parseRecording(new TextDecoder().decode(bytes));
    const framing = options.framing ?? framingOfRecording(recording) ?? 'sse';
    const randomPacing = (options.maxDelayMs ?? 0) > 0 || options.seed !== undefined;
    if (randomPacing && options.timing === 'original') {
      throw new Error('--timing original replays the recorded gaps; it cannot be combined with --delay or --seed');
    }
    const bytes$ = randomPacing
      ? replayBytes(recording.bytes(), options)
      : replayRecording(recording, {
          timing: options.timing ?? 'none',
          ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
          ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
        });
    return render(bytes$, { ...options, framing });
  }
  if (options.timing === 'original') {
    throw new Error('--timing original needs a recording (made with `rxjs-llm-stream record`); a raw body has no times');
  }
  const framing = options.framing ?? (options.fileName !== undefined && /\.(ndjson|jsonl)$/i.test(options.fileName) ? 'ndjson' : 'sse');
  const notAStream = framing === 'sse' ? whatIsNotAStream(new TextDecoder().decode(bytes)) : undefined;
  if (notAStream !== undefined)
    return render(
      throwError(() => notAStream),
      { ...options, framing },
    );
  return render(replayBytes(bytes, options), { ...options, framing });
}

/** A line that belongs to an event stream: a field the standard knows, or a comment. */
const EVENT_STREAM_LINE = /^(?:data|event|id|retry)(?::|\r?$)|^:/m;

/**
 * What a whole body that is not an event stream is, as an error, or undefined when it is one (or
 * is empty). The frame layer reads a line it does not know as nothing, as the standard says, so
 * only the whole input can say that a piped body was a JSON error answer (a `ProviderError` with
 * the provider's message), a JSON reply to a request without `stream: true`, or an HTML page (a
 * `ProtocolError` naming it).
 */
export function whatIsNotAStream(text: string): Error | undefined {
  const body = text.trim();
  if (body === '' || EVENT_STREAM_LINE.test(text)) return undefined;
  const errorObject = jsonErrorObject(body);
  if (errorObject !== undefined) return providerErrorFromBody(errorObject);
  if (body.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
    return new ProtocolError(`the input is an HTML page${title ? ` ("${title}")` : ''}, not an event stream`, { reason: 'unknown-format' });
  }
  if (body.startsWith('{') || body.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(body);
      const what = isJsonObject(value) ? 'a JSON object' : Array.isArray(value) ? 'a JSON array' : 'JSON';
      return new ProtocolError(`the input is ${what}, not an event stream (a reply to a request without "stream": true?)`, {
        reason: 'unknown-format',
      });
    } catch {
      // not JSON either: described below
    }
  }
  return new ProtocolError(
    `the input is not an event stream: no line of it is an event-stream field (${JSON.stringify(body.slice(0, 60))})`,
    {
      reason: 'unknown-format',
    },
  );
}

/** Runs any byte stream (a recording, an HTTP body) through the pipeline and prints it as `replay` does. */
export async function render(bytes$: Observable<Uint8Array>, options: RenderOptions): Promise<number> {
  const { write } = options;
  const [DIM, CYAN, RED, RESET] = options.color ? ['\x1b[2m', '\x1b[36m', '\x1b[31m', '\x1b[0m'] : ['', '', '', ''];
  let section: 'reasoning' | 'content' | undefined;
  const show = (event: ChatEvent): void => {
    if (options.json) {
      write(`${JSON.stringify(event)}\n`);
      return;
    }
    if (event.type === 'reasoning') {
      if (section !== 'reasoning') write(`${DIM}[thinking] `);
      section = 'reasoning';
      write(event.text);
    } else if (event.type === 'content') {
      if (section === 'reasoning') write(`${RESET}\n`);
      section = 'content';
      write(event.text);
    } else if (event.type === 'tool-call') {
      if (section === 'reasoning') write(RESET);
      section = undefined;
      write(`\n${CYAN}→ ${event.call.name}(${event.call.arguments})  [${event.call.id}]${RESET}`);
    }
  };
  try {
    const completion: Completion = await lastValueFrom(
      bytes$.pipe(
        decodeUtf8(),
        (text$): Observable<SseFrame> => text$.pipe(options.framing === 'ndjson' ? ndjsonFrames() : sseFrames()),
        assembleChunks(),
        groupToolCallsByIndex(),
        tap(show),
        finalizeCompletion(),
      ),
    );
    if (options.json) write(`${JSON.stringify({ completion })}\n`);
    else write(`${section === 'reasoning' ? RESET : ''}\n\ncompletion:\n${JSON.stringify(completion, null, 2)}\n`);
    return 0;
  } catch (error) {
    const partial = isLlmStreamError(error) ? (error.partial as CompletionSnapshot | undefined) : undefined;
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    if (options.json) write(`${JSON.stringify({ error: { name, message, partial } })}\n`);
    else write(`${RESET}\n\n${RED}${name}: ${message}${RESET}\nsaved so far:\n${JSON.stringify(briefly(partial), null, 2)}\n`);
    return 1;
  }
}
