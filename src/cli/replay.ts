import { Observable, concatMap, delay, from, of, tap, lastValueFrom } from 'rxjs';
import { assembleChunks } from '../assembleChunks.js';
import { CompletionSnapshot } from '../core/CompletionTracker.js';
import { decodeUtf8 } from '../decodeUtf8.js';
import { isLlmStreamError } from '../errors.js';
import { ChatEvent, Completion } from '../events.js';
import { finalizeCompletion } from '../finalizeCompletion.js';
import { groupToolCallsByIndex } from '../groupToolCallsByIndex.js';
import { sseFrames } from '../sseFrames.js';

/** How to cut and pace the bytes of a replay. */
export interface ReplayOptions {
  /** Fixed chunk size in bytes; random sizes from 1 to 24 when absent. */
  readonly chunkSize?: number;
  /** Largest pause between chunks, in milliseconds (0: no pauses). */
  readonly maxDelayMs?: number;
  /** Print each event as one JSON line instead of rendering text. */
  readonly json?: boolean;
  /** Seed of the random chunking, so that a replay can be repeated exactly. */
  readonly seed?: number;
  /** Colour reasoning, tool calls and errors with ANSI codes (for a terminal). */
  readonly color?: boolean;
  /** Where output goes. */
  readonly write: (text: string) => void;
}

/** A small deterministic generator (mulberry32), so a seeded replay cuts the same way each time. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A snapshot without its `choices` list when that only repeats the single choice at the top. */
function briefly(partial: CompletionSnapshot | undefined): unknown {
  if (partial === undefined || partial.choices.length > 1) return partial;
  const { choices: _choices, ...rest } = partial;
  return rest;
}

/** The recording cut into chunks and paced as the options say. */
export function replayBytes(bytes: Uint8Array, options: Pick<ReplayOptions, 'chunkSize' | 'maxDelayMs' | 'seed'>): Observable<Uint8Array> {
  const next = random(options.seed ?? 1);
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; ) {
    const size = options.chunkSize ?? 1 + Math.floor(next() * 24);
    pieces.push(bytes.subarray(start, start + size));
    start += size;
  }
  const maxDelay = options.maxDelayMs ?? 0;
  const source = from(pieces);
  return maxDelay === 0
    ? source
    : source.pipe(concatMap((piece) => of(piece).pipe(delay(Math.floor(next() * maxDelay)))));
}

/**
 * Replays a recorded stream through the whole pipeline, printing text as it arrives (reasoning dim,
 * tool calls in cyan) and then the completion, or the error and what was saved. Resolves to the exit
 * code: 0 for a completion, 1 for a stream error.
 */
export function replay(bytes: Uint8Array, options: ReplayOptions): Promise<number> {
  return render(replayBytes(bytes, options), options);
}

/** Runs any byte stream (a recording, an HTTP body) through the pipeline and prints it as `replay` does. */
export async function render(bytes$: Observable<Uint8Array>, options: Omit<ReplayOptions, 'chunkSize' | 'maxDelayMs' | 'seed'>): Promise<number> {
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
        sseFrames(),
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
