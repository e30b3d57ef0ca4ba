/**
 * The recordings of one dialect's folder under `marbles/dialects/<dialect>/`, each against the result
 * `marbles/tools/expected.py` wrote beside it from the bytes alone (a reading that shares nothing with
 * the library), replayed as the corpus is: whole and in pieces of 1, 7 and 64 bytes, under the dialect
 * named and under `auto`, through the README's pipeline.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { pipe } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';
import { DialectFactory } from '../../src/dialects/Dialect';
import { autoDialect } from '../../src/dialects/auto';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { Completion } from '../../src/types/events';
import { Outcome, runSync } from './collect';

/** A result as `expected.py` writes it: the completion, or the error's name and choice 0's partial. */
export interface ExpectedResult {
  readonly dialect: string;
  readonly completion?: Completion;
  readonly error?: string;
  readonly partial?: Record<string, unknown>;
}

/** One recording of the folder. */
export interface FolderRecording {
  readonly file: string;
  readonly bytes: Uint8Array;
  readonly expected: ExpectedResult;
}

/** The `.sse` recordings of `marbles/dialects/<folder>/`, with their expected results, by name. */
export function recordingsOf(folder: string): FolderRecording[] {
  const path = join(__dirname, '..', '..', 'marbles', 'dialects', folder);
  return readdirSync(path)
    .filter((file) => file.endsWith('.sse'))
    .sort()
    .map((file) => ({
      file,
      bytes: new Uint8Array(readFileSync(join(path, file))),
      expected: JSON.parse(readFileSync(join(path, file.replace(/\.sse$/, '.expected.json')), 'utf8')) as ExpectedResult,
    }));
}

/** The body in pieces of `size` bytes. */
function piecesOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size));
  return pieces;
}

/** The README's pipeline over `bytes` in pieces of `size`. */
export function replayRecording(bytes: Uint8Array, size: number, dialect: DialectFactory): Outcome<Completion> {
  return runSync(
    piecesOf(bytes, size),
    pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()),
  );
}

/** The recording with every line end made CRLF, as Google's servers send it: the same result. */
function withCrlf(bytes: Uint8Array): Uint8Array {
  return new TextEncoder().encode(new TextDecoder().decode(bytes).replace(/\r?\n/g, '\r\n'));
}

/**
 * Registers, per recording of the folder, that it reads as `expected.py` says whole and at 1, 7 and
 * 64-byte pieces, under `dialect` and under `auto`, and with CRLF line ends under `dialect`: the
 * completion, or the error's name and a partial that holds what `expected.py` says arrived.
 */
export function recordedFolderSuite(folder: string, dialect: DialectFactory): void {
  const recordings = recordingsOf(folder);

  describe(`the recordings of marbles/dialects/${folder}/`, () => {
    it('are there, each with its expected result for this dialect', () => {
      expect(recordings.length).toBeGreaterThanOrEqual(4);
      for (const recording of recordings) expect(recording.expected.dialect).toBe(folder);
    });

    describe.each(recordings.map((recording) => [recording.file, recording] as const))('%s', (_file, recording) => {
      it.each([
        [folder, dialect, false],
        ['auto', autoDialect, false],
        [`${folder}, CRLF line ends`, dialect, true],
      ])('reads as expected whole and at 1, 7 and 64-byte pieces with %s', (_how, chosen, crlf) => {
        const bytes = crlf ? withCrlf(recording.bytes) : recording.bytes;
        // The recording has bare LF line ends to rewrite; else the CRLF reading would only repeat the first.
        if (crlf) expect(bytes.length).toBeGreaterThan(recording.bytes.length);
        for (const size of [bytes.length, 1, 7, 64]) {
          const outcome = replayRecording(bytes, size, chosen);
          if (recording.expected.completion !== undefined) {
            expect({ size, error: outcome.error, values: outcome.values }).toEqual({
              size,
              error: undefined,
              values: [recording.expected.completion],
            });
          } else {
            expect({ size, values: outcome.values, error: (outcome.error as Error).name }).toEqual({
              size,
              values: [],
              error: recording.expected.error,
            });
            expect((outcome.error as { partial: unknown }).partial).toMatchObject(recording.expected.partial!);
          }
        }
      });
    });
  });
}
